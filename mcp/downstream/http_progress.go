package downstream

import (
	"bytes"
	"encoding/json"
	"github.com/mcptray/mcptray/mcp/wire"
	"io"
	"mime"
	"net/http"
)

// The SDK's client retires a response the moment it reads it, but hands
// notifications to a handler queue that runs later. For an HTTP server that
// sends progress and then the result, the result can overtake the progress:
// the call would finish before its last progress notifications are passed
// on, and they would be lost. progressTap sees every message of the server's
// event streams in order, as the SDK reads them, and counts the progress
// notifications for gateway calls; forward waits for the handler to pass
// on as many as the stream carried before it answers the call.

// progressTap wraps an HTTP server's transport.
type progressTap struct {
	base http.RoundTripper
	sess *Session
}

func (t *progressTap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		resp.Body = &progressBody{ReadCloser: resp.Body, sess: t.sess}
	}
	return resp, nil
}

// maxTapLine bounds what progressBody keeps of one line; longer lines (big
// results) are passed through unexamined: a progress notification is small.
const maxTapLine = 64 << 10

// progressBody scans an event stream line by line before the SDK reads it.
type progressBody struct {
	io.ReadCloser
	sess     *Session
	line     []byte
	skipping bool // inside a line longer than maxTapLine
}

func (b *progressBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.scan(p[:n])
	return n, err
}

func (b *progressBody) scan(chunk []byte) {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			b.keep(chunk)
			return
		}
		b.keep(chunk[:i])
		if !b.skipping {
			b.examine(b.line)
		}
		b.line, b.skipping = b.line[:0], false
		chunk = chunk[i+1:]
	}
}

func (b *progressBody) keep(part []byte) {
	if b.skipping {
		return
	}
	if len(b.line)+len(part) > maxTapLine {
		b.line, b.skipping = b.line[:0], true
		return
	}
	b.line = append(b.line, part...)
}

// examine counts a "data:" line that is a progress notification with a
// gateway token, and hands a notifications/tasks/status to the Router's
// Tap: the SDK's client knows no tasks and would drop it (the server sends
// it on the session's own event stream, which only the SDK reads).
func (b *progressBody) examine(line []byte) {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if ok && bytes.Contains(data, []byte(`"notifications/tasks/status"`)) {
		b.taskStatus(bytes.TrimSpace(data))
		return
	}
	if !ok || !bytes.Contains(data, []byte(`"notifications/progress"`)) {
		return
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"params"`
	}
	if json.Unmarshal(bytes.TrimSpace(data), &msg) != nil || msg.Method != "notifications/progress" {
		return
	}
	n, ok := wire.ParseGWID(msg.Params.ProgressToken)
	if !ok {
		return
	}
	if r := b.sess.attached(); r != nil {
		r.ProgressSeen(n)
	}
}

// taskStatus passes a notifications/tasks/status to the Router's Tap.
func (b *progressBody) taskStatus(data []byte) {
	p, err := wire.PeekMessage(data)
	if err != nil || p.ID.OK() || !p.Method.Is(data, `"notifications/tasks/status"`) {
		return
	}
	if r := b.sess.attached(); r != nil {
		r.Tap(b.sess, data, &p)
	}
}
