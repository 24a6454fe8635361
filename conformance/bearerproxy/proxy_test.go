package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

const testToken = "tok-7c1d"

// startProxy runs the proxy in front of target until the test ends and
// returns its base URL. The test fails if the proxy logs a panic.
func startProxy(t *testing.T, target string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr testkit.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-target", target}, testToken, pw, &stderr) }()
	t.Cleanup(func() {
		cancel()
		pr.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run returned %v after cancel", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("run did not return after cancel")
		}
		if log := stderr.String(); strings.Contains(log, "panic") {
			t.Errorf("the proxy panicked:\n%s", log)
		}
		if strings.Contains(stderr.String(), testToken) {
			t.Error("the token is in the proxy's log")
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the proxy's URL: %v", err)
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(line)
}

func TestForwardsTokenPathAndHeaders(t *testing.T) {
	got := make(chan *http.Request, 1)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r
		w.WriteHeader(http.StatusNoContent)
	}))
	defer backend.Close()
	base := startProxy(t, backend.URL)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("proxy URL = %q, want http://127.0.0.1:PORT", base)
	}
	proxyPort := strings.TrimPrefix(base, "http://127.0.0.1:")
	backendPort := strings.TrimPrefix(backend.URL, "http://127.0.0.1:")

	tests := []struct {
		name, host, origin   string
		wantHost, wantOrigin string
	}{
		{"the proxy's own address becomes the target's",
			"127.0.0.1:" + proxyPort, "http://127.0.0.1:" + proxyPort,
			"127.0.0.1:" + backendPort, "http://127.0.0.1:" + backendPort},
		{"localhost on the proxy's port becomes localhost on the target's",
			"localhost:" + proxyPort, "http://localhost:" + proxyPort,
			"localhost:" + backendPort, "http://localhost:" + backendPort},
		{"a foreign Host and Origin pass unchanged",
			"evil.example.com", "http://evil.example.com",
			"evil.example.com", "http://evil.example.com"},
		{"a loopback Host on another port passes unchanged",
			"127.0.0.1:1", "http://127.0.0.1:1",
			"127.0.0.1:1", "http://127.0.0.1:1"},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("GET", base+"/mcp/everything?tools=live", nil)
		req.Host = tt.host
		req.Header.Set("Origin", tt.origin)
		req.Header.Set("Last-Event-ID", "event-2")
		req.Header.Set("Authorization", "Bearer wrong")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("%s: status = %d, want 204", tt.name, resp.StatusCode)
		}
		r := <-got
		checks := []struct{ name, got, want string }{
			{"Authorization", r.Header.Get("Authorization"), "Bearer " + testToken},
			{"Host", r.Host, tt.wantHost},
			{"Origin", r.Header.Get("Origin"), tt.wantOrigin},
			{"Last-Event-ID", r.Header.Get("Last-Event-ID"), "event-2"},
			{"path", r.URL.Path, "/mcp/everything"},
			{"query", r.URL.RawQuery, "tools=live"},
			{"X-Forwarded-For", r.Header.Get("X-Forwarded-For"), ""},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s: %s = %q, want %q", tt.name, c.name, c.got, c.want)
			}
		}
	}
}

// An SSE event reaches the client while the server still holds the stream
// open.
func TestStreamsSSEWithoutBuffering(t *testing.T) {
	release := make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: event-1\nretry: 500\ndata: \n\n")
		w.(http.Flusher).Flush()
		<-release
	}))
	defer backend.Close()
	defer close(release)
	base := startProxy(t, backend.URL)

	resp, err := http.Get(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for _, want := range []string{"id: event-1\n", "retry: 500\n"} {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		if line != want {
			t.Fatalf("line = %q, want %q", line, want)
		}
	}
}

func TestRefusesBadInput(t *testing.T) {
	tests := []struct {
		args  []string
		token string
		want  string
	}{
		{nil, testToken, "-target is required (e.g. http://127.0.0.1:8080)"},
		{[]string{"-target", "https://127.0.0.1:1"}, testToken, `-target "https://127.0.0.1:1": want http://HOST:PORT`},
		{[]string{"-target", "http://example.com:80"}, testToken, `-target "http://example.com:80": host must be loopback (the token goes there)`},
		{[]string{"-target", "http://127.0.0.1:1"}, "", "BEARER_TOKEN is empty"},
		{[]string{"-target", "http://127.0.0.1:1", "-listen", "0.0.0.0:0"}, testToken, `-listen "0.0.0.0:0": address must be loopback`},
		{[]string{"-target", "http://127.0.0.1:1", "-listen", "8080"}, testToken, `-listen "8080": address 8080: missing port in address`},
		{[]string{"-target", "http://127.0.0.1:1", "extra"}, testToken, `unexpected argument "extra"`},
		{[]string{"-bogus"}, testToken, "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		err := run(context.Background(), tt.args, tt.token, io.Discard, io.Discard)
		if err == nil {
			t.Errorf("run(%q) = nil, want %q", tt.args, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("run(%q) = %q, want %q", tt.args, err, tt.want)
		}
		if _, ok := err.(usageError); !ok {
			t.Errorf("run(%q) = %T, want a usageError (exit 2)", tt.args, err)
		}
		if strings.Contains(err.Error(), testToken) {
			t.Errorf("run(%q): the token is in the error", tt.args)
		}
	}
}

// The upstream answers with an SSE stream as soon as it has parsed the JSON,
// before reading the body's EOF, as an MCP server does. (Streaming the body
// through lost such a stream now and then in the suite's runs; this test
// shows the exchange, it does not catch that race reliably.)
func TestAnswerBeforeBodyEOF(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg map[string]any
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "id: %d\ndata: {\"id\":%v}\n\n", i, msg["id"])
			w.(http.Flusher).Flush()
		}
	}))
	defer backend.Close()
	base := startProxy(t, backend.URL)
	want := "id: 0\ndata: {\"id\":7}\n\nid: 1\ndata: {\"id\":7}\n\nid: 2\ndata: {\"id\":7}\n\n"
	for i := range 200 {
		resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"ping"}`))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != want {
			t.Fatalf("request %d: stream = %q, %v; want %q", i, b, err, want)
		}
	}
}

// The upstream refuses (401) without reading the body, and the client goes
// on using the same connection. (With full duplex instead of reading the
// body first, the proxy panicked here in 2 runs out of 3.)
func TestEarlyAnswerThenNextRequest(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	defer backend.Close()
	base := startProxy(t, backend.URL)
	body := strings.Repeat("x", 1<<20)
	for i := range 20 {
		resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("request %d: status %d, want 401", i, resp.StatusCode)
		}
	}
}

func TestRefusesTooLargeBody(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("a too large body reached the upstream")
	}))
	defer backend.Close()
	base := startProxy(t, backend.URL)
	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(strings.Repeat("x", maxBody+1)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status = %d, want 413", resp.StatusCode)
	}
	if want := "bearerproxy: reading the request body: http: request body too large\n"; string(b) != want {
		t.Errorf("body = %q, want %q", b, want)
	}
}
