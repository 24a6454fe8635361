package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The park: a stdio server whose session speaks an older revision asks
// its questions during a call as requests (elicitation/create,
// sampling/createMessage, roots/list; go-sdk's servers turn a handler's
// input_required into such requests, several at once), which an
// assistant on 2026-07-28 can only be asked in an input_required result.
// So, during a 2026-07-28 call (tools/call, on the fast or the slow
// path), a question the assistant declared the capability for (its
// request's _meta) and that is no secret, consent or sign-in (those go
// to the inbox, as elicitation does: relayable) is parked: the server's
// request stays unanswered, the server's call stays open, and the
// assistant's request ends with resultType "input_required", the
// question(s) as inputRequests ("q1", "q2", … in the order they came)
// and a requestState sealed with the gateway's key (gateway_seal.go)
// that names the parked call. The assistant's retry (same tool, with
// inputResponses and that requestState; forward, the slow path) finds
// the parked call, answers the server's requests with the responses (a
// question left unanswered is declined: elicitation "cancel", the others
// an error), and waits for what comes next: the final result, or the
// next question, which ends the retry with another round.
//
// Gathering: the questions go-sdk sends at once come one after the other
// on the server's stdout; a round is relayed when no new question has
// come for parkSettle after the last. A question that comes later (after
// its round was relayed) waits for the retry and makes the next round.
//
// Bounds: maxInputRounds rounds per call; a parked call the assistant
// does not come back for within parkLife is cancelled toward the server
// (its requests answered with errors, then notifications/cancelled); a
// requestState that is changed, foreign, expired, of another call, or
// whose parked call ended or was already resumed (a replay) is refused.
// A question the assistant did not declare: elicitation goes to the inbox
// as before; sampling fails the call with -32021
// MissingRequiredClientCapability (HTTP 400); roots/list gets mcptray's
// empty list. Assistants on older revisions are not concerned: they get
// the server's requests relayed (gateway_elicit.go).

// parkSettle is how long a round waits for one more question (go-sdk's
// questions of one round come microseconds apart; 200 ms leaves room for
// a loaded machine and is nothing beside a person's or a model's answer);
// parkLife how long a parked call waits for the assistant's retry.
const (
	parkSettle      = 200 * time.Millisecond
	defaultParkLife = 5 * time.Minute
)

// park is one parked call: a call to a stdio server that asked questions
// of a 2026-07-28 assistant. Its fields are guarded by Gateway.parkMu.
type park struct {
	c       *call
	pending []*parkQ // asked, not yet relayed
	relayed []*parkQ // relayed in the last round, waiting for the retry
	waiting bool     // relayed: the call is out of the table, no assistant request is attached
	settle  *time.Timer
	expiry  *time.Timer
	ready   chan struct{} // closed once the round is out and c is free for the retry
	rounds  int
	seq     int
}

// parkQ is one question of a server's, parked.
type parkQ struct {
	key    string
	method string
	params json.RawMessage // as the assistant gets them (redacted)
	answer chan parkAnswer // one answer, buffered
}

type parkAnswer struct {
	res json.RawMessage
	err error
}

// parkRound is what ends a slow-path call's wait when its questions
// were gathered: the input_required result, or an error.
type parkRound struct {
	result []byte
	err    error
}

// parkLife is how long a parked call waits for its retry.
func (g *Gateway) parkLife() time.Duration {
	if d := time.Duration(g.parkLifeNs.Load()); d > 0 {
		return d
	}
	return defaultParkLife
}

// parkFor is the call of sess a question of method with params (raw)
// is parked for, or nil when the question is answered as before. A call
// already parked (waiting for its retry) takes a late question too.
func (g *Gateway) parkFor(s *downstream.Session, method string, params []byte) *call {
	if s.NewWire() || g.elicitLocal.Load() {
		return nil
	}
	c := g.calls.latestFor(s)
	if c == nil {
		g.parkMu.Lock()
		var latest *park
		for _, p := range g.parks {
			if p.c.sess == s && p.waiting && (latest == nil || p.c.n > latest.c.n) {
				latest = p
			}
		}
		g.parkMu.Unlock()
		if latest == nil {
			return nil
		}
		c = latest.c
	}
	if !c.newWire || c.task || c.method != "" || (c.upID == nil && c.round == nil) {
		return nil
	}
	if !relayable(c.upCaps, &inputQuestion{Method: method, Params: params}) {
		return nil
	}
	return c
}

// askParked parks a question of c's server and waits for its answer: the
// assistant's response (raw JSON) or an error. ctx is the server's
// request's: it ends when the server withdraws it or its session ends.
func (g *Gateway) askParked(ctx context.Context, c *call, method string, params []byte) (json.RawMessage, error) {
	q := &parkQ{method: method, params: c.sess.RedactJSON(params), answer: make(chan parkAnswer, 1)}
	if len(q.params) == 0 {
		q.params = json.RawMessage("{}")
	}
	g.parkMu.Lock()
	p := g.parks[c.n]
	if p == nil {
		p = &park{c: c}
		g.parks[c.n] = p
	}
	p.seq++
	q.key = "q" + strconv.Itoa(p.seq)
	p.pending = append(p.pending, q)
	if !p.waiting {
		g.settleLocked(p)
	}
	g.parkMu.Unlock()
	g.log.Info("a server's question parked for the assistant", "server", c.server, "tool", c.tool, "method", method)
	select {
	case a := <-q.answer:
		return a.res, a.err
	case <-ctx.Done():
		g.parkMu.Lock()
		p.pending = slices.DeleteFunc(p.pending, func(x *parkQ) bool { return x == q })
		p.relayed = slices.DeleteFunc(p.relayed, func(x *parkQ) bool { return x == q })
		g.parkMu.Unlock()
		return nil, ctx.Err()
	}
}

// settleLocked (re)starts p's gathering: its round goes out parkSettle
// after the last question.
func (g *Gateway) settleLocked(p *park) {
	if p.settle != nil {
		p.settle.Reset(parkSettle)
		return
	}
	p.settle = time.AfterFunc(parkSettle, func() { g.relayPark(p) })
}

// relayPark ends the assistant's request of p's call with the questions
// gathered, as input_required.
func (g *Gateway) relayPark(p *park) {
	g.parkMu.Lock()
	p.settle = nil
	qs := p.pending
	p.pending = nil
	if len(qs) == 0 || p.waiting {
		p.pending = qs
		g.parkMu.Unlock()
		return
	}
	c := g.calls.take(p.c.n)
	if c == nil { // answered, cancelled or timed out meanwhile
		delete(g.parks, p.c.n)
		g.parkMu.Unlock()
		declineAll(qs, "the call ended")
		return
	}
	p.rounds++
	if p.rounds > maxInputRounds {
		delete(g.parks, c.n)
		g.parkMu.Unlock()
		declineAll(qs, "too many rounds")
		g.cancelDownstream(c.sess, c.n, "too many rounds of input")
		g.endParked(c, nil, &jsonrpc.Error{Code: codeInternal, Message: fmt.Sprintf(
			"server %q asked for input more than %d times during one call of %q; mcptray stopped the call", c.server, maxInputRounds, c.tool)})
		return
	}
	p.relayed = qs
	p.waiting = true
	p.expiry = time.AfterFunc(g.parkLife(), func() { g.expirePark(p) })
	ready := make(chan struct{})
	p.ready = ready
	g.parkMu.Unlock()
	defer close(ready) // the retry may come as soon as the round is out: it waits for endParked to let go of c
	c.dl.Stop()

	out := make([]byte, 0, 256)
	out = append(out, `{"resultType":"input_required","inputRequests":{`...)
	for i, q := range qs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, wire.QuoteJSON(q.key)...)
		out = append(out, `:{"method":`...)
		out = append(out, wire.QuoteJSON(q.method)...)
		out = append(out, `,"params":`...)
		out = append(out, q.params...)
		out = append(out, '}')
	}
	out = append(out, `},"requestState":`...)
	out = append(out, wire.QuoteJSON(g.seal.sealPark(c.server, c.tool, c.n))...)
	out = append(out, '}')
	g.log.Info("input_required relayed to the assistant, the server's call parked", "server", c.server, "tool", c.tool, "questions", len(qs))
	g.endParked(c, out, nil)
}

// endParked answers the assistant's request attached to c, out of the
// table: with result, or with err.
func (g *Gateway) endParked(c *call, result []byte, err error) {
	if c.round != nil { // the slow path: forward waits
		c.round <- parkRound{result: result, err: err}
		return
	}
	var line []byte
	if err != nil {
		we, ok := err.(*jsonrpc.Error)
		if !ok {
			we = &jsonrpc.Error{Code: codeInternal, Message: err.Error()}
		}
		line = errorLineData(c.upID, we)
		if c.hw != nil {
			if p, perr := wire.PeekMessage(line); perr == nil {
				c.hw.status = errorStatus(line, &p)
			}
		}
		c.finish(c.sess.RedactJSON(line))
		g.recordCall(c, OutcomeError)
		return
	}
	line = make([]byte, 0, len(result)+64)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = wire.AppendGWID(line, c.n)
	line = append(line, `,"result":`...)
	line = append(line, result...)
	line = append(line, '}')
	p, perr := wire.PeekMessage(line)
	if perr != nil {
		c.finish(wire.ErrorLine(c.upID, codeInternal, "the parked round is unreadable"))
		return
	}
	c.finish(upReply(c, line, &p))
}

// errorLineData is an error line for id with we's code, message and data.
func errorLineData(id []byte, we *jsonrpc.Error) []byte {
	if len(we.Data) == 0 {
		return wire.ErrorLine(id, we.Code, we.Message)
	}
	b, err := json.Marshal(we)
	if err != nil {
		return wire.ErrorLine(id, we.Code, we.Message)
	}
	line := make([]byte, 0, len(b)+len(id)+40)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, `,"error":`...)
	line = append(line, b...)
	return append(line, "}\n"...)
}

// declineAll answers parked questions that will get no response.
func declineAll(qs []*parkQ, why string) {
	for _, q := range qs {
		q.answer <- declined(q.method, why)
	}
}

// declined is the answer to a question the assistant left unanswered.
func declined(method, why string) parkAnswer {
	if method == "elicitation/create" {
		return parkAnswer{res: json.RawMessage(`{"action":"cancel"}`)}
	}
	return parkAnswer{err: &jsonrpc.Error{Code: codeInternal, Message: "the assistant gave no answer: " + why}}
}

// expirePark cancels a parked call whose assistant did not come back.
func (g *Gateway) expirePark(p *park) {
	g.parkMu.Lock()
	if !p.waiting || g.parks[p.c.n] != p {
		g.parkMu.Unlock()
		return
	}
	delete(g.parks, p.c.n)
	qs := append(p.relayed, p.pending...)
	p.relayed, p.pending = nil, nil
	if p.settle != nil {
		p.settle.Stop()
	}
	g.parkMu.Unlock()
	c := p.c
	g.log.Info("a parked call cancelled: the assistant did not come back", "server", c.server, "tool", c.tool, "after", g.parkLife())
	declineAll(qs, "the assistant did not come back")
	if c.sdkDone != nil || c.http != nil { // the SDK's client made the request: it cancels it
		c.stop()
		return
	}
	g.cancelDownstream(c.sess, c.n, "the assistant did not answer in time")
}

// resumeParked takes the parked call n for its retry: the questions of
// its last round, or an error the assistant reads.
func (g *Gateway) resumeParked(n uint64, server, tool string) (*park, []*parkQ, error) {
	g.parkMu.Lock()
	p := g.parks[n]
	if p == nil || !p.waiting {
		g.parkMu.Unlock()
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"server %q, tool %q: the call this requestState names has ended (it was resumed already, or cancelled after %s without a retry): call the tool again without it", server, tool, g.parkLife())}
	}
	p.waiting = false
	p.expiry.Stop()
	qs := p.relayed
	p.relayed = nil
	ready := p.ready
	g.parkMu.Unlock()
	<-ready
	return p, qs, nil
}

// answerParked gives the server the assistant's responses to qs.
func answerParked(qs []*parkQ, responses []byte) {
	var rs map[string]json.RawMessage
	json.Unmarshal(responses, &rs)
	for _, q := range qs {
		if r, ok := rs[q.key]; ok && len(r) > 0 && string(r) != "null" {
			q.answer <- parkAnswer{res: r}
			continue
		}
		q.answer <- declined(q.method, "no response to "+q.key)
	}
}
