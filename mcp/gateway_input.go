package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The input loop: a server on protocol 2026-07-28 (a new-wire session,
// downstream.Session.NewWire) asks for input during a tools/call by
// answering it with a result of resultType "input_required", whose
// inputRequests are the questions (elicitation/create, sampling/createMessage,
// roots/list) and whose requestState is opaque. mcptray answers each
// question where it would answer the same request sent the older way
// (elicit: secrets, consent and sign-ins in the inbox, the rest to an
// assistant that can take it; sampling to the assistant; roots: none),
// then retries the call — the same request as first sent, with
// inputResponses and the requestState exactly as it came — under the same
// gateway id (none when the server gave none). The assistant sees only
// the final result. At most
// maxInputRounds rounds; a malformed question fails the call with an
// error saying what was wrong, and the session goes on.
//
// Stdio servers' calls run the loop here, on the fast path (fastInput,
// a goroutine of its own: the reply came on the stdout tap) and on the
// slow path (forward's loop, nextRound); an HTTP server's in callHTTP
// (gateway_input_http.go). The bytes toward and from such a server:
// gateway_input_wire.go; the relay to an assistant on 2026-07-28:
// gateway_input_relay.go.

// maxInputRounds bounds the input_required rounds of one call, and
// maxInputQuestions the questions of one round (each may be one more
// request in the person's inbox).
const (
	maxInputRounds    = downstream.MaxInputRounds
	maxInputQuestions = 16
)

// isInputRequired reports whether a new-wire server's result asks for
// input. The cheap test first: most results never name it.
func isInputRequired(result []byte) bool {
	if !bytes.Contains(result, []byte(`input_required`)) {
		return false
	}
	return wire.Field(result, "resultType").Is(result, `"input_required"`)
}

// inputError is why a call's input_required could not be answered: the
// text the assistant reads.
type inputError struct{ text string }

func (e *inputError) Error() string { return e.text }

// nextRound looks at a new-wire server's reply to call c, whose request
// was sent as sent. When it asks for input, nextRound answers it and
// returns the request of the next round; nil when the reply is final.
func (g *Gateway) nextRound(ctx context.Context, c *call, sent, reply []byte) ([]byte, error) {
	if !c.sess.NewWire() {
		return nil, nil
	}
	p, err := wire.PeekMessage(reply)
	if err != nil || !p.Result.OK() || !isInputRequired(p.Result.Of(reply)) {
		return nil, nil
	}
	c.rounds++
	if c.rounds > maxInputRounds {
		return nil, &inputError{fmt.Sprintf("server %q asked for input more than %d times during one call of %q; mcptray stopped the call", c.server, maxInputRounds, c.tool)}
	}
	if c.reply != nil {
		// The slow path's call, out of the table since its reply came:
		// back in while its questions wait, so that an elicitation finds it.
		g.calls.add(c)
		defer g.calls.take(c.n)
	}
	responses, state, err := g.answerInput(ctx, c, p.Result.Of(reply))
	if err != nil {
		return nil, err
	}
	return retryLine(sent, responses, state)
}

// answerInput answers the questions of one input_required result and
// returns the inputResponses object and the requestState as it came.
func (g *Gateway) answerInput(ctx context.Context, c *call, result []byte) (responses, state []byte, err error) {
	var r struct {
		InputRequests map[string]*inputQuestion `json:"inputRequests"`
		RequestState  json.RawMessage           `json:"requestState"`
	}
	if err := json.Unmarshal(c.sess.RedactJSON(result), &r); err != nil {
		return nil, nil, &inputError{fmt.Sprintf("server %q asked for input in a result mcptray cannot read: %v", c.server, err)}
	}
	// The requestState goes back exactly as it came: from the result as
	// sent, not redacted. It is optional (go-sdk leaves it out when the
	// server set none): then the retry has none either.
	st := wire.Field(result, "requestState")
	if st.OK() {
		if _, ok := wire.RawString(st.Of(result)); !ok {
			return nil, nil, &inputError{fmt.Sprintf("server %q asked for input with a requestState that is not a string (a malformed input_required result); the call was stopped", c.server)}
		}
	}
	if len(r.InputRequests) == 0 {
		return nil, nil, &inputError{fmt.Sprintf("server %q asked for input but listed no question (it may be busy); try again later", c.server)}
	}
	if len(r.InputRequests) > maxInputQuestions {
		return nil, nil, &inputError{fmt.Sprintf("server %q asked %d questions at once, more than the %d mcptray takes; the call was stopped", c.server, len(r.InputRequests), maxInputQuestions)}
	}
	ids := make([]string, 0, len(r.InputRequests))
	for id, q := range r.InputRequests {
		if q == nil {
			return nil, nil, &inputError{fmt.Sprintf("server %q asked for input %q with no request", c.server, id)}
		}
		switch q.Method {
		case "elicitation/create", "sampling/createMessage", "roots/list":
		default:
			return nil, nil, &inputError{fmt.Sprintf("server %q asked for input of an unknown kind %q (input %q); the call was stopped", c.server, q.Method, id)}
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if relay := g.relayRound(c, result, r.InputRequests); relay != nil { // gateway_input_relay.go
		return nil, nil, relay
	}
	out := make(map[string]json.RawMessage, len(ids))
	for _, id := range ids {
		q := r.InputRequests[id]
		ans, err := g.answerOne(ctx, c, q.Method, q.Params)
		if err != nil {
			return nil, nil, err
		}
		out[id] = ans
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, nil, err
	}
	if !st.OK() {
		return b, nil, nil
	}
	return b, bytes.Clone(st.Of(result)), nil
}

// answerOne answers one question as the request of the same method,
// sent by the server the older way, would be answered.
func (g *Gateway) answerOne(ctx context.Context, c *call, method string, params json.RawMessage) (json.RawMessage, error) {
	var res any
	switch method {
	case "elicitation/create":
		var ep sdk.ElicitParams
		if err := json.Unmarshal(params, &ep); err != nil || len(params) == 0 {
			return nil, &inputError{fmt.Sprintf("server %q asked for input with an elicitation mcptray cannot read", c.server)}
		}
		var raw struct {
			Schema json.RawMessage `json:"requestedSchema"`
		}
		json.Unmarshal(params, &raw)
		r, err := g.elicit(ctx, c.server, c.sess, &ep, raw.Schema)
		if err != nil {
			return nil, err
		}
		res = r
	case "sampling/createMessage":
		var cp sdk.CreateMessageParams
		if err := json.Unmarshal(params, &cp); err != nil {
			return nil, &inputError{fmt.Sprintf("server %q asked for input with a sampling request mcptray cannot read", c.server)}
		}
		r, err := g.createMessage(ctx, c.server, c.sess, &cp)
		if err != nil {
			return nil, err
		}
		res = r
	case "roots/list":
		res = &sdk.ListRootsResult{Roots: []*sdk.Root{}} // mcptray serves no roots
	}
	return json.Marshal(res)
}

// retryLine is the request sent (a tools/call line) with inputResponses
// and requestState set: added to its params, or in place of those it has.
// A nil state sets none (a requestState the request has is taken out).
func retryLine(sent, responses, state []byte) ([]byte, error) {
	p, err := wire.PeekMessage(sent)
	if err != nil || !p.Params.OK() {
		return nil, &inputError{"the call to retry is unreadable"}
	}
	params := p.Params.Of(sent)
	var edits []wire.Edit
	var add []byte
	for _, kv := range [][2][]byte{{[]byte("inputResponses"), responses}, {[]byte("requestState"), state}} {
		if v := wire.Field(params, string(kv[0])); v.OK() {
			v = v.Within(p.Params)
			repl := kv[1]
			if repl == nil {
				repl = []byte("null") // as good as none to a server, and no member to cut
			}
			edits = append(edits, wire.Edit{Start: v.Start, End: v.End, Repl: repl})
			continue
		}
		if kv[1] == nil {
			continue
		}
		add = append(add, '"')
		add = append(add, kv[0]...)
		add = append(add, `":`...)
		add = append(add, kv[1]...)
		add = append(add, ',')
	}
	if len(add) > 0 {
		if isEmptyObject(params) {
			add = add[:len(add)-1] // no member follows
		}
		edits = append(edits, wire.Edit{Start: p.Params.Start + 1, End: p.Params.Start + 1, Repl: add})
	}
	sortEdits(edits)
	return wire.Splice(bytes.TrimSuffix(sent, []byte("\n")), edits...), nil
}

// fastInput runs the input loop of a fast-path call whose reply (taken
// from the call table by rawReply) asked for input: on a goroutine of its
// own, since the reply came on the server's stdout tap. The call is back
// in the table while its questions wait (so that an elicitation finds it,
// pauses its deadline and names its tool), and its next round goes out
// under the same gateway id.
func (g *Gateway) fastInput(c *call, reply []byte) {
	ctx, cancel := context.WithCancel(c.sess.Context())
	defer cancel()
	stop := context.AfterFunc(c.up.lifeContext(), cancel)
	defer stop()
	c.stop = cancel // before add: dropUpstream and fastCancel read it from the table
	g.calls.add(c)
	c.dl.Restart(g.timeout(), func() { g.expire(c) })
	next, err := g.nextRound(ctx, c, c.sent, reply)
	if err == nil && next == nil {
		err = &inputError{"the reply was not an input_required result"} // rawReply checked: not reached
	}
	// Out of the table again while its next line is set, so that the
	// stdout tap, which reads it with the reply, sees it written.
	if g.calls.take(c.n) == nil {
		return // cancelled, timed out or ended meanwhile: answered by whoever took it
	}
	var relay *relayed
	if errors.As(err, &relay) { // the assistant answers the round (gateway_input_relay.go)
		c.dl.Stop()
		line := make([]byte, 0, len(relay.result)+64)
		line = append(line, `{"jsonrpc":"2.0","id":`...)
		line = wire.AppendGWID(line, c.n)
		line = append(line, `,"result":`...)
		line = append(line, relay.result...)
		line = append(line, '}')
		if p, perr := wire.PeekMessage(line); perr == nil {
			c.finish(upReply(c, line, &p))
			return
		}
		err = &inputError{"the relayed input_required is unreadable"}
	}
	if err != nil {
		c.dl.Stop()
		code, text := int64(codeInternal), err.Error()
		if we, ok := err.(*jsonrpc.Error); ok {
			code, text = we.Code, we.Message
		}
		if ctx.Err() != nil {
			text = fmt.Sprintf("server %q asked for input, and the question ended unanswered", c.server)
		}
		c.finish(wire.ErrorLine(c.upID, code, c.sess.RedactText(text)))
		g.recordCall(c, OutcomeError)
		return
	}
	c.sent = next
	g.calls.add(c)
	end, _, err := c.sess.WriteCall(c.n, next)
	if err != nil {
		if g.calls.take(c.n) != nil {
			c.dl.Stop()
			c.finish(wire.ErrorLine(c.upID, codeInternal, unsentText(c.server, err)))
			g.recordCall(c, OutcomeError)
		}
		return
	}
	c.stdinEnd.Store(end)
}

// inputRPCError is the slow path's error for a round that failed.
func inputRPCError(sess *downstream.Session, err error) error {
	if _, ok := err.(*jsonrpc.Error); ok {
		return err
	}
	return &jsonrpc.Error{Code: codeInternal, Message: sess.RedactText(err.Error())}
}
