package downstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The gateway sends some messages to a server as bytes, because the SDK's
// client would drop what it does not know: a task-augmented tools/call
// loses its "task", and the SDK has no tasks/* requests at all. For a
// stdio server those lines go to its stdin; for an HTTP server, WriteLine
// posts the line on the SDK's own session (its Mcp-Session-Id and
// protocol version, the configured headers, redirects refused), beside
// the SDK's connection rather than through it (which must not be
// wrapped). What the server answers on that POST — an application/json
// message, or the events of a text/event-stream: the response, and the
// progress, log messages and requests (elicitation) that belong to it —
// goes to the Router's Tap, message by message, as a stdio server's
// stdout lines do, so the gateway handles both kinds of server the same
// way. A server's request with a key twice is refused first, as
// checkTap refuses one the SDK would read. A server's request the Tap does not take gets an error answer;
// other messages it does not take are dropped. A POST that fails
// (network, HTTP status) answers its request with an error, so no call
// waits for a reply that cannot come.

// rawHTTP posts the gateway's own lines to an HTTP server.
type rawHTTP struct {
	client *http.Client // the session's (headers, no redirects), without the SDK's taps
	url    string
	oauth  auth.OAuthHandler // signs the posts, answers a 401/403 (nil: none)
}

// writeRaw posts line on its own goroutine; the answer goes to the Tap.
func (s *Session) writeRaw(line []byte) error {
	if !s.rawReady.Load() { // StartHTTP has not set s.raw and s.cs yet
		return errors.New("not connected")
	}
	if err := s.life.Err(); err != nil {
		return errors.New("the session ended")
	}
	line = bytes.Clone(bytes.TrimSpace(line))
	go s.postRaw(line)
	return nil
}

func (s *Session) postRaw(line []byte) {
	var id []byte // set for a request: it must get an answer
	if p, err := wire.PeekMessage(line); err == nil && p.Method.OK() && p.ID.OK() {
		id = p.ID.Of(line)
	}
	fail := func(err error) {
		// Once the session has ended, the gateway answers its calls
		// (the server stopped): nothing to add.
		if id != nil && s.life.Err() == nil {
			s.tapRaw(wire.ErrorLine(id, jsonrpc.CodeInternalError, s.RedactText("posting to the server: "+err.Error())))
		}
	}
	resp, err := s.postRawOnce(line)
	if err == nil && s.raw.oauth != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		// As the SDK does: the handler answers (a refresh, or the
		// sign-in it needs, as an error), and the post is retried once.
		if aerr := s.raw.oauth.Authorize(s.life, resp.Request, resp); aerr != nil {
			fail(aerr)
			return
		}
		resp, err = s.postRawOnce(line)
	}
	if err != nil {
		fail(errors.New(strings.ReplaceAll(err.Error(), s.raw.url, redactURL(s.raw.url))))
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
		fail(fmt.Errorf("HTTP %s: %s", resp.Status, wire.LogText(bytes.TrimSpace(msg))))
		return
	}
	if id == nil {
		return // a notification or a response: 202, nothing to read
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		b, err := io.ReadAll(io.LimitReader(resp.Body, wire.MaxLineBytes+1))
		if err != nil || len(b) > wire.MaxLineBytes {
			fail(errors.New("reading the answer: too long or cut off"))
			return
		}
		if !s.tapBody(b, id) {
			fail(errors.New("the answer is not the response to the request"))
		}
	case "text/event-stream":
		if !s.tapEvents(resp.Body, id) {
			fail(errors.New("the event stream ended before the response"))
		}
	default:
		fail(fmt.Errorf("answer of type %q", mt))
	}
}

// postRawOnce posts line on the SDK's session, signed with the OAuth
// handler's token when there is one.
func (s *Session) postRawOnce(line []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(s.life, http.MethodPost, s.raw.url, bytes.NewReader(line))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if sid := s.cs.ID(); sid != "" {
		h.Set("Mcp-Session-Id", sid)
	}
	if res := s.cs.InitializeResult(); res != nil && res.ProtocolVersion != "" {
		h.Set("Mcp-Protocol-Version", res.ProtocolVersion)
	}
	if s.raw.oauth != nil {
		ts, err := s.raw.oauth.TokenSource(s.life)
		if err != nil {
			return nil, err
		}
		if ts != nil {
			// An error here (a refresh refused) sends no token: the
			// server's 401 reaches the handler.
			if tok, err := ts.Token(); err == nil && tok.AccessToken != "" {
				h.Set("Authorization", "Bearer "+tok.AccessToken)
			}
		}
	}
	return s.raw.client.Do(req)
}

// tapBody hands a JSON body (one message or a batch) to the Tap and
// reports whether it held the response with id.
func (s *Session) tapBody(b []byte, id []byte) bool {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		answered := false
		for i := wire.SkipWS(b, 1); i < len(b) && b[i] != ']'; {
			e := wire.SkipValue(b, i)
			if e < 0 {
				return answered
			}
			answered = s.tapMessage(b[i:e], id) || answered
			i = wire.SkipWS(b, e)
			if i < len(b) && b[i] == ',' {
				i = wire.SkipWS(b, i+1)
			}
		}
		return answered
	}
	return s.tapMessage(b, id)
}

// tapEvents reads an event stream until the response with id, handing
// each event's data to the Tap.
func (s *Session) tapEvents(body io.Reader, id []byte) bool {
	br := bufio.NewReaderSize(body, 64<<10)
	var data []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it whole (bounded).
			long := bytes.Clone(line)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= wire.MaxLineBytes {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && len(line) == 0 {
			return false
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if len(data) > 0 && s.tapMessage(data, id) {
				return true
			}
			data = data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(line[len("data:"):], []byte(" "))...)
			if len(data) > wire.MaxLineBytes {
				return false
			}
		}
		if err != nil {
			return false
		}
	}
}

// tapMessage hands one message to the Tap and reports whether it was the
// response with id.
func (s *Session) tapMessage(msg []byte, id []byte) bool {
	msg = bytes.TrimSpace(msg)
	p, err := wire.PeekMessage(msg)
	if err != nil {
		return false
	}
	isResponse := !p.Method.OK() && bytes.Equal(p.ID.Of(msg), id)
	s.tapRaw(msg)
	return isResponse
}

// tapRaw gives one message to the attached Router's Tap; a request it
// does not take is refused.
func (s *Session) tapRaw(msg []byte) {
	p, err := wire.PeekMessage(msg)
	if err != nil {
		return
	}
	if answer, logLine := refusal(msg, &p); answer != nil {
		s.hooks.log("stdout", logLine)
		s.writeRaw(answer)
		return
	}
	if r := s.attached(); r != nil && r.Tap(s, msg, &p) {
		return
	}
	if p.Method.OK() && p.ID.OK() {
		s.writeRaw(wire.ErrorLine(p.ID.Of(msg), jsonrpc.CodeMethodNotFound, "mcptray does not serve this request on this stream"))
	}
}

// rawClient is the http.Client of an HTTP session's raw lines.
func rawClient(headers map[string]string, s *Session, o responseObserver) *http.Client {
	return &http.Client{
		Transport: &headerTransport{base: http.DefaultTransport, headers: headers, sess: s, observer: o},
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return fmt.Errorf("redirect to %s refused", req.URL.Host)
		},
	}
}
