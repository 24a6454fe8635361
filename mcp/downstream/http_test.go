//go:build linux

package downstream

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoOverHTTP serves the echo fake over streamable HTTP, behind a bearer
// token check.
func echoOverHTTP(t *testing.T, token string) *httptest.Server {
	t.Helper()
	server := mcptest.NewServer("echo")
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStartHTTP(t *testing.T) {
	srv := echoOverHTTP(t, "s3cret-value")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := StartHTTP(ctx, HTTPSpec{Name: "remote", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer s3cret-value"}}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := len(s.Tools()); n != 2 {
		t.Errorf("%d tools, want 2", n)
	}
	if s.PID() != 0 || s.PGID() != 0 {
		t.Errorf("PID %d, PGID %d for HTTP; want 0", s.PID(), s.PGID())
	}
	res, err := s.CallTool(ctx, "echo", map[string]any{"message": "over http"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "over http" {
		t.Errorf("echo: got %q", got)
	}
	s.Close()
	if s.ExitReason() != "stopped" {
		t.Errorf("reason %q after Close", s.ExitReason())
	}
}

func TestStartHTTPErrors(t *testing.T) {
	srv := echoOverHTTP(t, "s3cret-value")
	redirect := httptest.NewServer(http.RedirectHandler(srv.URL, http.StatusTemporaryRedirect))
	defer redirect.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	for _, tc := range []struct {
		name string
		spec HTTPSpec
		want string // a part of the error
	}{
		{"not http", HTTPSpec{URL: "ftp://example.com/mcp"}, "url must be an absolute http:// or https:// address"},
		{"relative", HTTPSpec{URL: "/mcp"}, "url must be an absolute http:// or https:// address"},
		{"redirect", HTTPSpec{URL: redirect.URL + "/mcp?token=query-secret", Headers: map[string]string{"Authorization": "Bearer s3cret-value"}}, "redirect to " + host + " refused"},
		{"wrong token", HTTPSpec{URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer wrong-secret"}}, "initialize: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := StartHTTP(ctx, tc.spec, Hooks{})
			if err == nil {
				t.Fatal("StartHTTP succeeded")
			}
			msg := err.Error()
			t.Logf("error: %s", msg)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q does not say %q", msg, tc.want)
			}
			for _, secret := range []string{"s3cret-value", "wrong-secret", "query-secret"} {
				if strings.Contains(msg, secret) {
					t.Errorf("error %q shows a secret", msg)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q is not one line", msg)
			}
		})
	}
}
