//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// post sends an initialize request and returns the status and body.
func post(t *testing.T, url string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// TestHTTPRefusesStrangers: no token or a wrong one → 401; a foreign Host
// (DNS rebinding) or Origin → 403; the right token from the right place →
// a session with an Mcp-Session-Id.
func TestHTTPRefusesStrangers(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	srv := httptest.NewServer(nil)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	srv.Config.Handler = g.HTTPHandler(HTTPOptions{Token: "s3cret", AllowedHosts: []string{host}})
	url := srv.URL + "/mcp"
	good := "Bearer s3cret"

	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
		body   string
	}{
		{"no token", nil, 401, ""},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, 401, ""},
		{"not bearer", map[string]string{"Authorization": "Basic czNjcmV0"}, 401, ""},
		{"rebinding host", map[string]string{"Authorization": good, "Host": "evil.example:80"}, 403, "forbidden: Host evil.example:80 is not this server"},
		{"other port", map[string]string{"Authorization": good, "Host": "127.0.0.1:1"}, 403, "forbidden: Host 127.0.0.1:1 is not this server"},
		{"foreign origin", map[string]string{"Authorization": good, "Origin": "http://evil.example"}, 403, "forbidden: Origin http://evil.example may not use this server"},
		{"rebound origin", map[string]string{"Authorization": good, "Origin": "http://evil.example:" + strings.Split(host, ":")[1]}, 403, "may not use this server"},
		{"null origin", map[string]string{"Authorization": good, "Origin": "null"}, 403, "may not use this server"},
		{"same origin", map[string]string{"Authorization": good, "Origin": srv.URL}, 200, `"protocolVersion":"2025-11-25"`},
		{"no origin", map[string]string{"Authorization": good}, 200, `"protocolVersion":"2025-11-25"`},
	} {
		status, hdr, body := post(t, url, tc.header)
		if status != tc.status || !strings.Contains(body, tc.body) {
			t.Errorf("%s: %d %q", tc.name, status, body)
		}
		if status == 200 && hdr.Get("Mcp-Session-Id") == "" {
			t.Errorf("%s: no session id", tc.name)
		}
		if strings.Contains(body, "s3cret") {
			t.Errorf("%s: the token is in the answer", tc.name)
		}
	}
	if status, _, body := post(t, srv.URL+"/mcp/nope", map[string]string{"Authorization": good}); status != 404 || !strings.Contains(body, `unknown server "nope"`) {
		t.Errorf("unknown server: %d %q", status, body)
	}
	if status, _, body := post(t, url+"?tools=all", map[string]string{"Authorization": good}); status != 400 || !strings.Contains(body, `unknown tools mode "all"`) {
		t.Errorf("bad mode: %d %q", status, body)
	}

	// Without AllowedHosts, loopback hosts only.
	if !hostAllowed("127.0.0.1:5", nil) || !hostAllowed("localhost:5", nil) || !hostAllowed("[::1]:5", nil) || hostAllowed("example.com:5", nil) {
		t.Error("hostAllowed without a list")
	}
}

// TestHTTPRoutes: /mcp/{server} shows one server under its own names,
// without mcptray's tools; ?tools= picks the mode; two sessions get
// different ids.
func TestHTTPRoutes(t *testing.T) {
	builtin := BuiltinTool{Name: "servers", Call: func(context.Context, json.RawMessage) (any, string, error) { return nil, "", nil }}
	g, _ := newTestGateway(t, GatewayOptions{Builtins: []BuiltinTool{builtin}})
	addServer(t, g, "e", "echo")
	srv := httpGateway(t, g, "tok")

	single := connectHTTP(t, srv.URL+"/mcp/e", "tok", nil)
	if got := toolNames(t, single.ClientSession); !slices.Equal(got, []string{"add", "echo"}) {
		t.Errorf("/mcp/e: %v", got)
	}
	res, _, err := single.call(t, "echo", map[string]any{"message": "hi"})
	if err != nil || textOf(t, res) != "hi" {
		t.Errorf("/mcp/e echo: %v %v", res, err)
	}
	alias := connectHTTP(t, srv.URL+"/servers/e/mcp", "tok", nil)
	if got := toolNames(t, alias.ClientSession); !slices.Equal(got, []string{"add", "echo"}) {
		t.Errorf("/servers/e/mcp: %v", got)
	}
	if res, _, err := alias.call(t, "echo", map[string]any{"message": "hi"}); err != nil || textOf(t, res) != "hi" {
		t.Errorf("/servers/e/mcp echo: %v %v", res, err)
	}
	if status, _, body := post(t, srv.URL+"/servers/nope/mcp", map[string]string{"Authorization": "Bearer tok"}); status != 404 || !strings.Contains(body, `unknown server "nope"`) {
		t.Errorf("/servers/nope/mcp: %d %s", status, body)
	}
	dyn := connectHTTP(t, srv.URL+"/mcp?tools=dynamic", "tok", nil)
	if got := toolNames(t, dyn.ClientSession); len(got) != 4 {
		t.Errorf("dynamic: %v", got)
	}
	all := connectHTTP(t, srv.URL+"/mcp", "tok", nil)
	if got := toolNames(t, all.ClientSession); !slices.Equal(got, []string{"e__add", "e__echo", "mcptray__servers"}) {
		t.Errorf("/mcp: %v", got)
	}
	if all.ID() == "" || all.ID() == single.ID() {
		t.Errorf("session ids %q and %q", all.ID(), single.ID())
	}
}

// TestHTTPLogDuringCall: a server's log message during a call reaches an
// HTTP assistant that set a level (on the call's stream).
func TestHTTPLogDuringCall(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	logs := make(chan string, 10)
	c := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp/r", "tok", &sdk.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			logs <- req.Params.Logger + ": " + req.Params.Data.(string)
		},
	})
	if err := c.SetLoggingLevel(context.Background(), &sdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.call(t, "log", map[string]any{"message": "over http"}); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-logs:
		if l != "fake: over http" {
			t.Errorf("log %q", l)
		}
	case <-time.After(5 * time.Second):
		t.Error("no notifications/message")
	}
}
