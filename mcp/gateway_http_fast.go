package mcp

import (
	"context"
	"github.com/mcptray/mcptray/mcp/wire"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// The HTTP fast path: a POST that carries one tools/call for a ready stdio
// server's tool, on a session the gateway knows, is forwarded as bytes the
// way a stream session's call is (upstream.go), and its answer is written
// as one application/json response — the SDK's streamable handler, which
// would decode the call, dispatch it through the server and encode it
// again onto an event stream, is skipped. The spec lets a server answer a
// POSTed request either way.
//
// Only a call that cannot need a stream takes it: no progress token, an
// assistant that declared neither elicitation nor sampling (a server's
// question then goes to the inbox, as it would on the SDK's way) and did
// not ask for log messages (those go on the call's stream). Anything
// else — other methods, batches, unknown sessions or versions, odd headers
// — goes to the SDK unchanged, so its answers and errors stay the spec's.

// maxFastBody is the largest POST body the fast path takes; bigger ones go
// to the SDK.
const maxFastBody = 1 << 20

// serveFast answers r on the fast path and reports whether it did; t is
// r's body, one message that passed wire.CheckMessage (checkBody), and p
// its fields. When it did not, r is as it was (its body can still be read
// in full).
func (g *Gateway) serveFast(w http.ResponseWriter, r *http.Request, v *view, t []byte, p *wire.Peek) bool {
	if len(t) > maxFastBody || !p.Method.OK() {
		return false
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		return false
	}
	g.mu.Lock()
	up := g.httpUps[sid]
	g.mu.Unlock()
	if up == nil || up.v != v || !up.fastPOST(r) {
		return false
	}
	if m, ok := isTaskMethod(t, p); ok && p.ID.OK() { // gateway_tasks.go: no stream needed
		hw := &httpReply{w: w, ctx: r.Context(), answered: make(chan struct{})}
		if !up.relayTask(t, p, m, hw) {
			return false
		}
		hw.wait(r)
		return true
	}
	if !up.streamless() && !(p.Method.Is(t, `"tools/call"`) && p.Params.OK() && hasTask(p.Params.Of(t))) {
		return false // a task-augmented call is answered at once: no stream needed either
	}
	switch fastWay(t, p) {
	case fastToolCall:
		hw := &httpReply{w: w, ctx: r.Context(), answered: make(chan struct{})}
		if !up.fastCall(t, p, hw) {
			return false
		}
		hw.wait(r)
		return true
	case fastCancelled:
		if !up.fastCancel(t, p) {
			return false
		}
		w.WriteHeader(http.StatusAccepted)
		return true
	}
	return false
}

// serveFastStateless is serveFast for a POST of the 2026-07-28 wire, which
// has no session: one tools/call whose _meta names the revision and its
// client, for a ready stdio server's tool, without a progress token, a
// log level or a task (each needs the SDK's stream or session). Its
// upstream lives as long as the request, and names the client the _meta
// names. Else it reports false, r as it was, and the SDK's stateless
// handler answers.
func (g *Gateway) serveFastStateless(w http.ResponseWriter, r *http.Request, v *view, t []byte, p *wire.Peek) bool {
	if len(t) > maxFastBody || fastWay(t, p) != fastToolCall || r.Header.Get("Mcp-Protocol-Version") != protocol2026 || !fastHeaders(r) {
		return false
	}
	up := &upstream{g: g, v: v, perRequest: true, raw: map[string]*call{}}
	params := p.Params.Of(t)
	if meta := wire.Field(params, "_meta"); meta.OK() {
		mb := meta.Of(params)
		if ci := wire.Field(mb, metaClientInfo); ci.OK() {
			cb := ci.Of(mb)
			up.client, _ = wire.RawString(wire.Field(cb, "name").Of(cb))
			up.clientVersion, _ = wire.RawString(wire.Field(cb, "version").Of(cb))
		}
	}
	hw := &httpReply{w: w, ctx: r.Context(), answered: make(chan struct{})}
	if !up.fastCall(t, p, hw) {
		return false
	}
	hw.wait(r)
	return true
}

// streamless reports whether this session's calls may be answered
// without a stream: see above.
func (up *upstream) streamless() bool {
	ip := up.ss.InitializeParams()
	if ip == nil {
		return false
	}
	if caps := ip.Capabilities; caps != nil && (caps.Elicitation != nil || caps.Sampling != nil) {
		return false
	}
	return up.level() == "" // log messages during a call go on its stream
}

// fastPOST reports whether r, on this session, is a POST the fast path
// may read: an initialized session, its protocol version, JSON, and an
// Accept header the spec allows.
func (up *upstream) fastPOST(r *http.Request) bool {
	ip := up.ss.InitializeParams()
	if ip == nil {
		return false
	}
	// No version header: the spec has the server assume one, and the SDK
	// serves the call; another version than the session's: the SDK decides.
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && v != ip.ProtocolVersion {
		return false
	}
	return fastHeaders(r)
}

// fastHeaders reports whether r is JSON with an Accept header the spec
// allows: else the SDK answers with its error.
func fastHeaders(r *http.Request) bool {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	accept := strings.Join(r.Header.Values("Accept"), ",")
	return strings.Contains(accept, "application/json") && strings.Contains(accept, "text/event-stream")
}

// httpReply is where an HTTP fast-path call's answer goes: given once, by
// whoever takes the call from the call table (the server's reply, the
// deadline, the server's end). A small answer is written by that party at
// once, while the request's handler waits (no goroutine to wake first); a
// large one is left to the handler, so that a client slow to read never
// holds up the server's reader, which serves every other call too.
type httpReply struct {
	w   http.ResponseWriter
	ctx context.Context // the request's: ends when its client goes away
	c   *call           // set by fastCall before the call is sent
	// status is the HTTP status of the answer when not 200: a 2026-07-28
	// error answer's (errorStatus); set before deliver.
	status int

	mu       sync.Mutex
	done     bool          // guarded by mu: answered, or the handler left
	large    []byte        // guarded by mu: an answer for the handler to write
	answered chan struct{} // closed by deliver
}

// inlineReplyMax is the largest answer written by the party that takes the
// call: it fits an idle loopback socket's send buffer, so the write does
// not block.
const inlineReplyMax = 16 << 10

var jsonContentType = []string{"application/json"}

// deliver gives line as the response, unless the handler has left.
func (h *httpReply) deliver(line []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return
	}
	h.done = true
	if len(line) > inlineReplyMax {
		h.large = line
	} else {
		h.write(line)
	}
	close(h.answered)
}

func (h *httpReply) write(line []byte) {
	hd := h.w.Header()
	hd["Content-Type"] = jsonContentType
	hd["Content-Length"] = []string{strconv.Itoa(len(line))}
	status := http.StatusOK
	if h.status != 0 {
		status = h.status
	}
	h.w.WriteHeader(status)
	h.w.Write(line)
	if f, ok := h.w.(http.Flusher); ok {
		f.Flush()
	}
}

// wait returns once the call is answered (writing a large answer itself),
// or, when the client goes away first, after cancelling it downstream.
func (h *httpReply) wait(r *http.Request) {
	select {
	case <-h.answered:
		h.mu.Lock()
		large := h.large
		h.large = nil
		h.mu.Unlock()
		if large != nil {
			h.write(large)
		}
		return
	case <-r.Context().Done():
	}
	c := h.c
	if c == nil { // answered by the gateway itself (gateway_tasks.go)
		<-h.answered
		return
	}
	g := c.up.g
	if g.calls.take(c.n) == nil {
		<-h.answered // taken by someone who is answering it; the client is gone
		return
	}
	c.dl.Stop()
	c.up.forgetRaw(c)
	g.cancelDownstream(c.sess, c.n, "the client went away")
	g.recordCall(c, OutcomeCancelled)
	h.mu.Lock()
	h.done = true
	h.mu.Unlock()
}
