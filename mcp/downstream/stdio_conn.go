package downstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file covers the SDK's gaps on the stdio transport (see DESIGN.md §3):
//
//   - a line on the child's stdout that is not JSON-RPC (a banner, a JSON log
//     line) is logged as "stdout" and skipped, instead of ending the session;
//   - a line over 16 MiB is discarded and reported, the session goes on;
//     a reply among them still fails its request at once, with an error in
//     its place, when its id is among the members at either end of the line
//     (wire.CutReplyID);
//   - notifications with a method outside the protocol ("event/new_email")
//     are taken out and handed to Hooks.Event: the SDK would drop them;
//   - JSON-RPC batches (arrays) are split into single messages;
//   - invalid UTF-8 is replaced, tools/list entries with a key twice are
//     left out, and replies that answer nothing are logged
//     (stdio_checks.go).
//
// Closing the connection closes the child's stdin only; the process itself
// is stopped by Session (process group, escalation).

// stdioConn is an sdk.Connection over a child's stdin and stdout.
type stdioConn struct {
	hooks Hooks
	in    *wire.PipeFile // the child's stdin (our write end)
	out   *wire.PipeFile // the child's stdout (our read end); closed by closeOut

	stdin *stdinQueue // every write to in: whole lines, never waiting on the child

	sdkReqs sdkRequests // the SDK's requests awaiting a reply
	strays  strays      // replies that answered nothing

	// toolsPage is the last tools/list result as the server sent it (after
	// checkTools), for Session.ListTools, which lists one page at a time
	// (Session.listMu) and takes it after each page (tools_raw.go).
	toolsPage atomic.Pointer[json.RawMessage]

	// lost, when set, fails the oldest call in flight for a reply over
	// 16 MiB whose id was not found (Router.LostReply); set by Attach.
	lost atomic.Pointer[func(why string) bool]

	// tap, when set, sees each single-message stdout line first and takes
	// the ones it returns true for (the gateway's raw replies, progress
	// and server→client requests); the line is valid only during the call.
	// Called from the read loop: it must not block.
	tap atomic.Pointer[lineTap]

	msgs     chan jsonrpc.Message // read loop → Read; unbuffered
	readDone chan struct{}        // closed when the read loop ends (EOF or error)
	readErr  error                // why the read loop ended; set before readDone closes
	eofFirst bool                 // stdout ended before Close; set before readDone closes

	closeOnce sync.Once
	closed    chan struct{} // closed by Close

	endOnce sync.Once
	ended   chan struct{} // closed on readDone or closed, whichever is first
}

func newStdioConn(in, out *os.File, hooks Hooks, w stdinWatch) *stdioConn {
	pin := wire.NewPipeFile(in)
	c := &stdioConn{
		hooks:    hooks,
		in:       pin,
		stdin:    newStdinQueue(pin, w),
		out:      wire.NewPipeFile(out),
		msgs:     make(chan jsonrpc.Message),
		readDone: make(chan struct{}),
		closed:   make(chan struct{}),
		ended:    make(chan struct{}),
	}
	go c.readLoop()
	return c
}

// lineTap is the type of stdioConn.tap.
type lineTap func(line []byte, p *wire.Peek) bool

// ConnTransport hands an already made connection to Client.Connect.
type ConnTransport struct{ Conn sdk.Connection }

// Connect returns t.Conn.
func (t ConnTransport) Connect(context.Context) (sdk.Connection, error) { return t.Conn, nil }

// readLoop reads stdout until EOF. It keeps reading after Close, so a child
// that is still writing never blocks on a full pipe; messages read after
// Close are dropped.
func (c *stdioConn) readLoop() {
	lr := wire.NewLineReader(c.out, wire.MaxLineBytes)
	for {
		line, skipped, err := lr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				c.readErr = fmt.Errorf("reading stdout: %w", err)
			}
			break
		}
		if skipped > 0 {
			c.log("stdout", fmt.Sprintf("line over 16 MiB discarded (%d bytes)", skipped))
			why := fmt.Sprintf("the server's reply of %d bytes is over mcptray's 16 MiB limit", skipped)
			head, tail := lr.Cut()
			if id, ok := wire.CutReplyID(head, tail); ok {
				// A reply too long to take still ends its request now,
				// not at its timeout.
				c.handleLine(wire.ErrorLine(id, jsonrpc.CodeInternalError, why))
			} else if !wire.CutRequest(head, tail) {
				// A reply, perhaps, whose id is in the middle: the
				// oldest call in flight is the likeliest to be its.
				c.lostReply(why)
			}
			continue
		}
		c.handleLine(line)
	}
	select {
	case <-c.closed:
	default:
		c.eofFirst = true
	}
	close(c.readDone)
	c.end()
}

// handleLine delivers the messages on one stdout line, or logs the line.
func (c *stdioConn) handleLine(line []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return
	}
	if !utf8.Valid(t) {
		t = validUTF8(t)
	}
	switch t[0] {
	case '{':
		if p, err := wire.PeekMessage(t); err == nil {
			if c.refusedRequest(t, &p) {
				return
			}
			if c.tapped(t, &p) {
				return
			}
			if c.takeEvent(t, &p) {
				return
			}
		}
		msg, err := jsonrpc.DecodeMessage(t)
		if err != nil {
			c.log("stdout", wire.LogText(line))
			return
		}
		c.deliver(msg)
	case '[':
		var batch []json.RawMessage
		if err := json.Unmarshal(t, &batch); err != nil || len(batch) == 0 {
			c.log("stdout", wire.LogText(line))
			return
		}
		for _, raw := range batch {
			if p, err := wire.PeekMessage(raw); err == nil && (c.refusedRequest(raw, &p) || c.tapped(raw, &p)) {
				continue // a reply to the gateway, say, in a batch
			}
			msg, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				c.log("stdout", wire.LogText(raw))
				continue
			}
			c.deliver(msg)
		}
	default:
		c.log("stdout", wire.LogText(line))
	}
}

// lostReply fails the oldest call in flight for a reply too long to
// read whose id was not found, and logs which way it went.
func (c *stdioConn) lostReply(why string) {
	if f := c.lost.Load(); f != nil && (*f)(why) {
		c.log("stdout", "its id was not at either end: the oldest call in flight failed in its place")
		return
	}
	c.log("stdout", "its id was not at either end, and no call is in flight")
}

// tapped hands one message to the tap; it reports whether the tap took it.
func (c *stdioConn) tapped(b []byte, p *wire.Peek) bool {
	tap := c.tap.Load()
	return tap != nil && (*tap)(b, p)
}

func (c *stdioConn) deliver(msg jsonrpc.Message) {
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() && isEventMethod(req.Method) {
		if c.hooks.Event != nil {
			c.hooks.Event(req.Method, req.Params)
		}
		return
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		method, waited := c.sdkReqs.take(resp.ID)
		if !waited {
			c.logStray(rawID(resp.ID), strayNoRequest)
			return // the SDK would drop it without a word
		}
		if method == "tools/list" && resp.Result != nil {
			resp.Result = c.checkTools(resp.Result)
			page := bytes.Clone(resp.Result)
			c.toolsPage.Store((*json.RawMessage)(&page))
		}
	}
	select {
	case c.msgs <- msg:
	case <-c.closed:
	}
}

// takeEvent hands a notification with a method outside the protocol to
// Hooks.Event without decoding the line (the SDK's decoder allocates a
// large buffer per message, which a burst of events feels). A line it
// cannot vouch for (an escaped method, params that are not valid JSON)
// is left to the decoder, which logs what it refuses.
func (c *stdioConn) takeEvent(line []byte, p *wire.Peek) bool {
	if !p.Method.OK() || p.ID.OK() || p.Result.OK() || p.Err.OK() {
		return false
	}
	method, ok := wire.RawString(p.Method.Of(line))
	if !ok || !isEventMethod(method) {
		return false
	}
	var params json.RawMessage
	if p.Params.OK() {
		params = p.Params.Of(line)
		if !json.Valid(params) {
			return false
		}
		params = bytes.Clone(params)
	}
	if c.hooks.Event != nil {
		c.hooks.Event(method, params)
	}
	return true
}

// clientBoundRequests are the methods a server may send to a client as
// requests; a notification with one of these names is still the SDK's.
var clientBoundRequests = map[string]bool{
	"ping":                   true,
	"roots/list":             true,
	"sampling/createMessage": true,
	"elicitation/create":     true,
}

// isEventMethod reports whether a notification's method is outside the
// protocol: not "notifications/…" and not a request method the SDK knows.
func isEventMethod(method string) bool {
	return !strings.HasPrefix(method, "notifications/") && !clientBoundRequests[method]
}

func (c *stdioConn) log(kind, line string) {
	if c.hooks.Log != nil {
		c.hooks.Log(kind, line)
	}
}

// Read implements sdk.Connection. It unblocks on Close.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.msgs:
		return msg, nil
	case <-c.readDone:
		if c.readErr != nil {
			return nil, c.readErr
		}
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements sdk.Connection: one message per line, queued for the
// child's stdin (stdinQueue); it never waits for the child.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	data = append(data, '\n')
	c.sdkReqs.sent(msg) // before the write: the reply may come before it returns
	if _, _, err := c.writeLine(data, 0); err != nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.sdkReqs.take(req.ID)
		}
		return err
	}
	return nil
}

// writeLine writes one ready-made line (ending in '\n') to the child's
// stdin, between whole messages of the SDK, or queues it (stdinQueue). It
// never waits for the child; it fails once the connection is closed or
// when the child's queue is full. tag (non-zero) lets withdraw take the
// line back while none of it is written.
func (c *stdioConn) writeLine(line []byte, tag uint64) (end uint64, written bool, err error) {
	select {
	case <-c.closed:
		return 0, false, sdk.ErrConnectionClosed
	default:
	}
	return c.stdin.send(line, tag)
}

// Close implements sdk.Connection: it closes the child's stdin (the polite
// way to ask a stdio server to exit) and unblocks Read. Idempotent.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.stdin.close(sdk.ErrConnectionClosed)
		c.in.Close() // this also unblocks the queue's stuck write
		c.end()
	})
	return nil
}

// peerClosed reports whether the child closed its stdout before we closed
// the connection.
func (c *stdioConn) peerClosed() bool {
	select {
	case <-c.readDone:
		return c.eofFirst
	default:
		return false
	}
}

func (c *stdioConn) end() { c.endOnce.Do(func() { close(c.ended) }) }

// closeOut closes our end of stdout, ending the read loop even if some
// process outside the group still holds the pipe.
func (c *stdioConn) closeOut() { c.out.Close() }

// SessionID implements sdk.Connection; stdio has no session id.
func (c *stdioConn) SessionID() string { return "" }
