package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The park's other half (gateway_park.go): the retry that resumes a
// parked call, the server's requests that the stdout tap parks, and the
// call that needs a capability its assistant did not declare.

// answer is the slow path's answer for a parked round.
func (r parkRound) answer() (sdk.Result, error) {
	if r.err != nil {
		return nil, r.err
	}
	return &rawResult{raw: r.result}, nil
}

// parkedRetry is the parked call a retry's requestState names, with the
// questions its responses answer; nil when the request is no retry of a
// parked call (a requestState that does not open is refused later, by
// retryOf, with the reason).
func (g *Gateway) parkedRetry(ctx context.Context, server, tool string) (*park, []*parkQ, error) {
	r, ok := ctx.Value(retryKey{}).(retryIn)
	if !ok || r.state == "" {
		return nil, nil, nil
	}
	n, _, err := g.seal.openPark(r.state, server, tool)
	if err != nil || n == 0 {
		return nil, nil, nil
	}
	return g.resumeParked(n, server, tool)
}

// resumeCall answers the parked call's questions with the retry's
// responses and waits, as forward does, for what comes next: the final
// result, or another round.
func (g *Gateway) resumeCall(ctx context.Context, up *upstream, p *park, qs []*parkQ, meta sdk.Meta) (sdk.Result, error) {
	c := p.c
	var responses []byte
	if r, ok := ctx.Value(retryKey{}).(retryIn); ok {
		responses = r.responses
	}
	if c.http != nil { // an HTTP server's call: the SDK's client still waits for it
		c.up, c.ctx, c.upID, c.upToken, c.hw = up, ctx, nil, nil, nil
		c.round = make(chan parkRound, 1)
		g.calls.add(c)
		c.dl.Restart(g.timeout(), func() { c.expired.Store(true); c.stop() })
		g.parkMu.Lock()
		if len(p.pending) > 0 {
			g.settleLocked(p)
		}
		g.parkMu.Unlock()
		answerParked(qs, responses)
		return g.waitHTTP(ctx, c)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.up, c.ctx, c.upID, c.upToken, c.hw, c.token = up, ctx, nil, nil, nil, nil
	if tok, ok := meta["progressToken"]; ok {
		c.token = tok
	}
	c.reply = make(chan []byte, 1)
	c.round = make(chan parkRound, 1)
	c.stop = cancel
	var expired atomic.Bool
	g.calls.add(c)
	c.dl.Restart(g.timeout(), func() { expired.Store(true); cancel() })
	defer c.dl.Stop()
	g.parkMu.Lock()
	if len(p.pending) > 0 { // asked after its round went out: the next round
		g.settleLocked(p)
	}
	g.parkMu.Unlock()
	answerParked(qs, responses)

	select {
	case reply := <-c.reply:
		g.dropPark(p)
		if relay := g.oldWireRound(c, reply); relay != nil {
			return &rawResult{raw: relay.result}, nil
		}
		return finalResult(c.sess, reply)
	case r := <-c.round:
		return r.answer()
	case <-ctx.Done():
		if g.calls.take(c.n) == nil {
			select {
			case reply := <-c.reply:
				g.dropPark(p)
				return finalResult(c.sess, reply)
			case r := <-c.round:
				return r.answer()
			}
		}
		g.dropPark(p)
		g.cancelDownstream(c.sess, c.n, "cancelled by the client")
		if expired.Load() {
			return nil, g.timeoutError(c.server, c.tool)
		}
		return nil, ctx.Err()
	case <-c.sess.Done():
		g.calls.take(c.n)
		g.dropPark(p)
		return nil, diedError(c.server, c.sess)
	}
}

// dropPark forgets a parked call that ended, declining the questions
// still pending.
func (g *Gateway) dropPark(p *park) {
	g.parkMu.Lock()
	if g.parks[p.c.n] == p {
		delete(g.parks, p.c.n)
	}
	qs := append(p.pending, p.relayed...)
	p.pending, p.relayed = nil, nil
	if p.settle != nil {
		p.settle.Stop()
		p.settle = nil
	}
	if p.expiry != nil {
		p.expiry.Stop()
	}
	g.parkMu.Unlock()
	declineAll(qs, "the call ended")
}

// oldWireRound is the relay of a reply from a server on an older
// revision that still asks for input: go-sdk's server answers the
// requests it sent for a handler's input_required by calling the
// handler once more, and a handler that asks again (a second round)
// has its result go out as it is — inputRequests and requestState, no
// resultType. To a 2026-07-28 assistant that can answer every question,
// that is a round like a 2026-07-28 server's (relayRound: its
// requestState sealed; the retry goes to the server with the
// responses). Nil otherwise.
func (g *Gateway) oldWireRound(c *call, reply []byte) *relayed {
	if !c.newWire || c.sess.NewWire() || c.upCaps == nil || !bytes.Contains(reply, []byte(`"inputRequests"`)) {
		return nil
	}
	p, err := wire.PeekMessage(reply)
	if err != nil || !p.Result.OK() {
		return nil
	}
	res := p.Result.Of(reply)
	if wire.Field(res, "resultType").OK() {
		return nil
	}
	return g.relayOld(c, res)
}

// relayOld is oldWireRound for the result res itself.
func (g *Gateway) relayOld(c *call, res []byte) *relayed {
	var r struct {
		InputRequests map[string]*inputQuestion `json:"inputRequests"`
	}
	if json.Unmarshal(res, &r) != nil || len(r.InputRequests) == 0 || len(r.InputRequests) > maxInputQuestions {
		return nil
	}
	return g.relayRound(c, res, r.InputRequests)
}

// tapParked takes a stdio server's request of method (roots/list: the
// SDK's client would answer it itself) when it is parked for a
// 2026-07-28 assistant; false leaves it to the SDK.
func (g *Gateway) tapParked(s *downstream.Session, method string, line []byte, p *wire.Peek) bool {
	var params []byte
	if p.Params.OK() {
		params = bytes.Clone(p.Params.Of(line))
	}
	c := g.parkFor(s, method, params)
	if c == nil {
		return false
	}
	id := bytes.Clone(p.ID.Of(line))
	go func() {
		res, err := g.askParked(s.Context(), c, method, params)
		var out []byte
		if err != nil {
			code := int64(codeInternal)
			if we, ok := err.(*jsonrpc.Error); ok {
				code = we.Code
			}
			out = wire.ErrorLine(id, code, err.Error())
		} else {
			out = make([]byte, 0, len(res)+len(id)+40)
			out = append(out, `{"jsonrpc":"2.0","id":`...)
			out = append(out, id...)
			out = append(out, `,"result":`...)
			out = append(out, res...)
			out = append(out, "}\n"...)
		}
		s.WriteLine(out)
	}()
	return true
}

// missingCapability ends a 2026-07-28 call whose server asked what its
// assistant did not declare (cap, e.g. "sampling"), with -32021
// MissingRequiredClientCapability, and cancels it toward the server. It
// returns the error for the server's request.
func (g *Gateway) missingCapability(c *call, capName string) error {
	text := fmt.Sprintf("server %q needs the %s capability for tool %q, which the assistant did not declare", c.server, capName, c.tool)
	if g.calls.take(c.n) != nil {
		c.dl.Stop()
		g.parkMu.Lock()
		p := g.parks[c.n]
		g.parkMu.Unlock()
		if p != nil {
			g.dropPark(p)
		}
		if c.http != nil || c.sdkDone != nil { // the SDK's client made the request: it cancels it
			c.stop()
		} else {
			g.cancelDownstream(c.sess, c.n, "the assistant lacks a capability")
		}
		data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{capName: map[string]any{}}})
		g.endParked(c, nil, &jsonrpc.Error{Code: codeMissingCapability, Message: text, Data: data})
	}
	return &jsonrpc.Error{Code: codeMissingCapability, Message: text}
}

// codeMissingCapability is MissingRequiredClientCapability (2026-07-28).
const codeMissingCapability = -32021

// declares reports whether the assistant's capabilities caps name
// capName.
func declares(caps []byte, capName string) bool {
	v := wire.Field(caps, capName)
	return v.OK() && !v.Is(caps, "null")
}

// elicitParked parks a stdio server's elicitation (p, redacted; rawSchema
// its schema as sent, or nil) when parkFor says so; ok false otherwise.
func (g *Gateway) elicitParked(ctx context.Context, s *downstream.Session, p *sdk.ElicitParams, rawSchema json.RawMessage) (*sdk.ElicitResult, bool, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, false, nil
	}
	if rawSchema != nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) == nil {
			m["requestedSchema"] = rawSchema
			b, _ = json.Marshal(m)
		}
	}
	c := g.parkFor(s, "elicitation/create", b)
	if c == nil {
		return nil, false, nil
	}
	ans, err := g.askParked(ctx, c, "elicitation/create", b)
	if err != nil {
		return nil, true, err
	}
	var res sdk.ElicitResult
	if err := json.Unmarshal(ans, &res); err != nil {
		return nil, true, &jsonrpc.Error{Code: codeInternal, Message: "the assistant's answer to the elicitation is unreadable"}
	}
	return &res, true, nil
}

// sampleParked parks a stdio server's sampling request during a
// 2026-07-28 call c (nil: a parked call's late question), or ends the
// call with -32021 when its assistant did not declare sampling; ok false
// when neither applies.
func (g *Gateway) sampleParked(ctx context.Context, s *downstream.Session, c *call, params *sdk.CreateMessageParams) (*sdk.CreateMessageResult, bool, error) {
	params, err := downstream.RedactValue(s, params)
	if err != nil {
		return nil, true, err
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, false, nil
	}
	pc := g.parkFor(s, "sampling/createMessage", b)
	if pc == nil {
		if c != nil && (c.upID != nil || c.round != nil) && !s.NewWire() && !declares(c.upCaps, "sampling") {
			return nil, true, g.missingCapability(c, "sampling")
		}
		return nil, false, nil
	}
	ans, err := g.askParked(ctx, pc, "sampling/createMessage", b)
	if err != nil {
		return nil, true, err
	}
	var res sdk.CreateMessageResult
	if err := json.Unmarshal(ans, &res); err != nil {
		return nil, true, &jsonrpc.Error{Code: codeInternal, Message: "the assistant's answer to the sampling request is unreadable"}
	}
	return &res, true, nil
}
