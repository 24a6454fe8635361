package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const testToken = "tok-7c1d"

// startProxy runs the proxy in front of target until the test ends and
// returns its base URL.
func startProxy(t *testing.T, target string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-target", target}, testToken, pw) }()
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
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the proxy's URL: %v", err)
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(line)
}

func TestForwardsTokenHostOriginAndPath(t *testing.T) {
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

	req, _ := http.NewRequest("GET", base+"/mcp/everything?tools=live", nil)
	req.Host = "evil.example.com"
	req.Header.Set("Origin", "http://evil.example.com")
	req.Header.Set("Last-Event-ID", "event-2")
	req.Header.Set("Authorization", "Bearer wrong")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r := <-got
	checks := []struct{ name, got, want string }{
		{"Authorization", r.Header.Get("Authorization"), "Bearer " + testToken},
		{"Host", r.Host, "evil.example.com"},
		{"Origin", r.Header.Get("Origin"), "http://evil.example.com"},
		{"Last-Event-ID", r.Header.Get("Last-Event-ID"), "event-2"},
		{"path", r.URL.Path, "/mcp/everything"},
		{"query", r.URL.RawQuery, "tools=live"},
		{"X-Forwarded-For", r.Header.Get("X-Forwarded-For"), ""},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("status = %d, want 204", resp.StatusCode)
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
		err := run(context.Background(), tt.args, tt.token, io.Discard)
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

// The upstream answers before the client has finished sending the body (as
// an MCP server does once it has parsed the JSON): the answer must still get
// through while the request body is open.
func TestFullDuplex(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NewResponseController(w).EnableFullDuplex()
		line, err := bufio.NewReader(r.Body).ReadString('\n')
		if err != nil {
			t.Errorf("backend reading the body: %v", err)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+line+"\n")
		w.(http.Flusher).Flush()
		io.Copy(io.Discard, r.Body)
	}))
	defer backend.Close()
	base := startProxy(t, backend.URL)

	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := http.NewRequest("POST", base+"/mcp", pr)
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		done <- result{resp, err}
	}()
	if _, err := io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no response while the request body is still open")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.resp.Body.Close()
	line, err := bufio.NewReader(r.resp.Body).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the event: %v", err)
	}
	if want := `data: {"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"; line != want {
		t.Errorf("event = %q, want %q", line, want)
	}
}
