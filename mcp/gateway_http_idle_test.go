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

// TestHTTPIdleSessionsClosed: with SessionIdle set, a session with no
// request for longer is closed when another session starts — its next
// request gets 404, and the client can start again. A session holding its
// GET stream open, and one calling tools, are kept however long ago they
// started.
func TestHTTPIdleSessionsClosed(t *testing.T) {
	const idle = 300 * time.Millisecond
	g, log := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	srv := httptest.NewServer(g.HTTPHandler(HTTPOptions{Token: "tok", SessionIdle: idle}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/mcp"
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"x"}}}`

	quiet := newRawHTTP(t, url, `{}`)
	listening := newRawHTTP(t, url, `{}`)
	busy := newRawHTTP(t, url, `{}`)

	// listening opens its GET stream and keeps it open.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Mcp-Session-Id", listening.session)
	req.Header.Set("Mcp-Protocol-Version", downstream.ProtocolVersion)
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", err, stream)
	}
	defer stream.Body.Close()
	go io.Copy(io.Discard, stream.Body)

	// busy calls a tool every 50 ms while quiet says nothing.
	for deadline := time.Now().Add(2 * idle); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ct, _ := busy.do(call); ct != "application/json" {
			t.Fatalf("busy session: %s", ct)
		}
	}
	newRawHTTP(t, url, `{}`) // a session starts: the sweep

	testkit.WaitFor(t, "the quiet session to be closed", func() bool {
		resp := quiet.post(context.Background(), call)
		resp.Body.Close()
		return resp.StatusCode == http.StatusNotFound
	})
	for name, s := range map[string]*rawHTTP{"listening": listening, "busy": busy} {
		if ct, body := s.do(call); ct != "application/json" || !strings.Contains(body, `"x"`) {
			t.Errorf("%s session after the sweep: %s %s", name, ct, body)
		}
	}
	if !strings.Contains(log.String(), "closing an idle HTTP session") {
		t.Errorf("the log does not say a session was closed:\n%s", log)
	}
	if again := newRawHTTP(t, url, `{}`); again.session == quiet.session {
		t.Error("a new session got the closed one's id")
	}
}
