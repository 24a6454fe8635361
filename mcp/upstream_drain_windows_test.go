package mcp

import (
	"net"
	"strings"
	"testing"
	"time"
)

// TestWindowsStreamAnswersAfterInputEnds: an assistant that ends its
// input (a half-closed socket, whose output mcptray cannot check on
// Windows) still gets the answer to the call it sent, then the session
// ends.
func TestWindowsStreamAnswersAfterInputEnds(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	r := connectRaw(t, g, UpstreamOptions{})
	r.initialize(t)
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r__slow","arguments":{"steps":3,"ms":100}}}`)
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err := r.conn.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for range 2 {
		line := r.recv(t)
		switch {
		case strings.HasPrefix(line, `{"jsonrpc":"2.0","id":1,`):
			got["call"] = line
		case strings.Contains(line, `"id":2`):
			got["list"] = line
		default:
			t.Fatalf("unexpected line: %s", line)
		}
	}
	if !strings.Contains(got["call"], `done after 3 steps`) || !strings.Contains(got["list"], `"r__slow"`) {
		t.Fatalf("answers after the input ended: %v", got)
	}
	r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, _, err := r.lr.Next(); err == nil {
		t.Fatalf("after the answers: %s, want the end of the stream", line)
	}
}
