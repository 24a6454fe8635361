package google

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client on protocol 2026-07-28 takes no request during a call: the
// server answers the call with an input_required result, and the client
// retries it with the answers and the requestState. The sign-in then
// spans two calls: the first starts it (the loopback listener) and asks
// for the URL elicitation; the retry, whose requestState names the
// sign-in, waits for the browser to come back and goes on. The sign-ins
// waiting for their retry are kept by id (pendingSignIns) until it comes,
// or for Options.SignInTimeout. No notifications/elicitation/complete:
// the retry is the sign that the person is done.

// signInInput is the input request's id in the result, and signInState
// prefixes the requestState, "google-sign-in:<id>".
const (
	signInInput = "google-sign-in"
	signInState = "google-sign-in:"
)

// NeedInputError stops a tool call that needs an answer its request does
// not carry yet: WithInput turns it into the input_required result
// asking for it.
type NeedInputError struct {
	ID     string            // the input request's id
	Params *sdk.ElicitParams // the question
	State  string            // the requestState the retry must carry
}

func (e *NeedInputError) Error() string { return "waiting for an answer (" + e.ID + ")" }

// WithInput wraps a tool handler of gcal or gmail: a NeedInputError,
// however wrapped, becomes an input_required result asking for it.
func WithInput[In, Out any](h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		var ni *NeedInputError
		if errors.As(err, &ni) {
			var zero Out
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{ni.ID: ni.Params}, RequestState: ni.State}, zero, nil
		}
		return res, out, err
	}
}

// callRequestKey carries the tool call a sign-in is asked for.
type callRequestKey struct{}

// WithCallRequest is ctx carrying req, the tool call being served: a
// sign-in asked during it on protocol 2026-07-28 (SignInByElicitation)
// reads the retry's answer and requestState from it. Caller.Call sets it.
func WithCallRequest(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	if req == nil {
		return ctx
	}
	return context.WithValue(ctx, callRequestKey{}, req)
}

func callRequest(ctx context.Context) *sdk.CallToolRequest {
	req, _ := ctx.Value(callRequestKey{}).(*sdk.CallToolRequest)
	return req
}

// pendingSignIns are the sign-ins started by a call on 2026-07-28 and
// waiting for its retry, by id.
type pendingSignIns struct {
	mu sync.Mutex
	m  map[string]*pendingSignIn // guarded by mu
}

type pendingSignIn struct {
	s     *SignIn
	email string      // the account asked for ("" for any)
	timer *time.Timer // closes it when no retry came in time
}

func (p *pendingSignIns) add(id string, ps *pendingSignIn, timeout time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]*pendingSignIn{}
	}
	p.m[id] = ps
	ps.timer = time.AfterFunc(timeout, func() {
		if p.take(id) != nil {
			ps.s.Close()
		}
	})
}

// take removes the sign-in id and returns it; nil if there is none.
func (p *pendingSignIns) take(id string) *pendingSignIn {
	p.mu.Lock()
	defer p.mu.Unlock()
	ps := p.m[id]
	delete(p.m, id)
	if ps != nil {
		ps.timer.Stop()
	}
	return ps
}

// signInRounds is SignInByElicitation on protocol 2026-07-28, for the
// call req.
func signInRounds(ctx context.Context, req *sdk.CallToolRequest, a *Accounts, email, msg string, services []string) (*Added, error) {
	if id, ok := strings.CutPrefix(req.Params.RequestState, signInState); ok {
		if ps := a.pending.take(id); ps != nil && strings.EqualFold(ps.email, email) {
			defer ps.s.Close()
			r, _ := req.Params.InputResponses[signInInput].(*sdk.ElicitResult)
			switch {
			case r == nil:
				return nil, errors.New("the Google sign-in got no answer")
			case r.Action == "decline":
				return nil, errors.New("the Google sign-in was declined")
			case r.Action != "accept":
				return nil, errors.New("the Google sign-in was cancelled")
			}
			return ps.s.Wait(ctx)
		} else if ps != nil {
			ps.s.Close()
		}
		// A sign-in that ended (it timed out) or another account's: ask
		// again.
	}
	s, err := a.StartSignIn(services, email)
	if err != nil {
		return nil, err
	}
	id := randomID()
	a.pending.add(id, &pendingSignIn{s: s, email: email}, a.opts.SignInTimeout)
	return nil, &NeedInputError{
		ID: signInInput,
		Params: &sdk.ElicitParams{
			Meta:          sdk.Meta{InboxMeta: true},
			Mode:          "url",
			Message:       msg,
			URL:           s.URL,
			ElicitationID: signInInput + "-" + id,
		},
		State: signInState + id,
	}
}
