package mcp

import (
	"context"
	"encoding/json"
	"math"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Approval before a call (DESIGN.md §14). A tool whose calls wait for the
// person is routed with route.approve set: the fast path leaves such a call
// to the SDK's dispatch, and callTool (or callMeta) asks GatewayOptions.
// Approve before forwarding it. The question goes to the person only (the
// inbox), never to an assistant, whatever the elicitation setting.

// Approval is the person's answer to a call that waits.
type Approval int

// Answers to an approval request.
const (
	Deny         Approval = iota // the call is refused (also: no answer in time)
	AllowOnce                    // this call only
	AllowSession                 // this tool, for the rest of this assistant session
	AllowAlways                  // this tool, from now on (the app writes allowTools)
)

// DeclinedText is the isError text of a call the person declined (or let
// time out).
const DeclinedText = "The person declined this call."

// ApprovalRequest is a call waiting for the person's yes.
type ApprovalRequest struct {
	Server string // the server's name
	Tool   string // the server's own name for the tool
	Client string // the assistant that calls (its clientInfo name); "" if unknown
	// Arguments are the call's arguments as sent, with the values typed as
	// secrets for this server redacted.
	Arguments   json.RawMessage
	Annotations *sdk.ToolAnnotations // the tool's, or nil
}

// sessionKey names a tool an assistant session allowed for its lifetime.
type sessionKey struct{ server, tool string }

// allowedFor reports whether this session allowed calls of server's tool.
// A stateless HTTP request (the 2026-07-28 wire) has no session: its
// client's allowances stand in (clientAllowances).
func (up *upstream) allowedFor(server, tool string) bool {
	if up.perRequest {
		return up.g.clients.allowed(up.clientKey(), sessionKey{server, tool}, time.Now())
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	return up.allowed[sessionKey{server, tool}]
}

func (up *upstream) allow(server, tool string) {
	if up.perRequest {
		up.g.clients.allow(up.clientKey(), sessionKey{server, tool}, time.Now())
		return
	}
	up.mu.Lock()
	if up.allowed == nil {
		up.allowed = map[sessionKey]bool{}
	}
	up.allowed[sessionKey{server, tool}] = true
	up.mu.Unlock()
}

// clientKey is who a stateless request's client says it is (its _meta
// clientInfo); "" when it did not say.
func (up *upstream) clientKey() string {
	name, version := up.clientInfo()
	if name == "" {
		return ""
	}
	return name + "\x00" + version
}

// clientIdle is how long a stateless client's "allow for this session"
// lasts after its last request: the new wire has no session to end, so
// an idle client's allowances lapse as an idle HTTP session's would.
const clientIdle = time.Hour

// clientAllowances are the tools each stateless client allowed "for this
// session", by client (clientKey). A client that gave no clientInfo gets
// none: its "for this session" is this call only, as two nameless
// clients cannot be told apart.
type clientAllowances struct {
	mu sync.Mutex
	m  map[string]*clientAllowed // guarded by mu
}

type clientAllowed struct {
	tools map[sessionKey]bool
	seen  time.Time // the client's last lookup or allowance
}

func (c *clientAllowances) allowed(client string, k sessionKey, now time.Time) bool {
	if client == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.m[client]
	if a == nil {
		return false
	}
	if now.Sub(a.seen) > clientIdle {
		delete(c.m, client)
		return false
	}
	a.seen = now
	return a.tools[k]
}

func (c *clientAllowances) allow(client string, k sessionKey, now time.Time) {
	if client == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*clientAllowed{}
	}
	for name, a := range c.m { // lapsed ones go; the map stays small
		if now.Sub(a.seen) > clientIdle {
			delete(c.m, name)
		}
	}
	a := c.m[client]
	if a == nil {
		a = &clientAllowed{tools: map[sessionKey]bool{}}
		c.m[client] = a
	}
	a.tools[k] = true
	a.seen = now
}

// approve asks the person whether the call of server's tool may go ahead;
// it returns the isError result to answer with when not, else nil. A
// server that is not ready is not asked about (forward says it is down).
// While the person decides, a call with a progress token gets progress
// notifications, so that its client does not give up.
func (g *Gateway) approve(ctx context.Context, up *upstream, server, tool string, ann *sdk.ToolAnnotations, args json.RawMessage, meta sdk.Meta) *sdk.CallToolResult {
	if up.allowedFor(server, tool) {
		return nil
	}
	sess := g.session(server)
	if sess == nil {
		return nil
	}
	if g.opts.Approve == nil {
		return errorResult(DeclinedText)
	}
	if tok, ok := meta["progressToken"]; ok && tok != nil {
		stop := g.keepApprovalAlive(ctx, up, tok)
		defer stop()
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	req := ApprovalRequest{Server: server, Tool: tool, Client: up.clientName(), Arguments: sess.RedactJSON(args), Annotations: ann}
	g.log.Info("tool call waits for the person's approval", "server", server, "tool", tool, "client", req.Client)
	a, err := g.opts.Approve(ctx, req)
	switch {
	case err != nil || a == Deny:
		g.log.Info("tool call declined", "server", server, "tool", tool)
		return errorResult(DeclinedText)
	case a == AllowSession || a == AllowAlways:
		up.allow(server, tool)
	}
	return nil
}

// keepApprovalAlive sends progress under the assistant's token every
// g.keepAlive until stopped.
func (g *Gateway) keepApprovalAlive(ctx context.Context, up *upstream, tok any) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(g.keepAlive)
		defer t.Stop()
		var n float64
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				n = math.Floor(n) + 1
				up.ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: n, Message: "waiting for the person's approval in mcptray"})
			}
		}
	}()
	return func() { close(done) }
}
