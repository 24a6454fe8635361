package downstream

import (
	"context"
	"github.com/mcptray/mcptray/mcp/wire"
	"time"
)

// A server may ask the person something while it starts: a vault or a key
// agent that needs its passphrase before it can list its tools (unlock at
// start). The protocol lets a server send requests once it got
// notifications/initialized, so its elicitation/create can come before
// its tools/list reply, and so before Gateway.SetServer attaches the
// session. Until then the spec's Router takes such requests (s.early):
// on stdio through its TapElicit, before the SDK (whose own path refuses
// format "password" and would only cancel), on HTTP through the SDK's
// elicitation handler. No tool call can be in flight to a server that is
// starting, so they go to the inbox (GatewayOptions.Elicit), under the
// server's name and with no tool.
//
// The startup deadline (StartTimeout) stops while such a request waits in
// the inbox, as a tool call's deadline does while its elicitation waits:
// the server is not silent, it waits on the person, and the inbox's own
// deadline bounds that wait.

// attachEarly lets r take the session's elicitations until Attach gives
// it its router for good. Called by Start before initialize; the tap's
// atomic store publishes s.early to the stdout read loop.
func (s *Session) attachEarly(r Router) {
	if r == nil {
		return
	}
	s.early = r
	if s.conn != nil {
		// The startup tap, until Attach installs the router's Tap.
		tap := lineTap(func(line []byte, p *wire.Peek) bool { return p.Method.OK() && r.TapElicit(s, line, p) })
		s.conn.tap.Store(&tap)
	}
}

// elicitRoute is the Router that takes the session's elicitations: the
// one serving it, else the one it starts for; nil for none.
func (s *Session) elicitRoute() Router {
	if r := s.attached(); r != nil {
		return r
	}
	return s.early
}

// boundStart bounds a startup by d, on a clock that stops while an
// elicitation of the server waits in the inbox; a d of 0 leaves ctx as it
// is. The context ends with cause context.DeadlineExceeded when the time
// is up. Call done once the startup is over.
func (s *Session) boundStart(ctx context.Context, d time.Duration) (_ context.Context, done func()) {
	if d <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	s.startClock.Start(d, func() { cancel(context.DeadlineExceeded) })
	return ctx, func() {
		s.startClock.Stop()
		cancel(nil)
	}
}

// startBudget is how long a startup has, for "no answer within …": the
// nearer of ctx's deadline and timeout (0 for none).
func startBudget(ctx context.Context, begun time.Time, timeout time.Duration) time.Duration {
	budget := budgetOf(ctx, begun)
	if timeout > 0 && (budget == 0 || roundBudget(timeout) < budget) {
		budget = roundBudget(timeout)
	}
	return budget
}
