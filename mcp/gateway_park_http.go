package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The park for an HTTP server on an older revision (gateway_park.go):
// the SDK's client makes the call on a goroutine of its own, whose
// context outlives the assistant's request (the call's deadline and the
// park's end cancel it); the server's questions come through the SDK
// client's handlers (gateway_elicit.go) and park there. The retry finds
// the parked call and waits for the same goroutine's answer.

// httpAnswer is the SDK client's answer to a parked call.
type httpAnswer struct {
	res *sdk.CallToolResult
	err error
}

// forwardHTTPParked is forward's HTTP branch for a 2026-07-28 call to a
// server on an older revision.
func (g *Gateway) forwardHTTPParked(ctx context.Context, c *call, params *sdk.CallToolParams) (sdk.Result, error) {
	c.progressed = make(chan struct{}, 1)
	c.round = make(chan parkRound, 1)
	c.http = make(chan httpAnswer, 1)
	pctx, pcancel := context.WithCancel(context.WithoutCancel(ctx))
	c.stop = pcancel
	c.expired = new(atomic.Bool)
	g.calls.add(c)
	c.dl.Start(g.timeout(), func() { c.expired.Store(true); pcancel() })
	go func() {
		cctx, stop := c.sess.CallContext(pctx)
		defer stop()
		res, err := g.callHTTP(cctx, c, params) // gateway_input_http.go
		c.http <- httpAnswer{res, err}
	}()
	return g.waitHTTP(ctx, c)
}

// waitHTTP waits for a parked HTTP call's answer or its next round.
func (g *Gateway) waitHTTP(ctx context.Context, c *call) (sdk.Result, error) {
	done := func(a httpAnswer) (sdk.Result, error) {
		c.dl.Stop()
		g.dropParkOf(c)
		defer c.stop()
		if a.err != nil {
			var relay *relayed
			if errors.As(a.err, &relay) {
				return &rawResult{raw: relay.result}, nil
			}
			if c.expired.Load() {
				return nil, g.timeoutError(c.server, c.tool)
			}
			if c.sess.Context().Err() != nil {
				return nil, diedError(c.server, c.sess)
			}
			return nil, c.sess.RedactErr(a.err)
		}
		c.awaitProgress(ctx)
		if len(a.res.InputRequests) > 0 { // a second round (oldWireRound)
			if b, err := json.Marshal(a.res); err == nil {
				if relay := g.relayOld(c, b); relay != nil {
					return &rawResult{raw: relay.result}, nil
				}
			}
		}
		if c.sess.HasSecrets() {
			if b, err := json.Marshal(a.res); err == nil {
				return &rawResult{raw: c.sess.RedactJSON(b)}, nil
			}
		}
		return a.res, nil
	}
	select {
	case a := <-c.http:
		if g.calls.take(c.n) == nil { // a round, or a missing capability, took the call first: its answer comes
			return (<-c.round).answer()
		}
		return done(a)
	case r := <-c.round:
		return r.answer()
	case <-ctx.Done():
		if g.calls.take(c.n) == nil { // a round took it first: its answer comes
			return (<-c.round).answer()
		}
		c.dl.Stop()
		g.dropParkOf(c)
		c.stop()
		return nil, ctx.Err()
	}
}
