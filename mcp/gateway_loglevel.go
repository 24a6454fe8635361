package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/mcp/downstream"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Log levels per request (2026-07-28, SEP-2575): a request may carry
// _meta["io.modelcontextprotocol/logLevel"], and the log messages a server
// sends while it runs reach that request's assistant at that level and
// above; a request without one gets none. The gateway maps it onto what
// the server speaks:
//
//   - a server on 2026-07-28 gets the level in the call's own _meta (the
//     more verbose of the assistant's and the one mcptray started it
//     with, which its log file keeps);
//   - a server on an older revision has one level for its connection
//     (logging/setLevel): the gateway lowers it for the call, when the
//     call asks for more than it sends, and raises it again after
//     (applyLevels counts the calls in flight), and filters what comes:
//     each message goes to the calls that asked for its level, and to
//     the sessions that set one, never to the others.
//
// Such a call takes the slow path, whose SDK handler's context holds the
// request's level (go-sdk's ServerSession.Log reads it there); prompts/get
// and resources/read are served the same way (levelForRequest).

// requestLevel is a 2026-07-28 request's log level, "" when it sets none
// or one the spec does not name.
func requestLevel(meta sdk.Meta) string {
	l, _ := meta[metaLogLevel].(string)
	if !slices.Contains(logLevels, l) {
		return ""
	}
	return l
}

// checkLogLevel refuses a 2026-07-28 request whose log level is not one
// the spec names (-32602, saying which it got and which there are):
// go-sdk would take it as no level, and the assistant would never learn
// why no message came.
func checkLogLevel(req sdk.Request) error {
	p := req.GetParams()
	if p == nil {
		return nil
	}
	if rv := reflect.ValueOf(p); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil // a request without params (GetMeta would dereference nil)
	}
	meta := p.GetMeta()
	v, set := meta[metaLogLevel]
	if !set || !requestIsNew(meta) {
		return nil
	}
	if l, ok := v.(string); ok && slices.Contains(logLevels, l) {
		return nil
	}
	b, _ := json.Marshal(v)
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid _meta %q: %.64s, want one of %s", metaLogLevel, b, strings.Join(logLevels, ", "))}
}

// moreVerbose is the more verbose of two levels ("" is none).
func moreVerbose(a, b string) string {
	ia, ib := slices.Index(logLevels, a), slices.Index(logLevels, b)
	switch {
	case ia < 0:
		return b
	case ib < 0 || ia < ib:
		return a
	}
	return b
}

// levelForCall makes the server of c send log messages at c's level
// during the call: for a server on an older revision, logging/setLevel
// when its connection's level is less verbose (its answer awaited, so
// that a message logged at once is not missed). The call's level counts
// in applyLevels until done is called, once the call is over; the level
// then goes back to what the sessions and the calls still in flight ask
// for.
func (g *Gateway) levelForCall(ctx context.Context, c *call) (done func()) {
	if c.logLevel == "" || c.sess.NewWire() {
		return func() {}
	}
	caps := c.sess.Capabilities()
	if caps == nil || caps.Logging == nil {
		return func() {}
	}
	g.mu.Lock()
	d := g.down[c.server]
	if d == nil || d.sess != c.sess {
		g.mu.Unlock()
		return func() {}
	}
	if d.callLevels == nil {
		d.callLevels = map[uint64]string{}
	}
	d.callLevels[c.n] = c.logLevel
	current := d.level
	if current == "" {
		current = c.sess.LogLevel()
	}
	lower := moreVerbose(c.logLevel, current) != current
	if lower {
		d.level = c.logLevel
	}
	g.mu.Unlock()
	if lower {
		cctx, stop := c.sess.CallContext(ctx)
		err := c.sess.Client().SetLoggingLevel(cctx, &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(c.logLevel)})
		stop()
		if err != nil {
			g.log.Warn("setting a server's log level for a call", "server", c.server, "error", err)
		}
	}
	return func() {
		g.mu.Lock()
		delete(d.callLevels, c.n)
		g.mu.Unlock()
		if lower {
			go g.applyLevels()
		}
	}
}

// logRequest is a 2026-07-28 request other than tools/call
// (prompts/get, resources/read) that asked for a log level, while its
// server answers it: the server's messages meanwhile go to it as to a
// call's (logToCalls). Guarded by Gateway.mu, in Gateway.logReqs.
type logRequest struct {
	sess      *downstream.Session
	ss        *sdk.ServerSession
	ctx       context.Context // the SDK handler's: it holds the request's level
	aggregate bool            // the messages' logger names the server
}

// levelForRequest is levelForCall for a request other than tools/call on
// ss, to server (sess), whose _meta is meta: nothing unless it is a
// 2026-07-28 request with a level. done ends it.
func (g *Gateway) levelForRequest(ctx context.Context, ss *sdk.ServerSession, aggregate bool, server string, sess *downstream.Session, meta sdk.Meta) (done func()) {
	level := ""
	if requestIsNew(meta) {
		level = requestLevel(meta)
	}
	if level == "" || ss == nil {
		return func() {}
	}
	r := &logRequest{sess: sess, ss: ss, ctx: ctx, aggregate: aggregate}
	g.mu.Lock()
	if g.logReqs == nil {
		g.logReqs = map[*logRequest]bool{}
	}
	g.logReqs[r] = true
	g.mu.Unlock()
	restore := g.levelForCall(ctx, &call{n: g.nextID.Add(1), server: server, sess: sess, logLevel: level})
	return func() {
		restore()
		g.mu.Lock()
		delete(g.logReqs, r)
		g.mu.Unlock()
	}
}

// logToCalls passes a server's log message to the 2026-07-28 calls and
// requests in flight to it whose assistant's session did not get it
// already (sent): go-sdk's ServerSession.Log sends it on the request's
// stream when it is at the request's level or above, and drops it for a
// request that set none.
func (g *Gateway) logToCalls(sess *downstream.Session, message func(aggregate bool) *sdk.LoggingMessageParams, sent map[*sdk.ServerSession]bool) {
	for _, c := range g.calls.matching(func(c *call) bool {
		// A parked prompts/get or resources/read (gateway_park_sdk.go) has a
		// logRequest of its own (levelForRequest), below.
		return c.sess == sess && c.newWire && c.ctx != nil && c.up != nil && c.up.ss != nil && !sent[c.up.ss] && c.sdkDone == nil
	}) {
		c.up.ss.Log(c.context(context.Background()), message(c.up.v.key.aggregate()))
	}
	g.mu.Lock()
	var reqs []*logRequest
	for r := range g.logReqs {
		if r.sess == sess && !sent[r.ss] {
			reqs = append(reqs, r)
		}
	}
	g.mu.Unlock()
	for _, r := range reqs {
		r.ss.Log(r.ctx, message(r.aggregate))
	}
}
