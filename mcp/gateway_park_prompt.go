package mcp

import (
	"context"
	"encoding/json"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The park for prompts/get (gateway_park.go): the SDK's client gets the
// prompt on a goroutine of its own, whose context outlives the
// assistant's request; the call is in the call table meanwhile (named
// "prompt NAME", with no gateway id on the wire), so that the server's
// questions find it. A round ends the assistant's request with a
// GetPromptResult carrying the inputRequests and the sealed
// requestState; the retry finds the parked call and waits for the same
// goroutine's answer.

// promptAnswer is the SDK client's answer to a parked prompts/get.
type promptAnswer struct {
	res *sdk.GetPromptResult
	err error
}

// promptParked serves prompts/get (p, with the prompt's name on the
// server) through the park when the request is on 2026-07-28 and its
// server a stdio one on an older revision; ok false otherwise.
func (g *Gateway) promptParked(ctx context.Context, server string, sess *downstream.Session, req *sdk.GetPromptRequest, p *sdk.GetPromptParams) (res *sdk.GetPromptResult, ok bool, err error) {
	if !sess.Stdio() || sess.NewWire() || !requestIsNew(p.Meta) {
		return nil, false, nil
	}
	ss, _ := req.GetSession().(*sdk.ServerSession)
	g.mu.Lock()
	up := g.upstreams[ss]
	g.mu.Unlock()
	if up == nil {
		return nil, false, nil
	}
	tool := "prompt " + p.Name
	if p.RequestState != "" {
		n, _, err := g.seal.openPark(p.RequestState, server, tool)
		if err != nil {
			return nil, true, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "prompt " + p.Name + " on server " + server + ": " + err.Error()}
		}
		pk, qs, err := g.resumeParked(n, server, tool)
		if err != nil {
			return nil, true, err
		}
		c := pk.c
		c.up, c.ctx = up, ctx
		c.round = make(chan parkRound, 1)
		g.calls.add(c)
		g.parkMu.Lock()
		if len(pk.pending) > 0 {
			g.settleLocked(pk)
		}
		g.parkMu.Unlock()
		responses, _ := json.Marshal(p.InputResponses)
		answerParked(qs, responses)
		return g.waitPrompt(ctx, c)
	}
	c := &call{n: g.nextID.Add(1), up: up, server: server, tool: tool, sess: sess, ctx: ctx, newWire: true,
		round: make(chan parkRound, 1), prompt: make(chan promptAnswer, 1)}
	c.upCaps, _ = json.Marshal(p.Meta[metaClientCaps])
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = cancel
	g.calls.add(c)
	pp := *p
	pp.InputResponses, pp.RequestState = nil, ""
	go func() {
		cctx, stop := sess.CallContext(pctx)
		defer stop()
		res, err := sess.Client().GetPrompt(cctx, &pp)
		c.prompt <- promptAnswer{res, err}
	}()
	return g.waitPrompt(ctx, c)
}

// waitPrompt waits for a parked prompts/get's answer or its next round.
func (g *Gateway) waitPrompt(ctx context.Context, c *call) (*sdk.GetPromptResult, bool, error) {
	done := func(a promptAnswer) (*sdk.GetPromptResult, bool, error) {
		g.calls.take(c.n)
		g.dropParkOf(c)
		c.stop()
		res, err := downstream.RedactedAnswer(c.sess, a.res, a.err)
		return res, true, err
	}
	round := func(r parkRound) (*sdk.GetPromptResult, bool, error) {
		if r.err != nil {
			return nil, true, r.err
		}
		var res sdk.GetPromptResult
		if err := json.Unmarshal(r.result, &res); err != nil {
			return nil, true, &jsonrpc.Error{Code: codeInternal, Message: "the parked round is unreadable"}
		}
		return &res, true, nil
	}
	select {
	case a := <-c.prompt:
		return done(a)
	case r := <-c.round:
		return round(r)
	case <-ctx.Done():
		if g.calls.take(c.n) == nil {
			select {
			case a := <-c.prompt:
				return done(a)
			case r := <-c.round:
				return round(r)
			}
		}
		g.dropParkOf(c)
		c.stop()
		return nil, true, ctx.Err()
	}
}

// dropParkOf drops c's park, if it has one.
func (g *Gateway) dropParkOf(c *call) {
	g.parkMu.Lock()
	p := g.parks[c.n]
	g.parkMu.Unlock()
	if p != nil {
		g.dropPark(p)
	}
}
