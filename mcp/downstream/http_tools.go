package downstream

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"

	"github.com/mcptray/mcptray/mcp/wire"
)

// An HTTP server's connection is the SDK's own and must not be wrapped (a
// wrapper stops its background event stream), so the bytes of its
// tools/list results are taken from below it: toolsTap, in the http.Client
// the SDK uses, sees the POST of each tools/list request, and reads the
// response as the SDK reads it (an application/json body or the events of
// a text/event-stream), without changing a byte. When the response to that
// request's id goes by, its result is kept for Session.ListTools
// (Session.httpPage), which takes it after the SDK has decoded the page —
// the tap has it first, since it sees the bytes before the SDK does.

// maxToolsPage bounds the bytes toolsBody keeps of one response: a page
// larger than a stdio line may be is passed on unexamined, and its tools
// are then encoded from the SDK's decoding.
const maxToolsPage = wire.MaxLineBytes

// toolsTap wraps an HTTP server's transport.
type toolsTap struct {
	base http.RoundTripper
	sess *Session
}

func (t *toolsTap) RoundTrip(req *http.Request) (*http.Response, error) {
	id := toolsListID(req)
	resp, err := t.base.RoundTrip(req)
	if id == nil || err != nil || resp.Body == nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" && mt != "text/event-stream" {
		return resp, nil
	}
	resp.Body = &toolsBody{ReadCloser: resp.Body, sess: t.sess, id: id, sse: mt == "text/event-stream"}
	return resp, nil
}

// toolsListID returns the id of the tools/list request req posts, or nil
// when it posts something else.
func toolsListID(req *http.Request) []byte {
	id, method := postedCall(req)
	if method != "tools/list" {
		return nil
	}
	return id
}

// postedCall returns the id and method of the request req posts, or nil
// and "" when it posts no request (a notification, a response, a body
// too long to be a small request).
func postedCall(req *http.Request) (id []byte, method string) {
	if req.Method != http.MethodPost || req.GetBody == nil || req.ContentLength > maxFastLine || req.ContentLength < 0 {
		return nil, ""
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, ""
	}
	b, err := io.ReadAll(io.LimitReader(body, maxFastLine))
	body.Close()
	if err != nil {
		return nil, ""
	}
	b = bytes.TrimSpace(b)
	p, err := wire.PeekMessage(b)
	if err != nil || !p.ID.OK() || !p.Method.OK() {
		return nil, ""
	}
	method, _ = wire.RawString(p.Method.Of(b))
	return bytes.Clone(p.ID.Of(b)), method
}

// maxFastLine bounds the request body toolsListID reads: a tools/list
// request is a cursor at most.
const maxFastLine = 64 << 10

// toolsBody is the response to a tools/list request, examined as it is read.
type toolsBody struct {
	io.ReadCloser
	sess *Session
	id   []byte // the request's id as sent
	sse  bool

	buf  []byte // JSON: the body so far; SSE: the current line
	data []byte // SSE: the current event's data
	over bool   // more than maxToolsPage: nothing more is examined
	done bool   // the response went by
}

func (b *toolsBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if !b.done && !b.over {
		if b.sse {
			b.scanSSE(p[:n])
		} else {
			b.keep(p[:n])
			if err == io.EOF && !b.over {
				b.examine(b.buf)
			}
		}
	}
	return n, err
}

func (b *toolsBody) keep(part []byte) {
	if len(b.buf)+len(b.data)+len(part) > maxToolsPage {
		b.over, b.buf, b.data = true, nil, nil
		return
	}
	b.buf = append(b.buf, part...)
}

// scanSSE follows the event stream: data lines are gathered, and an
// empty line ends the event (as the SDK, which dispatches it then).
func (b *toolsBody) scanSSE(chunk []byte) {
	for len(chunk) > 0 && !b.over && !b.done {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			b.keep(chunk)
			return
		}
		b.keep(chunk[:i])
		chunk = chunk[i+1:]
		if b.over {
			return
		}
		line := bytes.TrimSuffix(b.buf, []byte("\r"))
		switch {
		case len(line) == 0:
			if len(b.data) > 0 {
				b.examine(b.data)
			}
			b.data = b.data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
			if len(b.data) > 0 {
				b.data = append(b.data, '\n')
			}
			b.data = append(b.data, d...)
		}
		b.buf = b.buf[:0]
	}
}

// examine keeps msg's result if it is the response to the request.
func (b *toolsBody) examine(msg []byte) {
	msg = bytes.TrimSpace(msg)
	p, err := wire.PeekMessage(msg)
	if err != nil || p.Method.OK() || !bytes.Equal(p.ID.Of(msg), b.id) {
		return
	}
	b.done = true
	if !p.Result.OK() {
		return
	}
	page := json.RawMessage(bytes.Clone(p.Result.Of(msg)))
	b.sess.httpPage.Store(&page)
	b.buf, b.data = nil, nil
}
