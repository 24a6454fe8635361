//go:build linux

package mcp

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
)

// TestGatewayCRLF: a server whose lines end in "\r\n" (mode crlf, as a
// Windows program may write them) and an assistant that writes "\r\n"
// too work end to end: initialize, tools/list and a call on the fast
// path, the answer byte for byte what a "\n" server gives; the server's
// banner line is logged without its "\r" (wire.LineReader drops it).
func TestGatewayCRLF(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	f := addServer(t, g, "c", "crlf")
	testkit.WaitFor(t, "the banner in the server's log", func() bool { return f.log.Has("stdout|crlf fake ready") })
	if strings.Contains(f.log.String(), "\r") {
		t.Errorf("a \\r reached the server's log:%s", f.log)
	}

	r := connectRaw(t, g, UpstreamOptions{})
	send := func(line string) {
		t.Helper()
		if _, err := r.conn.Write([]byte(line + "\r\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"crlf","version":"1"}}}`)
	if got := r.recv(t); !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", got)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if got := r.recv(t); !strings.Contains(got, `"name":"c__echo"`) {
		t.Errorf("tools/list: %s", got)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"c__echo","arguments":{"message":"over crlf"}}}`)
	if got, want := r.recv(t), `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"over crlf"}]}}`; got != want {
		t.Errorf("tools/call:\n got %q\nwant %q", got, want)
	}
}
