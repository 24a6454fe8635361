package downstream

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"

	"github.com/mcptray/mcptray/mcp/wire"
)

// The checks a stdio server's messages get (stdio_checks.go) hold for an
// HTTP server too, although the SDK's client decodes its messages: checkTap,
// the lowest RoundTripper of the http.Client the SDK uses, rewrites every
// response body before anything above it reads a byte.
//
//   - A request to the client (elicitation, sampling, roots, any method)
//     that fails wire.Check — a key twice at any depth, escapes decoded —
//     is taken out of the body: in an event stream its event is passed on
//     without its data (the SDK skips an event without data; its id still
//     counts for resuming the stream); an application/json body holding one
//     becomes an error answer to the request the body answers. The server
//     is answered with the same -32600 error a stdio server gets (posted on
//     the session, as http_raw.go posts), and its log has a line.
//   - The response to a tools/list request is passed on without the
//     entries that hold a key twice (checkToolsResult, as for stdio).
//
// An event or body longer than wire.MaxLineBytes is passed on unexamined:
// the SDK fails a longer event itself (its DefaultMaxEventSize is the same
// 16 MiB), and a body that long is no request to the client.

// checkTap wraps an HTTP server's transport, below toolsTap and progressTap,
// which thus see what the SDK sees.
type checkTap struct {
	base http.RoundTripper
	sess *Session
}

func (t *checkTap) RoundTrip(req *http.Request) (*http.Response, error) {
	id, method := postedCall(req)
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	c := checker{sess: t.sess, posted: id}
	if method == "tools/list" {
		c.toolsID = id
	}
	switch mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt {
	case "text/event-stream":
		resp.Body = &checkedEvents{body: resp.Body, c: c}
	case "application/json":
		resp.Body = &checkedJSON{body: resp.Body, c: c}
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return resp, nil
}

// checker judges the messages of one response.
type checker struct {
	sess    *Session
	posted  []byte // the id of the request the response answers; nil if none
	toolsID []byte // posted, when the request is a tools/list
}

// check returns msg as the SDK may read it: msg itself, msg with its tools
// checked, or nil when msg is a request that is refused (and answered).
func (c *checker) check(msg []byte) []byte {
	t := bytes.TrimSpace(msg)
	p, err := wire.PeekMessage(t)
	if err != nil {
		return msg // not one message: the SDK judges it
	}
	if answer, logLine := refusal(t, &p); answer != nil {
		c.sess.hooks.log("stdout", logLine)
		if err := c.sess.writeRaw(answer); err != nil {
			c.sess.hooks.log("stdout", wire.LogText([]byte("answering the refused request: "+err.Error())))
		}
		return nil
	}
	if c.toolsID == nil || p.Method.OK() || !p.Result.OK() || !bytes.Equal(p.ID.Of(t), c.toolsID) {
		return msg
	}
	result := p.Result.Of(t)
	checked := checkToolsResult(result, func(line string) { c.sess.hooks.log("stdout", line) })
	if len(checked) == len(result) {
		return msg // nothing left out
	}
	out := make([]byte, 0, len(t)-len(result)+len(checked))
	out = append(out, t[:p.Result.Start]...)
	out = append(out, checked...)
	return append(out, t[p.Result.End:]...)
}

// checkedJSON is an application/json body, read whole and checked before
// the first byte is passed on.
type checkedJSON struct {
	body io.ReadCloser
	c    checker
	out  []byte
	read bool // out holds the checked body (or its first part)
	rest bool // the body was too long: the rest is passed on from body
}

func (b *checkedJSON) Read(p []byte) (int, error) {
	if !b.read {
		b.read = true
		all, err := io.ReadAll(io.LimitReader(b.body, wire.MaxLineBytes+1))
		if err != nil {
			return 0, err
		}
		if len(all) > wire.MaxLineBytes {
			b.out, b.rest = all, true
		} else {
			b.out = b.c.check(all)
			if b.out == nil {
				b.out = b.c.substitute()
			}
		}
	}
	if len(b.out) == 0 {
		if b.rest {
			return b.body.Read(p)
		}
		return 0, io.EOF
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

func (b *checkedJSON) Close() error { return b.body.Close() }

// substitute is what an application/json body that held only a refused
// request becomes: the error answer of the request it should have
// answered, so that the call fails at once instead of waiting; with no
// such request, an empty body.
func (c *checker) substitute() []byte {
	if c.posted == nil {
		return nil
	}
	msg, _ := json.Marshal("the server answered with a request that was refused (see its log)")
	return []byte(`{"jsonrpc":"2.0","id":` + string(c.posted) + `,"error":{"code":-32603,"message":` + string(msg) + `}}`)
}

// checkedEvents is a text/event-stream body, passed on event by event:
// each event is held until the empty line that ends it (the SDK does not
// act on an event before that either), then checked.
type checkedEvents struct {
	body io.ReadCloser
	c    checker
	buf  [32 << 10]byte
	out  []byte // ready for the reader
	line []byte // the line being read
	evt  []byte // the lines of the event so far, as read
	data []byte // the event's data, lines joined by \n
	pass bool   // the event is too long: passed on unexamined to its end
	text bool   // pass: the line being passed on is not empty
	err  error  // from body, returned once out is empty
}

func (b *checkedEvents) Read(p []byte) (int, error) {
	for len(b.out) == 0 && b.err == nil {
		n, err := b.body.Read(b.buf[:])
		b.scan(b.buf[:n])
		if err != nil {
			if len(b.line) > 0 {
				b.endLine(b.line)
			}
			b.endEvent()
			b.err = err
		}
	}
	if len(b.out) == 0 {
		return 0, b.err
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	if len(b.out) == 0 {
		b.out = nil
	}
	return n, nil
}

func (b *checkedEvents) Close() error { return b.body.Close() }

func (b *checkedEvents) scan(chunk []byte) {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			b.keep(chunk)
			return
		}
		b.keep(chunk[:i+1])
		chunk = chunk[i+1:]
		line := b.line
		b.line = b.line[:0]
		b.endLine(line)
	}
}

// keep adds part to the current line; once the event outgrows
// wire.MaxLineBytes it is passed on as it is.
func (b *checkedEvents) keep(part []byte) {
	if b.pass {
		b.out = append(b.out, part...)
		b.text = b.text || len(bytes.TrimRight(part, "\r\n")) > 0
		return
	}
	if len(b.evt)+len(b.line)+len(part) > wire.MaxLineBytes {
		b.out = append(append(append(b.out, b.evt...), b.line...), part...)
		b.pass, b.text, b.evt, b.line, b.data = true, true, nil, b.line[:0], nil
		return
	}
	b.line = append(b.line, part...)
}

// endLine takes one whole line (with its end of line, if read).
func (b *checkedEvents) endLine(line []byte) {
	text := bytes.TrimRight(line, "\r\n")
	if b.pass {
		if !b.text {
			b.pass = false // the event ended: the next one is examined again
		}
		b.text = false
		return
	}
	b.evt = append(b.evt, line...)
	switch {
	case len(text) == 0:
		b.endEvent()
	case bytes.HasPrefix(text, []byte("data:")):
		if b.data != nil {
			b.data = append(b.data, '\n')
		}
		b.data = append(b.data, bytes.TrimPrefix(text[len("data:"):], []byte(" "))...)
	}
}

// endEvent checks the event read and passes it on.
func (b *checkedEvents) endEvent() {
	evt, data := b.evt, b.data
	b.evt, b.data = nil, nil
	if len(evt) == 0 {
		return
	}
	if len(data) == 0 {
		b.out = append(b.out, evt...)
		return
	}
	checked := b.c.check(data)
	if checked != nil && len(checked) == len(data) {
		b.out = append(b.out, evt...)
		return
	}
	// Pass on the event's other fields (its id, its name) with the
	// checked data, if any.
	for len(evt) > 0 {
		i := bytes.IndexByte(evt, '\n')
		line := evt
		if i >= 0 {
			line, evt = evt[:i+1], evt[i+1:]
		} else {
			evt = nil
		}
		text := bytes.TrimRight(line, "\r\n")
		if len(text) == 0 || bytes.HasPrefix(text, []byte("data:")) {
			continue
		}
		b.out = append(b.out, line...)
		if i < 0 {
			b.out = append(b.out, '\n')
		}
	}
	if checked != nil {
		b.out = append(b.out, "data: "...)
		b.out = append(b.out, bytes.ReplaceAll(checked, []byte("\n"), []byte("\ndata: "))...)
		b.out = append(b.out, '\n')
	}
	b.out = append(b.out, '\n')
}
