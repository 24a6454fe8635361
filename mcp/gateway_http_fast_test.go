//go:build linux

package mcp

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// rawHTTP is an assistant speaking streamable HTTP by hand, to see which
// way (JSON or event stream) each answer comes.
type rawHTTP struct {
	t         *testing.T
	url       string
	session   string
	noVersion bool // leave Mcp-Protocol-Version out
}

// newRawHTTP initializes a session declaring capabilities (JSON).
func newRawHTTP(t *testing.T, url, capabilities string) *rawHTTP {
	r := &rawHTTP{t: t, url: url}
	resp := r.post(context.Background(), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+downstream.ProtocolVersion+`","capabilities":`+capabilities+`,"clientInfo":{"name":"raw","version":"1"}}}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	r.session = resp.Header.Get("Mcp-Session-Id")
	if r.session == "" {
		t.Fatal("no Mcp-Session-Id")
	}
	resp = r.post(context.Background(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	// A first listing, as every assistant does, registers the session.
	r.do(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	return r
}

func (r *rawHTTP) post(ctx context.Context, body string) *http.Response {
	r.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "POST", r.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer tok")
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
		if !r.noVersion {
			req.Header.Set("Mcp-Protocol-Version", downstream.ProtocolVersion)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		r.t.Fatal(err)
	}
	return resp
}

// do posts body and returns the answer's content type and body.
func (r *rawHTTP) do(body string) (string, string) {
	r.t.Helper()
	resp := r.post(context.Background(), body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		r.t.Fatalf("%s: HTTP %d %s", body, resp.StatusCode, b)
	}
	return resp.Header.Get("Content-Type"), string(b)
}

// TestHTTPFastPath: a tools/call that cannot need a stream is answered as
// one JSON object holding the server's result byte for byte; one whose
// assistant takes elicitation, or that carries a progress token, gets the
// SDK's event stream with the same result. A client that hangs up, or
// cancels, has the call cancelled downstream; bad calls get the SDK's
// errors.
func TestHTTPFastPath(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	g, _ := newTestGateway(t, GatewayOptions{})
	f := addServer(t, g, "r", "rich", withEnv(mcptest.CancelFileEnv+"="+cancelFile))
	url := httpGateway(t, g, "tok").URL + "/mcp"
	direct := connectDirect(t, "rich", nil)
	_, want, err := direct.call(t, "rich", map[string]any{"note": "fast"})
	if err != nil {
		t.Fatal(err)
	}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"r__rich","arguments":{"note":"fast"}}}`
	wantJSON := `{"jsonrpc":"2.0","id":7,"result":` + string(want) + "}\n"

	plain := newRawHTTP(t, url, `{}`)
	ct, body := plain.do(call)
	if ct != "application/json" || body != wantJSON {
		t.Errorf("fast path: %s\n%s\nwant %s", ct, body, wantJSON)
	}

	// A client that leaves the version header out (the spec has the server
	// assume one) is served the same way.
	plain.noVersion = true
	if ct, body := plain.do(call); ct != "application/json" || body != wantJSON {
		t.Errorf("without Mcp-Protocol-Version: %s\n%s", ct, body)
	}
	plain.noVersion = false

	asker := newRawHTTP(t, url, `{"elicitation":{}}`)
	ct, body = asker.do(call)
	if !strings.HasPrefix(ct, "text/event-stream") || !strings.Contains(body, string(want)) {
		t.Errorf("assistant with elicitation: %s\n%s", ct, body)
	}
	ct, body = plain.do(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"r__rich","arguments":{"note":"fast"},"_meta":{"progressToken":1}}}`)
	if !strings.HasPrefix(ct, "text/event-stream") || !strings.Contains(body, string(want)) {
		t.Errorf("call with a progress token: %s\n%s", ct, body)
	}
	ct, body = plain.do(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"r__nope"}}`)
	if !strings.Contains(body, `unknown tool \"r__nope\"`) {
		t.Errorf("unknown tool: %s\n%s", ct, body)
	}

	// The client hangs up mid-call.
	slow := `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"r__slow","arguments":{"steps":100,"ms":100}}}`
	ctx, hangUp := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp := plain.post(ctx, slow); resp != nil {
			resp.Body.Close()
		}
	}()
	testkit.WaitFor(t, "the slow tool to start", func() bool { return fileHas(cancelFile, "started slow") })
	hangUp()
	<-done
	testkit.WaitFor(t, "the server to see the cancellation", func() bool { return fileHas(cancelFile, "cancelled slow") })
	testkit.WaitFor(t, "the call table to empty", func() bool { return g.calls.latestFor(f.Session) == nil })

	// The client cancels: 202, the open request ends, the server is told.
	os.Remove(cancelFile)
	answer := make(chan string, 1)
	go func() {
		_, body := plain.do(slow)
		answer <- body
	}()
	testkit.WaitFor(t, "the slow tool to start", func() bool { return fileHas(cancelFile, "started slow") })
	resp := plain.post(context.Background(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"changed my mind"}}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("notifications/cancelled: HTTP %d", resp.StatusCode)
	}
	select {
	case body := <-answer:
		if !strings.Contains(body, `"code":-32800`) || !strings.Contains(body, "changed my mind") {
			t.Errorf("the cancelled request's answer: %s", body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled request never ended")
	}
	testkit.WaitFor(t, "the server to see the cancellation", func() bool { return fileHas(cancelFile, "cancelled slow") })

	// The session still works.
	if ct, body := plain.do(call); ct != "application/json" || body != wantJSON {
		t.Errorf("after the cancellations: %s\n%s", ct, body)
	}
}

// TestHTTPFastPathIDReusedAtOnce: a client may send its next call with the
// id of the one just answered (JSON-RPC only asks ids to be unique among
// requests in flight); it must take the fast path too, not find the id
// still in use while the server's reader finishes the first call.
func TestHTTPFastPathIDReusedAtOnce(t *testing.T) {
	afterAnswer = func() { time.Sleep(5 * time.Millisecond) } // the client is quicker
	t.Cleanup(func() { afterAnswer = func() {} })
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	plain := newRawHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", `{}`)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"x"}}}`
	slow := 0
	for range 20 {
		if ct, _ := plain.do(call); ct != "application/json" {
			slow++
		}
	}
	if slow > 0 {
		t.Errorf("%d of 20 calls reusing the last answered id took the slow path", slow)
	}
}

// TestHTTPNoStreamNoWarning: an HTTP client that opens no standalone GET
// stream (the spec leaves it optional) cannot be sent list_changed; the
// SDK's failed delivery is not worth a warning on every change, once per
// such session — it is logged at debug level. The session keeps working.
func TestHTTPNoStreamNoWarning(t *testing.T) {
	g, log := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	plain := newRawHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", `{}`)
	addServer(t, g, "f", "echo") // tools/list_changed for every session
	testkit.WaitFor(t, "the tool list to change", func() bool {
		_, body := plain.do(`{"jsonrpc":"2.0","id":"l","method":"tools/list"}`)
		return strings.Contains(body, "f__echo")
	})
	g.SetServer("f", nil)
	time.Sleep(100 * time.Millisecond) // the SDK notifies synchronously; leave it time anyway
	if strings.Contains(log.String(), "stream not connected") {
		t.Errorf("warned about an undelivered notification:\n%s", log)
	}
	if ct, body := plain.do(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"x"}}}`); ct != "application/json" || !strings.Contains(body, `"x"`) {
		t.Errorf("the session after the changes: %s %s", ct, body)
	}
}
