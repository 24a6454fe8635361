//go:build linux

package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// initOnly starts a session that sends initialize and
// notifications/initialized, and nothing more.
func initOnly(t *testing.T, url string) *rawHTTP {
	r := &rawHTTP{t: t, url: url}
	resp := r.post(context.Background(), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+downstream.ProtocolVersion+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if r.session = resp.Header.Get("Mcp-Session-Id"); r.session == "" {
		t.Fatal("no Mcp-Session-Id")
	}
	resp = r.post(context.Background(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	return r
}

// open reports whether the gateway still holds the HTTP session id.
func (g *Gateway) httpSessionOpen(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.httpUps[id] != nil
}

// getStream opens s's GET event stream and keeps it open until the test
// ends.
func getStream(t *testing.T, s *rawHTTP) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Mcp-Session-Id", s.session)
	req.Header.Set("Mcp-Protocol-Version", downstream.ProtocolVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	t.Cleanup(func() { resp.Body.Close() })
	go io.Copy(io.Discard, resp.Body)
}

// A session that made no request after initialize (but the initialized
// notification) is closed after UnusedSessionIdle, when another session
// starts; one that made a request is kept until SessionIdle.
func TestHTTPUnusedSessionsClosedSooner(t *testing.T) {
	g, log := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	srv := httptest.NewServer(g.HTTPHandler(HTTPOptions{Token: "tok", SessionIdle: time.Hour, UnusedSessionIdle: 200 * time.Millisecond}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/mcp"
	unused := initOnly(t, url)
	used := newRawHTTP(t, url, `{}`) // initialize, initialized, tools/list
	testkit.WaitFor(t, "the unused session to be closed when others start", func() bool {
		initOnly(t, url)
		return !g.httpSessionOpen(unused.session)
	})
	resp := unused.post(context.Background(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the closed unused session's next request: HTTP %d, want 404", resp.StatusCode)
	}
	if ct, body := used.do(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"x"}}}`); ct != "application/json" || !strings.Contains(body, `"x"`) {
		t.Errorf("the used session: %s %s", ct, body)
	}
	if !strings.Contains(log.String(), "closing an unused HTTP session") {
		t.Errorf("the log does not say an unused session was closed:\n%s", log)
	}
}

// At MaxSessions, a new session closes the one idle the longest; a session
// with a request in flight (an open GET stream) is never closed for it,
// and when every session has one the new session is refused with 503 and
// a reason.
func TestHTTPSessionCap(t *testing.T) {
	g, log := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	srv := httptest.NewServer(g.HTTPHandler(HTTPOptions{Token: "tok", SessionIdle: time.Hour, MaxSessions: 3}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/mcp"
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"x"}}}`

	listening := newRawHTTP(t, url, `{}`)
	getStream(t, listening)
	oldest := newRawHTTP(t, url, `{}`)
	newer := newRawHTTP(t, url, `{}`)
	newer.do(call) // newer was used after oldest
	fourth := newRawHTTP(t, url, `{}`)
	if g.httpSessionOpen(oldest.session) {
		t.Error("the session idle the longest is still open with 4 at a cap of 3")
	}
	for name, s := range map[string]*rawHTTP{"listening": listening, "newer": newer, "fourth": fourth} {
		if !g.httpSessionOpen(s.session) {
			t.Errorf("%s was closed", name)
		}
	}
	if !strings.Contains(log.String(), "at the cap of 3 HTTP sessions") {
		t.Errorf("the log does not say why a session was closed:\n%s", log)
	}

	// Every session busy: the new one is refused.
	getStream(t, newer)
	getStream(t, fourth)
	r := &rawHTTP{t: t, url: url}
	resp := r.post(context.Background(), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+downstream.ProtocolVersion+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "3 HTTP sessions") {
		t.Errorf("a new session with every one busy: HTTP %d %s, want 503 and a reason", resp.StatusCode, body)
	}
}
