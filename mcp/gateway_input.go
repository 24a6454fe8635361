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
// slow path (forward's loop, nextRound). An HTTP server's calls go
// through the SDK's client, whose own multi-round-trip middleware does
// the same through the session's Router (Elicit, CreateMessage).

// maxInputRounds bounds the input_required rounds of one call, and
// maxInputQuestions the questions of one round (each may be one more
// request in the person's inbox).
const (
	maxInputRounds    = 8
	maxInputQuestions = 16
)

// completeTail is how go-sdk ends a new-wire server's complete result,
// and metaHead how it begins one that carries _meta (the server's
// serverInfo, on every result): older assistants know neither, and get
// the result as an older server sends it (oldWireEdits).
var (
	completeTail = []byte(`,"resultType":"complete"}`)
	metaHead     = []byte(`{"_meta":{`)
)

const serverInfoKey = sdk.MetaKeyServerInfo

// isInputRequired reports whether a new-wire server's result asks for
// input. The cheap test first: most results never name it.
func isInputRequired(result []byte) bool {
	if !bytes.Contains(result, []byte(`input_required`)) {
		return false
	}
	return wire.Field(result, "resultType").Is(result, `"input_required"`)
}

// upReply is a stdio server's reply line as it goes to the call's
// assistant: replyEdits' (its id; a complete result on the new wire), and
// for an older assistant from a new-wire server the result as an older
// server sends it (oldWireEdits).
func upReply(c *call, line []byte, p *wire.Peek) []byte {
	edits := c.replyEdits(line, p)
	if !c.newWire && c.sess.NewWire() && p.Result.OK() {
		edits = append(edits, oldWireEdits(line, p.Result)...)
		sortEdits(edits)
	}
	return wire.Splice(line, edits...)
}

// oldWireEdits take out of a new-wire server's result (the span res of
// line) what an older server would not send: resultType "complete" at
// its end, and the server's serverInfo at the start of its _meta (with
// the _meta when nothing else is in it). Where go-sdk writes them, in
// constant time; elsewhere they stay (extra members an older client
// ignores).
func oldWireEdits(line []byte, res wire.Span) []wire.Edit {
	r := res.Of(line)
	var edits []wire.Edit
	if bytes.HasPrefix(r, metaHead) {
		ms := res.Start + len(metaHead) - 1 // the _meta object
		me := wire.SkipValue(line, ms)
		if me > 0 && me < res.End {
			var members []wire.Span // key's opening quote to value's end
			var infoAt = -1
			obj := line[ms:me]
			wire.ScanObject(obj, func(k []byte, v wire.Span) bool {
				ks := ms + cap(obj) - cap(k) - 1 // k is obj's subslice: its quote is one before
				if wire.KeyIs(k, serverInfoKey) {
					infoAt = len(members)
				}
				members = append(members, wire.Span{Start: ks, End: ms + v.End})
				return true
			})
			switch {
			case infoAt < 0:
			case len(members) == 1 && line[me] == ',': // _meta held serverInfo alone
				edits = append(edits, wire.Edit{Start: res.Start + 1, End: me + 1})
			case len(members) == 1:
				edits = append(edits, wire.Edit{Start: res.Start + 1, End: me})
			case infoAt == 0:
				edits = append(edits, wire.Edit{Start: members[0].Start, End: members[1].Start})
			default:
				edits = append(edits, wire.Edit{Start: members[infoAt-1].End, End: members[infoAt].End})
			}
		}
	}
	if bytes.HasSuffix(r, completeTail) {
		edits = append(edits, wire.Edit{Start: res.End - len(completeTail), End: res.End - 1})
	}
	return edits
}

// wireMetaEdits are the edits that give a call to a new-wire server the
// _meta members every request to it carries (downstream.WireMeta):
// params is the span of the call's params in the line, metaSp the span
// of its _meta within them (not OK: none). A member the request has
// already (an assistant on the same revision sends its own) gets mcptray's
// value; the others are added.
func wireMetaEdits(line []byte, params, metaSp wire.Span, m *downstream.WireMeta) []wire.Edit {
	if !metaSp.OK() {
		ins := make([]byte, 0, len(m.Members)+12)
		ins = append(ins, `"_meta":{`...)
		ins = append(ins, m.Members...)
		ins = append(ins, "},"...)
		return []wire.Edit{{Start: params.Start + 1, End: params.Start + 1, Repl: ins}}
	}
	meta := metaSp.Within(params)
	mb := meta.Of(line)
	var edits []wire.Edit
	var missing []byte
	for i, key := range m.Keys {
		name, _ := wire.RawString(key)
		if v := wire.Field(mb, name); v.OK() {
			v = v.Within(meta)
			edits = append(edits, wire.Edit{Start: v.Start, End: v.End, Repl: m.Values[i]})
			continue
		}
		if len(missing) > 0 {
			missing = append(missing, ',')
		}
		missing = append(missing, key...)
		missing = append(missing, ':')
		missing = append(missing, m.Values[i]...)
	}
	if len(missing) > 0 {
		if !isEmptyObject(mb) {
			missing = append(missing, ',')
		}
		edits = append(edits, wire.Edit{Start: meta.Start + 1, End: meta.Start + 1, Repl: missing})
	}
	sortEdits(edits)
	return edits
}

func isEmptyObject(b []byte) bool {
	empty := true
	wire.ScanObject(b, func([]byte, wire.Span) bool { empty = false; return false })
	return empty
}

// withWireMeta is line (a request to sess) with the _meta of a new-wire
// server spliced in; line itself when sess is older or line unreadable.
func withWireMeta(sess *downstream.Session, line []byte) []byte {
	m := sess.WireMeta()
	if m == nil {
		return line
	}
	p, err := wire.PeekMessage(line)
	if err != nil || !p.Params.OK() {
		return line
	}
	meta := wire.Field(p.Params.Of(line), "_meta")
	return wire.Splice(bytes.TrimSuffix(line, []byte("\n")), wireMetaEdits(line, p.Params, meta, m)...)
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

// oldWireResult is a result of sess as an older server sends it
// (oldWireEdits); result itself for an older server.
func oldWireResult(sess *downstream.Session, result []byte) []byte {
	if !sess.NewWire() {
		return result
	}
	edits := oldWireEdits(result, wire.Span{Start: 0, End: len(result)})
	if len(edits) == 0 {
		return result
	}
	sortEdits(edits)
	out := wire.Splice(result, edits...)
	return out[:len(out)-1] // Splice ends a line
}

// finalResult is a stdio server's final reply as the slow path's answer,
// redacted; a new-wire server's as an older server sends it
// (oldWireEdits).
func finalResult(sess *downstream.Session, reply []byte) (sdk.Result, error) {
	if sess.NewWire() {
		if p, err := wire.PeekMessage(reply); err == nil && p.Result.OK() {
			if edits := oldWireEdits(reply, p.Result); len(edits) > 0 {
				sortEdits(edits)
				reply = wire.Splice(bytes.TrimSuffix(reply, []byte("\n")), edits...)
			}
		}
	}
	return replyResult(sess.RedactJSON(reply))
}

// inputRPCError is the slow path's error for a round that failed.
func inputRPCError(sess *downstream.Session, err error) error {
	if _, ok := err.(*jsonrpc.Error); ok {
		return err
	}
	return &jsonrpc.Error{Code: codeInternal, Message: sess.RedactText(err.Error())}
}

// callHTTP is an HTTP server's tools/call through the SDK's client, with
// the input loop (the SDK's own is off for HTTP sessions:
// downstream.Session.newHTTPClient): each input_required round is
// answered as a stdio server's is (answerInput; relayed to a 2026-07-28
// assistant that can answer it) and the call retried with the answers and
// the requestState as it came. A retry of a relayed round (ctx: withRetry)
// goes out with the server's own requestState.
func (g *Gateway) callHTTP(ctx context.Context, c *call, p *sdk.CallToolParams) (*sdk.CallToolResult, error) {
	if _, ok := ctx.Value(retryKey{}).(retryIn); ok {
		line, err := g.retryOf(ctx, c, []byte(`{"params":{}}`))
		if err != nil {
			return nil, err
		}
		var rp struct {
			Params struct {
				InputResponses sdk.InputResponseMap `json:"inputResponses"`
				RequestState   string               `json:"requestState"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &rp); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("server %q, tool %q: inputResponses: %v", c.server, c.tool, err)}
		}
		p.InputResponses, p.RequestState = rp.Params.InputResponses, rp.Params.RequestState
	}
	for {
		res, err := c.sess.Client().CallTool(ctx, p)
		if err != nil || !res.NeedsInput() {
			return res, err
		}
		c.rounds++
		if c.rounds > maxInputRounds {
			return nil, inputRPCError(c.sess, &inputError{fmt.Sprintf("server %q asked for input more than %d times during one call of %q; mcptray stopped the call", c.server, maxInputRounds, c.tool)})
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		responses, state, err := g.answerInput(ctx, c, b)
		var relay *relayed
		switch {
		case errors.As(err, &relay):
			return nil, relay
		case err != nil:
			return nil, inputRPCError(c.sess, err)
		}
		var irm sdk.InputResponseMap
		if err := json.Unmarshal(responses, &irm); err != nil {
			return nil, inputRPCError(c.sess, err)
		}
		cp := *p
		cp.InputResponses, cp.RequestState = irm, ""
		if state != nil {
			json.Unmarshal(state, &cp.RequestState)
		}
		p = &cp
	}
}
