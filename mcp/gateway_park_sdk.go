package mcp

import (
	"context"
	"encoding/json"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The park for prompts/get and resources/read (gateway_park.go): the
// SDK's client makes the request on a goroutine of its own, whose
// context outlives the assistant's request; the call is in the call
// table meanwhile (named "prompt NAME" or "resource URI", with no gateway
// id on the wire), so that the server's questions find it. A round ends
// the assistant's request with a result carrying the inputRequests and
// the sealed requestState; the retry finds the parked call and waits for
// the same goroutine's answer.

// sdkAnswer is the SDK client's answer to a parked prompts/get or
// resources/read.
type sdkAnswer struct {
	res any // *sdk.GetPromptResult or *sdk.ReadResourceResult
	err error
}

// parkedRequest is a prompts/get or resources/read to park: what names
// it, the assistant's retry fields, and the SDK client's request.
type parkedRequest struct {
	server, name string // name: "prompt NAME", "resource URI"
	sess         *downstream.Session
	ss           sdk.Session
	meta         sdk.Meta
	state        string
	responses    sdk.InputResponseMap
	do           func(context.Context) (any, error)
}

// promptParked serves prompts/get (p, with the prompt's name on the
// server) through the park; ok false when it does not apply.
func (g *Gateway) promptParked(ctx context.Context, server string, sess *downstream.Session, req *sdk.GetPromptRequest, p *sdk.GetPromptParams) (*sdk.GetPromptResult, bool, error) {
	pp := *p
	pp.InputResponses, pp.RequestState = nil, ""
	res, ok, err := parkSDK[sdk.GetPromptResult](ctx, g, parkedRequest{server: server, name: "prompt " + p.Name, sess: sess, ss: req.GetSession(),
		meta: p.Meta, state: p.RequestState, responses: p.InputResponses,
		do: func(ctx context.Context) (any, error) { return sess.Client().GetPrompt(ctx, &pp) }})
	return res, ok, err
}

// readParked serves resources/read through the park; ok false when it
// does not apply.
func (g *Gateway) readParked(ctx context.Context, server string, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, bool, error) {
	sess := g.session(server)
	if sess == nil || req == nil || req.Params == nil {
		return nil, false, nil
	}
	p := *req.Params
	p.InputResponses, p.RequestState = nil, ""
	return parkSDK[sdk.ReadResourceResult](ctx, g, parkedRequest{server: server, name: "resource " + p.URI, sess: sess, ss: req.GetSession(),
		meta: p.Meta, state: req.Params.RequestState, responses: req.Params.InputResponses,
		do: func(ctx context.Context) (any, error) { return sess.Client().ReadResource(ctx, &p) }})
}

// parkSDK runs r through the park when the request is on 2026-07-28 and
// its server's session on an older revision; ok false otherwise.
func parkSDK[T any](ctx context.Context, g *Gateway, r parkedRequest) (*T, bool, error) {
	if r.sess.NewWire() || !requestIsNew(r.meta) {
		return nil, false, nil
	}
	ss, _ := r.ss.(*sdk.ServerSession)
	g.mu.Lock()
	up := g.upstreams[ss]
	g.mu.Unlock()
	if up == nil {
		return nil, false, nil
	}
	if r.state != "" {
		n, _, err := g.seal.openPark(r.state, r.server, r.name)
		if err != nil {
			return nil, true, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: r.name + " on server " + r.server + ": " + err.Error()}
		}
		pk, qs, err := g.resumeParked(n, r.server, r.name)
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
		responses, _ := json.Marshal(r.responses)
		answerParked(qs, responses)
		return waitSDK[T](ctx, g, c)
	}
	c := &call{n: g.nextID.Add(1), up: up, server: r.server, tool: r.name, sess: r.sess, ctx: ctx, newWire: true,
		round: make(chan parkRound, 1), sdkDone: make(chan sdkAnswer, 1)}
	c.upCaps, _ = json.Marshal(r.meta[metaClientCaps])
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = cancel
	g.calls.add(c)
	go func() {
		cctx, stop := r.sess.CallContext(pctx)
		defer stop()
		res, err := r.do(cctx)
		c.sdkDone <- sdkAnswer{res, err}
	}()
	return waitSDK[T](ctx, g, c)
}

// waitSDK waits for a parked request's answer or its next round.
func waitSDK[T any](ctx context.Context, g *Gateway, c *call) (*T, bool, error) {
	done := func(a sdkAnswer) (*T, bool, error) {
		g.dropParkOf(c)
		c.stop()
		res, _ := a.res.(*T)
		res, err := downstream.RedactedAnswer(c.sess, res, a.err)
		return res, true, err
	}
	round := func(r parkRound) (*T, bool, error) {
		if r.err != nil {
			return nil, true, r.err
		}
		res := new(T)
		if err := json.Unmarshal(r.result, res); err != nil {
			return nil, true, &jsonrpc.Error{Code: codeInternal, Message: "the parked round is unreadable"}
		}
		return res, true, nil
	}
	select {
	case a := <-c.sdkDone:
		if g.calls.take(c.n) == nil { // a round, or a missing capability, took the call first: its answer comes
			return round(<-c.round)
		}
		return done(a)
	case r := <-c.round:
		return round(r)
	case <-ctx.Done():
		if g.calls.take(c.n) == nil { // a round took it first: its answer comes
			return round(<-c.round)
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
