package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC error codes the gateway answers with.
const (
	codeTimeout   = -32001 // the server did not answer within the call timeout
	codeCancelled = -32800 // the client cancelled the request (LSP's RequestCancelled)
	codeInternal  = jsonrpc.CodeInternalError
)

// A call is one tools/call in flight to a downstream server. It is in the
// gateway's call table from the moment its request is written until one
// party takes it out (calls.take): the reply, the deadline, a cancellation,
// the end of either session. Whoever takes it answers it.
type call struct {
	n       uint64 // the gateway's number: request id and progress token "gw-N"
	up      *upstream
	server  string
	tool    string // the server's own name for the tool
	sess    *downstream.Session
	started time.Time // for OnToolCall
	// method is set for a request other than tools/call relayed the same
	// way (tasks/get, … : gateway_tasks.go); it is not a tool call.
	method string
	task   bool // a task-augmented tools/call: its reply names the task
	// newWire is set for a call on the 2026-07-28 wire: its result is
	// made complete for the assistant (gateway_wire26.go), and no request
	// of the server's goes to the assistant.
	newWire bool
	// logLevel is a 2026-07-28 call's io.modelcontextprotocol/logLevel
	// ("" none): the server's log messages during the call reach its
	// assistant at that level and above (gateway_loglevel.go).
	logLevel string

	// Fast path (stream upstream, stdio server): raw bytes.
	upID    []byte     // the assistant's request id as sent; nil on the slow path
	upToken []byte     // the assistant's progress token as sent; nil if none
	hw      *httpReply // an HTTP session's fast-path call: where its answer goes; nil on a stream

	// A new-wire server's call (gateway_input.go): the request as last
	// sent, for the next round of input_required, and the rounds so far.
	// Written by whoever holds the call out of the table.
	sent   []byte
	rounds int
	// upCaps are the clientCapabilities of a 2026-07-28 call's assistant
	// (its request's _meta), which say what of a server's input_required
	// may be relayed to it (gateway_input.go).
	upCaps []byte

	// Slow path (through the SDK's server).
	ctx     context.Context // the handler's context: its values route HTTP messages to the call's stream
	token   any             // the assistant's progress token; nil if none
	reply   chan []byte     // the server's reply line, for stdio servers
	round   chan parkRound  // a 2026-07-28 call's parked round, for stdio servers (gateway_park.go)
	sdkDone chan sdkAnswer  // a parked prompts/get or resources/read: its answer (gateway_park_sdk.go); nil for a tools/call
	http    chan httpAnswer // a parked call's answer from an HTTP server (gateway_park_http.go)
	expired *atomic.Bool    // set when a parked HTTP call's deadline passed
	stop    func()          // cancels the slow path's wait (its client went away)

	dl       downstream.Deadline
	progress atomic.Uint64 // math.Float64bits of the last progress value sent upstream
	stdinEnd atomic.Uint64 // where its request ends in the bytes sent to a stdio server (WriteCall); 0 until written

	// HTTP servers: progress notifications seen in the stream and passed
	// on (see progressTap).
	progressSeen, progressSent atomic.Uint64
	progressed                 chan struct{}
}

func (c *call) hasToken() bool { return c.upToken != nil || c.token != nil }

// finish answers a fast-path call and forgets it in its session. A
// stream's call is forgotten after its answer is out, so that a stream
// draining after its input ended (upstream.drain) never finds it gone
// first. An HTTP call is forgotten before: the client has the answer as
// soon as it is delivered and may reuse the id at once, which fastCall
// would take for an id still in use.
func (c *call) finish(line []byte) {
	if c.hw != nil {
		c.up.forgetRaw(c)
		c.hw.deliver(line)
		afterAnswer()
		return
	}
	written := c.up.send(line)
	afterAnswer()
	c.up.forgetRaw(c)
	if written && c.up.g.calls.inFlight() == 0 {
		wire.HandOff() // the assistant has the answer and nothing else waits
	}
}

// afterAnswer runs once finish has handed an answer over; tests make it
// slow, to see what a client that is quicker than the rest of finish sees.
var afterAnswer = func() {}

// callTable holds the calls in flight, by number.
type callTable struct {
	mu sync.Mutex
	m  map[uint64]*call // guarded by mu
}

func (t *callTable) add(c *call) {
	t.mu.Lock()
	t.m[c.n] = c
	t.mu.Unlock()
}

// inFlight is the number of calls in the table.
func (t *callTable) inFlight() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

func (t *callTable) get(n uint64) *call {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[n]
}

// take removes the call and returns it, or nil if someone else took it.
func (t *callTable) take(n uint64) *call {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.m[n]
	delete(t.m, n)
	return c
}

// takeFrom is take for a reply from sess: a call in flight to another
// session stays in the table (other reports that there was one).
func (t *callTable) takeFrom(n uint64, sess *downstream.Session) (c *call, other bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c = t.m[n]
	if c != nil && c.sess != sess {
		return nil, true
	}
	delete(t.m, n)
	return c, false
}

// latestFor is the most recent call in flight to sess that an assistant
// made (not the gateway's own requests: rawRequest).
func (t *callTable) latestFor(sess *downstream.Session) *call {
	t.mu.Lock()
	defer t.mu.Unlock()
	var latest *call
	for _, c := range t.m {
		if c.sess == sess && c.up != nil && (latest == nil || c.n > latest.n) {
			latest = c
		}
	}
	return latest
}

// matching returns the calls that match, leaving them in the table.
func (t *callTable) matching(match func(*call) bool) []*call {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*call
	for _, c := range t.m {
		if match(c) {
			out = append(out, c)
		}
	}
	return out
}

// takeWhere removes and returns the calls that match.
func (t *callTable) takeWhere(match func(*call) bool) []*call {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []*call
	for n, c := range t.m {
		if match(c) {
			out = append(out, c)
			delete(t.m, n)
		}
	}
	return out
}

// rawResult is a tools/call result exactly as the server sent it: the SDK
// marshals it back into the same bytes (compacted).
type rawResult struct {
	sdk.ResultBase
	raw json.RawMessage
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// forward is the slow path of a tools/call: through the SDK's server on the
// upstream side, raw to a stdio server or with the SDK's client to an HTTP
// server.
func (g *Gateway) forward(ctx context.Context, up *upstream, server, tool string, args json.RawMessage, meta sdk.Meta) (res sdk.Result, err error) {
	if g.opts.OnToolCall != nil {
		defer g.recordForward(ctx, server, tool, time.Now(), &res, &err)
	}
	sess := g.session(server)
	if sess == nil {
		return errorResult(g.notReadyText(server)), nil
	}
	if p, qs, err := g.parkedRetry(ctx, server, tool); err != nil || p != nil { // gateway_park_resume.go
		if err != nil {
			return nil, err
		}
		return g.resumeCall(ctx, up, p, qs, meta)
	}
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	c := &call{n: g.nextID.Add(1), up: up, server: server, tool: tool, sess: sess, ctx: ctx, newWire: requestIsNew(meta)}
	if c.newWire {
		c.logLevel = requestLevel(meta) // gateway_loglevel.go
	}
	gwID := wire.GWIDPrefix + strconv.FormatUint(c.n, 10)
	var dmeta sdk.Meta
	if meta != nil {
		dmeta = make(sdk.Meta, len(meta))
		for k, v := range meta {
			dmeta[k] = v
		}
		if c.newWire {
			c.upCaps, _ = json.Marshal(meta[metaClientCaps]) // what may be relayed to it (gateway_input.go, gateway_park.go)
		}
		stripWireKeys(dmeta, c.newWire && speaksNew(sess), c.newWire && !speaksNew(sess)) // gateway_wire26.go
		if c.logLevel != "" && c.newWire && speaksNew(sess) {
			dmeta[metaLogLevel] = moreVerbose(c.logLevel, sess.LogLevel())
		}
		if tok, ok := meta["progressToken"]; ok && tok != nil {
			c.token = tok
			dmeta["progressToken"] = gwID
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.stop = cancel
	var expired atomic.Bool
	defer g.levelForCall(ctx, c)() // gateway_loglevel.go

	if !sess.Stdio() { // an HTTP server: the SDK's client does the work
		if c.newWire && !sess.NewWire() {
			return g.forwardHTTPParked(ctx, c, &sdk.CallToolParams{Meta: dmeta, Name: tool, Arguments: args}) // gateway_park_http.go
		}
		c.progressed = make(chan struct{}, 1)
		g.calls.add(c)
		c.dl.Start(g.timeout(), func() { expired.Store(true); cancel() })
		defer c.dl.Stop()
		defer g.calls.take(c.n)
		cctx, stop := sess.CallContext(ctx)
		defer stop()
		res, err := g.callHTTP(cctx, c, &sdk.CallToolParams{Meta: dmeta, Name: tool, Arguments: args}) // gateway_input.go
		var relay *relayed
		switch {
		case errors.As(err, &relay):
			return &rawResult{raw: relay.result}, nil
		case err == nil:
			c.awaitProgress(ctx)
			if sess.HasSecrets() || sess.NewWire() {
				if b, err := json.Marshal(res); err == nil {
					return &rawResult{raw: sess.RedactJSON(oldWireResult(sess, b))}, nil // gateway_input.go
				}
			}
			return res, nil
		case expired.Load():
			return nil, g.timeoutError(server, tool)
		case ctx.Err() == nil && sess.Context().Err() != nil:
			return nil, diedError(server, sess)
		}
		g.urlRequiredErr(c, err)
		return nil, sess.RedactErr(err)
	}

	params := struct {
		Meta      sdk.Meta        `json:"_meta,omitempty"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}{dmeta, tool, args}
	pb, err := json.Marshal(params)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments: " + err.Error()}
	}
	line := make([]byte, 0, len(pb)+64)
	line = append(line, `{"jsonrpc":"2.0","id":"`...)
	line = append(line, gwID...)
	line = append(line, `","method":"tools/call","params":`...)
	line = append(line, pb...)
	line = append(line, "}\n"...)

	if !c.newWire || !speaksNew(sess) { // else stripWireKeys gave it mcptray's keys
		line = withWireMeta(sess, line) // gateway_input.go
	}
	if line, err = g.retryOf(ctx, c, line); err != nil { // gateway_input.go
		return nil, err
	}
	c.reply = make(chan []byte, 1)
	if c.newWire {
		c.round = make(chan parkRound, 1)
	}
	defer c.dl.Stop()
	c.dl.Start(g.timeout(), func() { expired.Store(true); cancel() })
send:
	g.calls.add(c)
	end, _, err := sess.WriteCall(c.n, line)
	if err != nil {
		g.calls.take(c.n)
		return nil, &jsonrpc.Error{Code: codeInternal, Message: unsentText(server, err)}
	}
	c.stdinEnd.Store(end)
	select {
	case reply := <-c.reply:
		if next, err := g.nextRound(ctx, c, line, reply); err != nil || next != nil { // gateway_input.go
			var relay *relayed
			if errors.As(err, &relay) {
				return &rawResult{raw: relay.result}, nil
			}
			if err != nil {
				return nil, inputRPCError(sess, err)
			}
			line = next
			c.dl.Restart(g.timeout(), func() { expired.Store(true); cancel() })
			goto send
		}
		if relay := g.oldWireRound(c, reply); relay != nil { // gateway_park_resume.go
			return &rawResult{raw: relay.result}, nil
		}
		return finalResult(sess, reply)
	case r := <-c.round: // gateway_park.go
		return r.answer()
	case <-ctx.Done():
		if g.calls.take(c.n) == nil {
			select { // the reply, or a parked round, won the race
			case reply := <-c.reply:
				return finalResult(sess, reply)
			case r := <-c.round:
				return r.answer()
			}
		}
		reason := "cancelled by the client"
		if expired.Load() {
			reason = "timed out in mcptray"
		}
		withdrawn := g.cancelDownstream(sess, c.n, reason)
		switch {
		case expired.Load() && withdrawn:
			return nil, &jsonrpc.Error{Code: codeTimeout, Message: g.notReadText(server, tool)}
		case expired.Load():
			return nil, g.timeoutError(server, tool)
		}
		return nil, ctx.Err()
	case <-sess.Done():
		if g.calls.take(c.n) == nil {
			select {
			case reply := <-c.reply:
				return finalResult(sess, reply)
			case r := <-c.round:
				return r.answer()
			}
		}
		return nil, diedError(server, sess)
	}
}

// replyResult turns a server's reply line into the slow path's answer.
func replyResult(line []byte) (sdk.Result, error) {
	p, err := wire.PeekMessage(line)
	if err != nil {
		return nil, &jsonrpc.Error{Code: codeInternal, Message: "unreadable reply from the server"}
	}
	if p.Err.OK() {
		var we jsonrpc.Error
		if err := json.Unmarshal(p.Err.Of(line), &we); err != nil {
			return nil, &jsonrpc.Error{Code: codeInternal, Message: "unreadable error from the server"}
		}
		return nil, &we
	}
	if !p.Result.OK() {
		return nil, &jsonrpc.Error{Code: codeInternal, Message: "reply from the server has no result"}
	}
	return &rawResult{raw: p.Result.Of(line)}, nil
}

func (g *Gateway) timeoutError(server, tool string) error {
	return &jsonrpc.Error{Code: codeTimeout, Message: g.timeoutText(server, tool)}
}

func (g *Gateway) timeoutText(server, tool string) string {
	return fmt.Sprintf("server %q did not answer tool %q within %s; the call was cancelled", server, tool, g.timeout())
}

// notReadText is the timeout's answer to a call whose request still
// waited in the server's stdin queue (so it was never sent).
func (g *Gateway) notReadText(server, tool string) string {
	return fmt.Sprintf("server %q did not read the call of tool %q within %s (it is not reading its input); the call was not sent", server, tool, g.timeout())
}

// unsentText is the answer to a call whose request could not be written
// to the server.
func unsentText(server string, err error) string {
	if nr := (*downstream.NotReadingError)(nil); errors.As(err, &nr) {
		return notReadingText(server, nr.After, "not sent")
	}
	if errors.Is(err, downstream.ErrStdinFull) {
		return fmt.Sprintf("server %q is not reading its input (%d MiB wait to be written to it); the call was not sent", server, downstream.MaxStdinQueue>>20)
	}
	return fmt.Sprintf("server %q is not reachable: %v", server, err)
}

func diedError(server string, sess *downstream.Session) error {
	return &jsonrpc.Error{Code: codeInternal, Message: diedText(server, sess)}
}

func diedText(server string, sess *downstream.Session) string {
	reason := sess.ExitReason()
	if reason == "" {
		return fmt.Sprintf("server %q stopped during the call", server)
	}
	return fmt.Sprintf("server %q stopped during the call (%s)", server, reason)
}

// errorResult is an isError tools/call result with one text block.
func errorResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// cancelDownstream tells a server that the gateway gave up on a request
// it sent as bytes (for an HTTP server: through Session.WriteLine; the
// SDK's client cancels the calls it made itself). A request still
// waiting in a stdio server's stdin queue is taken back instead, and
// withdrawn says so. It never waits for the server.
func (g *Gateway) cancelDownstream(sess *downstream.Session, n uint64, reason string) (withdrawn bool) {
	if sess.Withdraw(n) {
		return true
	}
	b := make([]byte, 0, 128)
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	b = wire.AppendGWID(b, n)
	b = append(b, `,"reason":`...)
	b = append(b, wire.QuoteJSON(reason)...)
	b = append(b, "}}\n"...)
	sess.WriteLine(b)
	return false
}

// Tap is the stdout tap of a session the gateway routes for: replies to
// gateway requests, progress with gateway tokens, and elicitation requests
// (taken before the SDK, which refuses format "password") are the
// gateway's.
func (a *gwAttachment) Tap(s *downstream.Session, line []byte, p *wire.Peek) bool {
	if !p.Method.OK() {
		if n, ok := wire.ParseGWID(p.ID.Of(line)); ok {
			if why := a.g.rawReply(s, n, line, p); why != "" {
				s.LogStray(p.ID.Of(line), why)
			}
			return true
		}
		return false
	}
	if a.g.taskStatus(s, line, p) { // gateway_tasks.go
		return true
	}
	switch {
	case p.Method.Is(line, `"notifications/progress"`) && !p.ID.OK() && p.Params.OK():
		pb := p.Params.Of(line)
		tok := wire.Field(pb, "progressToken")
		if n, ok := wire.ParseGWID(tok.Of(pb)); ok {
			a.g.rawProgress(s, n, line, tok.Within(p.Params), p.Params)
			return true
		}
	case p.Method.Is(line, `"notifications/message"`) && !p.ID.OK() && p.Params.OK():
		// Taken here rather than by the SDK's client, so that a message
		// logged during a call is passed on before the call's reply: on
		// HTTP it then still goes out on the call's stream.
		var lp sdk.LoggingMessageParams
		if json.Unmarshal(s.RedactJSON(p.Params.Of(line)), &lp) != nil {
			return false
		}
		s.LogMessage(&lp)
		a.g.downstreamLog(a.name, s, &lp)
		return true
	case p.Method.Is(line, `"roots/list"`) && p.ID.OK():
		return a.g.tapParked(s, "roots/list", line, p) // gateway_park_resume.go
	default:
		return a.TapElicit(s, line, p)
	}
	return false
}

// rawReply takes a stdio server's reply to a gateway request. It returns
// why the reply answers no call ("" when it answered one).
func (g *Gateway) rawReply(s *downstream.Session, n uint64, line []byte, p *wire.Peek) (stray string) {
	c, other := g.calls.takeFrom(n, s)
	if c == nil {
		if other {
			return downstream.StrayOtherServer
		}
		return downstream.StrayNotInFlight // cancelled, timed out, or its client left
	}
	c.dl.Stop()
	if p.Err.OK() {
		g.urlRequired(c, c.sess.RedactJSON(p.Err.Of(line)))
	}
	if c.reply != nil {
		c.reply <- bytes.Clone(line)
		return ""
	}
	if c.sent != nil && p.Result.OK() && isInputRequired(p.Result.Of(line)) {
		go g.fastInput(c, bytes.Clone(line)) // gateway_input.go
		return ""
	}
	if c.task {
		g.taskCreated(c, line, p) // before the assistant can ask for it
	}
	if c.newWire && c.hw != nil && p.Err.OK() {
		c.hw.status = errorStatus(line, p) // gateway_wire26.go
	}
	c.finish(c.sess.RedactJSON(upReply(c, line, p))) // gateway_input.go
	g.recordReply(c, line, p)
	return ""
}

// rawProgress passes a stdio server's progress notification with a
// gateway token to the assistant that made the call, with its own token.
func (g *Gateway) rawProgress(s *downstream.Session, n uint64, line []byte, tok, params wire.Span) {
	c := g.calls.get(n)
	if c == nil || c.sess != s {
		return
	}
	pb := params.Of(line)
	if v := wire.Field(pb, "progress"); v.OK() {
		if f, err := strconv.ParseFloat(string(v.Of(pb)), 64); err == nil {
			c.progress.Store(math.Float64bits(f))
		}
	}
	if c.upToken != nil {
		c.up.send(c.sess.RedactJSON(wire.Splice(line, wire.Edit{Start: tok.Start, End: tok.End, Repl: c.upToken})))
		return
	}
	var pp sdk.ProgressNotificationParams
	if err := json.Unmarshal(c.sess.RedactJSON(pb), &pp); err != nil {
		return
	}
	c.notifyProgress(&pp)
}

// typedProgress is rawProgress for what the SDK's client decoded (HTTP
// servers, or a gateway token the line tap did not see).
func (g *Gateway) typedProgress(p *sdk.ProgressNotificationParams) {
	tok, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	n, ok := wire.ParseGWID([]byte(strconv.Quote(tok)))
	if !ok {
		return
	}
	c := g.calls.get(n)
	if c == nil {
		return
	}
	c.progress.Store(math.Float64bits(p.Progress))
	cp := *p
	cp.Message = c.sess.RedactText(cp.Message)
	c.notifyProgress(&cp)
	if c.progressed != nil {
		c.progressPassed()
	}
}

// notifyProgress sends progress to the call's assistant under its token.
func (c *call) notifyProgress(p *sdk.ProgressNotificationParams) {
	if c.upToken != nil {
		p.ProgressToken = json.RawMessage(c.upToken)
		b, err := json.Marshal(p)
		if err != nil {
			return
		}
		line := make([]byte, 0, len(b)+64)
		line = append(line, `{"jsonrpc":"2.0","method":"notifications/progress","params":`...)
		line = append(line, b...)
		line = append(line, "}\n"...)
		c.up.send(line)
		return
	}
	p.ProgressToken = c.token
	c.up.ss.NotifyProgress(context.WithoutCancel(c.ctx), p)
}

// failCalls answers the fast-path calls to a server whose session ended
// (the slow path watches the session itself).
func (g *Gateway) failCalls(sess *downstream.Session) {
	for _, c := range g.calls.takeWhere(func(c *call) bool { return c.sess == sess && c.upID != nil }) {
		c.dl.Stop()
		c.finish(wire.ErrorLine(c.upID, codeInternal, diedText(c.server, sess)))
		g.recordCall(c, OutcomeError)
	}
}

// expire ends a fast-path call whose deadline passed.
func (g *Gateway) expire(c *call) {
	if g.calls.take(c.n) == nil {
		return
	}
	text := g.timeoutText(c.server, c.tool)
	if c.method != "" {
		text = fmt.Sprintf("server %q did not answer %s within %s; the request was cancelled", c.server, c.method, g.timeout())
	}
	if g.cancelDownstream(c.sess, c.n, "timed out in mcptray") {
		text = g.notReadText(c.server, c.tool)
		if c.method != "" {
			text = fmt.Sprintf("server %q did not read %s within %s (it is not reading its input); the request was not sent", c.server, c.method, g.timeout())
		}
	}
	c.finish(wire.ErrorLine(c.upID, codeTimeout, text))
	g.recordCall(c, OutcomeTimeout)
}

// callBuiltin runs one of mcptray's own tools.
func callBuiltin(ctx context.Context, b *BuiltinTool, args json.RawMessage) (sdk.Result, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	structured, text, err := b.Call(ctx, args)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: structured}
	return res, nil
}

// builtinTool is a builtin's tools/list entry.
func builtinTool(b *BuiltinTool, name string) *sdk.Tool {
	schema := b.InputSchema
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	var m map[string]any
	if json.Unmarshal(schema, &m) != nil || m["type"] != "object" {
		m = map[string]any{"type": "object"}
	}
	return &sdk.Tool{Name: name, Description: b.Description, InputSchema: m}
}
