package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// UpstreamOptions say what an upstream session sees.
type UpstreamOptions struct {
	Server string // "" aggregates every server; else that server alone, its tools unprefixed
	Tools  string // live, stable or dynamic; "" is live
}

// An upstream is one assistant session: a stream (ServeStream) or an HTTP
// session (HTTPHandler).
type upstream struct {
	g  *Gateway
	v  *view
	ss *sdk.ServerSession
	w  *wire.StreamWriter // nil for HTTP sessions

	ready atomic.Bool // the session is initialized: the fast path may run
	// perRequest is set for the SDK session of one stateless HTTP request
	// (the 2026-07-28 wire): it lives as long as the request. A request
	// the fast path answers has no SDK session at all (ss nil): its
	// client is the one its _meta names (client, clientVersion).
	perRequest            bool
	client, clientVersion string
	// answering counts the requests the gateway answers on goroutines of
	// its own, outside raw (tasks/list, a task call waiting for approval),
	// so that drain waits for them too.
	answering atomic.Int64

	lifeOnce sync.Once
	life     context.Context    // ends when the session does (lifeContext)
	endLife  context.CancelFunc // called by dropUpstream
	since    time.Time          // when the session began, for its log line at the end

	// HTTP sessions (gateway_http_idle.go), guarded by g.mu: requests in
	// flight, requests made (the initialize request is not counted), and
	// when the last one ended.
	httpBusy      int
	httpRequests  int
	httpIdleSince time.Time

	mu       sync.Mutex
	raw      map[string]*call    // guarded by mu: fast-path calls by the assistant's request id
	subs     map[subKey]bool     // guarded by mu: resource subscriptions
	logLevel string              // guarded by mu: the level the assistant asked for, "" none
	allowed  map[sessionKey]bool // guarded by mu: tools the person allowed for this session (gateway_approve.go)
	closed   bool                // guarded by mu
}

// upstreamOf returns the upstream of an SDK session, registering it (an
// HTTP session, seen for the first time) if needed.
func (g *Gateway) upstreamOf(ss *sdk.ServerSession, v *view) *upstream {
	g.mu.Lock()
	up := g.upstreams[ss]
	if up == nil {
		now := time.Now()
		up = &upstream{g: g, v: v, ss: ss, raw: map[string]*call{}, subs: map[subKey]bool{}, since: now, httpIdleSince: now}
		g.upstreams[ss] = up
		var idle []idleSession
		if id := ss.ID(); id != "" {
			g.httpUps[id] = up
			idle = g.idleHTTPSessions(up)
		} else {
			up.perRequest = true // a stateless HTTP request (gateway_wire26.go)
		}
		g.mu.Unlock()
		if len(idle) > 0 {
			go g.closeIdle(idle) // not on the new session's initialize
		}
		go func() {
			ss.Wait()
			g.dropUpstream(up)
		}()
		return up
	}
	g.mu.Unlock()
	return up
}

// dropUpstream forgets a session that ended: its fast-path calls are
// cancelled downstream and its subscriptions dropped.
func (g *Gateway) dropUpstream(up *upstream) {
	g.mu.Lock()
	known := g.upstreams[up.ss] == up
	if known {
		delete(g.upstreams, up.ss)
	}
	if id := up.ss.ID(); id != "" && g.httpUps[id] == up {
		delete(g.httpUps, id)
	}
	g.mu.Unlock()
	if known {
		up.logEnded()
	}
	g.tasks.drop(up)
	up.lifeContext()
	up.endLife()
	up.mu.Lock()
	up.closed = true
	calls := make([]*call, 0, len(up.raw))
	for _, c := range up.raw {
		calls = append(calls, c)
	}
	up.raw = map[string]*call{}
	subs := up.subs
	up.subs = map[subKey]bool{}
	up.mu.Unlock()
	for _, c := range g.calls.matching(func(c *call) bool { return c.up == up && c.stop != nil }) {
		c.stop() // a slow-path call: its handler cancels downstream
	}
	for _, c := range calls {
		if g.calls.take(c.n) != nil {
			c.dl.Stop()
			g.cancelDownstream(c.sess, c.n, "the client went away")
			g.recordCall(c, OutcomeCancelled)
			if c.hw != nil {
				c.hw.deliver(wire.ErrorLine(c.upID, codeInternal, "the session ended"))
			}
		}
	}
	g.mu.Lock()
	for id, u := range g.urlElicits {
		if u == up {
			delete(g.urlElicits, id)
		}
	}
	g.mu.Unlock()
	for key := range subs {
		up.mu.Lock()
		up.subs[key] = true
		up.mu.Unlock()
		g.unsubscribe(context.Background(), up, key.server, key.uri)
	}
	go g.applyLevels()
}

func (up *upstream) level() string {
	up.mu.Lock()
	defer up.mu.Unlock()
	return up.logLevel
}

func (up *upstream) setLevel(l string) {
	up.mu.Lock()
	up.logLevel = l
	up.mu.Unlock()
}

// clientName is the assistant's clientInfo name.
func (up *upstream) clientName() string {
	name, _ := up.clientInfo()
	return name
}

// clientInfo is the name and version the assistant gave: in initialize,
// or in the _meta of a request without a session.
func (up *upstream) clientInfo() (name, version string) {
	if up.ss == nil {
		return up.client, up.clientVersion
	}
	return clientInfo(up.ss)
}

// clientInfo is the name and version a session's client gave in
// initialize ("" before it did).
func clientInfo(ss *sdk.ServerSession) (name, version string) {
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		return p.ClientInfo.Name, p.ClientInfo.Version
	}
	return "", ""
}

// send writes a line to a stream session.
// send writes line to the assistant; it reports whether it went out at
// once (not queued for the writer's goroutine).
func (up *upstream) send(line []byte) bool {
	return up.w != nil && up.w.Send(line)
}

func (up *upstream) forgetRaw(c *call) {
	up.mu.Lock()
	if up.raw[string(c.upID)] == c {
		delete(up.raw, string(c.upID))
	}
	up.mu.Unlock()
}

// ServeStream serves one upstream session of newline-delimited JSON-RPC on
// rw (the unix socket behind `mcptray connect`, or any pipe). It blocks
// until the peer hangs up or ctx ends, and closes rw. When the peer only
// ends its input, the requests it sent are answered first (drain); calls
// still in flight when the session ends are cancelled downstream.
func (g *Gateway) ServeStream(ctx context.Context, rw io.ReadWriteCloser, opts UpstreamOptions) error {
	v, err := g.view(opts.Server, opts.Tools)
	if err != nil {
		rw.Close()
		return err
	}
	w := wire.NewStreamWriter(rw)
	var sessOf atomic.Pointer[sdk.ServerSession] // for Overflow's log line
	w.Overflow = func(unread int) {
		client := ""
		if ss := sessOf.Load(); ss != nil {
			client, _ = clientInfo(ss)
		}
		g.log.Warn("assistant session ended: it does not read its answers", "client", client, "unreadBytes", unread)
		rw.Close()
	}
	conn := &upConn{w: w, msgs: make(chan jsonrpc.Message), pending: map[jsonrpc.ID]bool{}, closed: make(chan struct{})}
	ss, err := v.srv.Connect(ctx, downstream.ConnTransport{Conn: conn}, nil)
	if err != nil {
		rw.Close()
		w.Close()
		return fmt.Errorf("starting session: %w", err)
	}
	sessOf.Store(ss)
	up := &upstream{g: g, v: v, ss: ss, w: w, raw: map[string]*call{}, subs: map[subKey]bool{}, since: time.Now()}
	g.mu.Lock()
	g.upstreams[ss] = up
	g.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { rw.Close() })
	defer stop()
	go func() { // the SDK closes the connection on a protocol failure
		<-conn.closed
		rw.Close()
	}()

	pauses := 0
	paused := func(unread int) {
		if pauses++; pauses == 1 { // once a session: a slow reader pauses often
			g.log.Info("assistant is not reading its answers: its next requests wait", "client", up.clientName(), "unreadBytes", unread)
		}
	}
	lr := wire.NewLineReader(rw, wire.MaxLineBytes)
	var readErr error
	for {
		// Backpressure: while the assistant leaves too much unread, its
		// next requests wait in its pipe, not in our memory.
		if !w.WaitRoom(ctx.Done(), paused) {
			readErr = io.ErrClosedPipe
			break
		}
		line, skipped, err := lr.Next()
		if err != nil {
			readErr = err
			break
		}
		if skipped > 0 {
			g.log.Warn("upstream line over 16 MiB discarded", "bytes", skipped)
			up.send(wire.ErrorLine(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message of %d bytes is over the 16 MiB limit", skipped)))
			continue
		}
		up.handleLine(line, conn)
	}
	if errors.Is(readErr, io.EOF) {
		up.drain(ctx, conn)
		// The answers drain waited for may still wait in the writer's
		// queue (always so on Windows, which has no inline write): out
		// before the stream closes.
		w.Close()
	}
	conn.Close()
	rw.Close()
	g.dropUpstream(up)
	ss.Wait()
	w.Close()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if readErr != nil && !errors.Is(readErr, io.EOF) && !errors.Is(readErr, os.ErrClosed) && !errors.Is(readErr, net.ErrClosed) && !errors.Is(readErr, io.ErrClosedPipe) {
		return fmt.Errorf("reading: %w", readErr)
	}
	return nil
}

// handleLine takes one line from the assistant: refused unless it passes
// wire.CheckMessage (upstream_refuse.go), then the fast path for tools/call
// and its cancellation, the SDK for everything else.
func (up *upstream) handleLine(line []byte, conn *upConn) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return
	}
	if t[0] == '{' {
		p, err := wire.CheckMessage(t)
		if err != nil {
			up.refuse(t, err, conn)
			return
		}
		switch fastWay(t, &p) {
		case fastToolCall:
			if up.fastCall(t, &p, nil) {
				return
			}
		case fastCancelled:
			if up.fastCancel(t, &p) {
				return
			}
		default:
			if p.Method.OK() {
				if m, ok := isTaskMethod(t, &p); ok && p.ID.OK() && up.relayTask(t, &p, m, nil) { // gateway_tasks.go
					return
				}
			}
		}
		msg, err := jsonrpc.DecodeMessage(t)
		if err != nil {
			up.send(wire.ErrorLine(nil, jsonrpc.CodeParseError, "parse error: "+err.Error()))
			return
		}
		conn.deliver(msg)
		return
	}
	if t[0] == '[' {
		msgs, err := decodeBatch(t, func(elem []byte, err error) { up.refuse(elem, err, conn) })
		if err != nil {
			up.send(wire.ErrorLine(nil, jsonrpc.CodeParseError, "parse error: "+err.Error()))
			return
		}
		for _, m := range msgs {
			conn.deliver(m)
		}
		return
	}
	up.send(wire.ErrorLine(nil, jsonrpc.CodeParseError, "parse error: not a JSON-RPC message"))
}

// Which way a message that passed wire.CheckMessage may go (fastWay).
const (
	slowPath      = iota // the SDK's
	fastToolCall         // fastCall
	fastCancelled        // fastCancel
)

// fastWay is the way a checked message may take, from its raw method: a
// method spelled with escapes goes the SDK's way.
func fastWay(t []byte, p *wire.Peek) int {
	switch {
	case p.Method.Is(t, `"tools/call"`) && p.ID.OK():
		return fastToolCall
	case p.Method.Is(t, `"notifications/cancelled"`) && !p.ID.OK():
		return fastCancelled
	}
	return slowPath
}

// fastCall forwards a tools/call for a ready stdio server's tool as bytes:
// new id, the server's tool name, a gateway progress token. It reports
// false when the call must take the slow path. hw is set for an HTTP
// session's call, whose answer goes to that request (without a progress
// token only: progress needs a stream).
func (up *upstream) fastCall(line []byte, p *wire.Peek, hw *httpReply) bool {
	if !p.Params.OK() {
		return false
	}
	name, nameSp, ok := callName(line, p)
	if !ok {
		return false
	}
	params := p.Params.Of(line)
	r := up.v.routes.Load().tools[name]
	// One pass over the params for both keys: arguments may be large.
	var metaSp, taskSp, stateSp wire.Span
	wire.ScanObject(params, func(k []byte, v wire.Span) bool {
		switch {
		case !metaSp.OK() && wire.KeyIs(k, "_meta"):
			metaSp = v
		case !taskSp.OK() && wire.KeyIs(k, "task"):
			taskSp = v
		case !stateSp.OK() && (wire.KeyIs(k, "requestState") || wire.KeyIs(k, "inputResponses")):
			stateSp = v
		}
		return true
	})
	if stateSp.OK() {
		return false // the retry of a relayed input_required: forward opens its sealed state (gateway_input_relay.go)
	}
	task := taskSp.OK() && !taskSp.Is(params, "null")
	if task && up.ss == nil {
		return false // a task needs the SDK's session (gateway_tasks.go)
	}
	// A task-augmented call is sent as bytes to any server, whose "task"
	// the SDK would drop (an HTTP server's answer comes back through
	// Session.WriteLine's POST), and when it waits for approval, it waits
	// here, off the read loop (approveThenSend). Other calls for an HTTP
	// server, or that wait for approval, take the slow path.
	if r == nil || r.kind != routeTool || r.sess == nil || (!task && (!r.sess.Stdio() || r.approve)) {
		return false
	}
	var (
		tokSp wire.Span
		rm    reqMeta // gateway_wire26.go
		mb    []byte
	)
	if meta := metaSp; meta.OK() {
		mb = meta.Of(params)
		rm = scanMeta(mb)
		if tok := rm.progressToken; tok.OK() && !tok.Is(mb, "null") {
			tokSp = tok.Within(meta).Within(p.Params)
		}
	}
	isNew, known := rm.wireOf(mb)
	if !known || up.ss == nil && !isNew {
		return false // the SDK's error
	}
	if rm.logLevel.OK() && (hw != nil || isNew) { // log messages go on the call's stream, at its level (gateway_loglevel.go)
		return false
	}
	if !isNew && !up.ready.Load() { // the old wire: once initialized
		if up.ss.InitializeParams() == nil {
			return false
		}
		up.ready.Store(true)
	}
	if hw != nil && tokSp.OK() && !task { // progress needs a stream; a task's call answers at once
		return false
	}
	if r.sess.WireMeta() != nil && rm.wireKeys() && !isNew {
		return false // an old call with new-wire keys: forward gives it the revision's _meta (gateway_input.go)
	}
	g := up.g
	c := &call{n: g.nextID.Add(1), up: up, server: r.server, tool: r.tool, sess: r.sess, upID: bytes.Clone(p.ID.Of(line)), hw: hw, started: time.Now(),
		task: task, newWire: isNew}
	gwID := wire.AppendGWID(make([]byte, 0, 24), c.n)
	edits := make([]wire.Edit, 0, 3)
	edits = append(edits, wire.Edit{Start: p.ID.Start, End: p.ID.End, Repl: gwID}, wire.Edit{Start: nameSp.Start + p.Params.Start, End: nameSp.End + p.Params.Start, Repl: r.toolJSON})
	if tokSp.OK() {
		c.upToken = bytes.Clone(tokSp.Of(line))
	}
	if isNew {
		c.upCaps = bytes.Clone(rm.clientCaps.Of(mb)) // what may be relayed to it (gateway_input.go, gateway_park.go)
	}
	switch {
	case rm.wireKeys(): // the assistant's _meta is not the server's
		var tok []byte
		if tokSp.OK() {
			tok = gwID
		}
		ms := metaSp.Within(p.Params)
		repl := toServerMeta(mb, &rm, isNew && speaksNew(r.sess), tok)
		if isNew && !speaksNew(r.sess) {
			repl = toOldServerMeta(mb, &rm, tok) // gateway_wire26.go
		}
		edits = append(edits, wire.Edit{Start: ms.Start, End: ms.End, Repl: repl})
	case tokSp.OK():
		edits = append(edits, wire.Edit{Start: tokSp.Start, End: tokSp.End, Repl: gwID})
	}
	if m := r.sess.WireMeta(); m != nil && !rm.wireKeys() { // a new-wire server (gateway_input.go)
		edits = append(edits, wireMetaEdits(line, p.Params, metaSp, m)...)
	}
	sortEdits(edits)
	out := wire.Splice(line, edits...)
	if r.sess.NewWire() && !task {
		c.sent = out // for its input_required rounds
	}
	if r.approve {
		up.answering.Add(1)
		go up.approveThenSend(c, out, r, bytes.Clone(wire.Field(params, "arguments").Of(params)), metaOf(params))
		return true
	}
	return up.sendFast(c, out, r)
}

// sendFast registers a fast-path call and writes its line to the server.
// It reports false when the SDK must answer instead.
func (up *upstream) sendFast(c *call, out []byte, r *route) bool {
	g, hw := up.g, c.hw
	up.mu.Lock()
	if up.closed {
		up.mu.Unlock()
		return hw == nil // an HTTP request still needs an answer: the SDK's
	}
	if hw != nil {
		if up.raw[string(c.upID)] != nil { // an id in use: the SDK's error
			up.mu.Unlock()
			return false
		}
		hw.c = c
	}
	up.raw[string(c.upID)] = c
	up.mu.Unlock()
	g.calls.add(c)
	c.dl.Start(g.timeout(), func() { g.expire(c) })
	end, written, err := r.sess.WriteCall(c.n, out)
	if err != nil {
		if g.calls.take(c.n) != nil {
			c.dl.Stop()
			c.finish(wire.ErrorLine(c.upID, codeInternal, unsentText(r.server, err)))
			g.recordCall(c, OutcomeError)
		}
		return true
	}
	c.stdinEnd.Store(end)
	if written && g.calls.inFlight() == 1 {
		wire.HandOff()
	}
	return true
}

// callName is the tool a tools/call that passed wire.CheckMessage names,
// and where the name is in its params: what the fast path routes on.
func callName(line []byte, p *wire.Peek) (string, wire.Span, bool) {
	if !p.Params.OK() {
		return "", wire.Span{}, false
	}
	params := p.Params.Of(line)
	sp := wire.Field(params, "name")
	name, ok := wire.RawString(sp.Of(params))
	return name, sp, ok
}

func sortEdits(e []wire.Edit) {
	for i := 1; i < len(e); i++ {
		for j := i; j > 0 && e[j].Start < e[j-1].Start; j-- {
			e[j], e[j-1] = e[j-1], e[j]
		}
	}
}

// fastCancel passes the assistant's notifications/cancelled for a
// fast-path call to the server, under the gateway's id.
func (up *upstream) fastCancel(line []byte, p *wire.Peek) bool {
	if !p.Params.OK() {
		return false
	}
	params := p.Params.Of(line)
	id := wire.Field(params, "requestId")
	if !id.OK() {
		return false
	}
	up.mu.Lock()
	c := up.raw[string(id.Of(params))]
	if c != nil {
		delete(up.raw, string(c.upID))
	}
	up.mu.Unlock()
	if c == nil {
		return false
	}
	if up.g.calls.take(c.n) != nil {
		c.dl.Stop()
		if c.stop != nil { // its questions wait (gateway_input.go)
			c.stop()
		}
		reason := "cancelled by the client"
		if r := wire.Field(params, "reason"); r.OK() {
			if s, ok := wire.RawString(r.Of(params)); ok && s != "" {
				reason = s
			}
		}
		up.g.cancelDownstream(c.sess, c.n, reason)
		up.g.recordCall(c, OutcomeCancelled)
		if c.hw != nil { // its request is still open: end it
			c.hw.deliver(wire.ErrorLine(c.upID, codeCancelled, "request cancelled: "+reason))
		}
	}
	return true
}

// decodeBatch decodes the messages of a batch. An element that
// wire.CheckMessage refuses goes to refused, once the batch is known to
// delimit, and the others are decoded; an element that does not decode
// fails the whole batch.
func decodeBatch(b []byte, refused func(elem []byte, err error)) ([]jsonrpc.Message, error) {
	type bad struct {
		elem []byte
		err  error
	}
	var (
		msgs []jsonrpc.Message
		bads []bad
	)
	i := wire.SkipWS(b, 1)
	for i < len(b) && b[i] != ']' {
		e := wire.SkipValue(b, i)
		if e < 0 {
			return nil, wire.ErrNotObject
		}
		elem := b[i:e]
		if _, err := wire.CheckMessage(elem); err != nil {
			bads = append(bads, bad{elem, err})
		} else {
			m, err := jsonrpc.DecodeMessage(elem)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		i = wire.SkipWS(b, e)
		switch {
		case i < len(b) && b[i] == ',':
			i = wire.SkipWS(b, i+1)
		case i < len(b) && b[i] == ']':
		default:
			return nil, errors.New("a batch element is not followed by a comma or ]")
		}
	}
	if i >= len(b) || wire.SkipWS(b, i+1) != len(b) {
		return nil, errors.New("a batch must end with ] and nothing after it")
	}
	if len(msgs)+len(bads) == 0 {
		return nil, errors.New("empty batch")
	}
	for _, x := range bads {
		refused(x.elem, x.err)
	}
	return msgs, nil
}

// upConn is the SDK's side of a stream session: ServeStream's read loop
// delivers the messages the fast path left, and the SDK's writes go to the
// stream's writer.
type upConn struct {
	w    *wire.StreamWriter
	msgs chan jsonrpc.Message // read loop → Read; unbuffered

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // guarded by mu: the assistant's requests the SDK has not answered

	closeOnce sync.Once
	closed    chan struct{}
}

func (c *upConn) deliver(m jsonrpc.Message) {
	if req, ok := m.(*jsonrpc.Request); ok {
		switch {
		case req.IsCall():
			c.mu.Lock()
			c.pending[req.ID] = true
			c.mu.Unlock()
		case req.Method == "notifications/cancelled":
			c.forgetCancelled(req.Params) // no answer is due any more
		}
	}
	select {
	case c.msgs <- m:
	case <-c.closed:
	}
}

func (c *upConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.msgs:
		return m, nil
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *upConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	select {
	case <-c.closed:
		return sdk.ErrConnectionClosed
	default:
	}
	c.w.Send(append(data, '\n'))
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		c.mu.Unlock()
	}
	return nil
}

func (c *upConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *upConn) SessionID() string { return "" }
