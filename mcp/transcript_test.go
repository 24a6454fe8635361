//go:build linux

package mcp

import (
	"bytes"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from what the gateway sends")

// TestTranscriptFastPath is the gateway's stream session as bytes: the
// JSON-RPC lines an assistant sends in ("> ") and every line the gateway
// sends out ("< "), in order, against testdata/transcript_fastpath.golden
// (go test ./mcp/ -run TestTranscriptFastPath -update rewrites it). It
// covers the handshake, tools/list, tools/call on the fast path (with a
// progress token, so the server's progress notifications come through),
// notifications in, and errors: an unknown tool, an unknown method, a line
// that is not JSON.
func TestTranscriptFastPath(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	addServer(t, g, "e", "echo")
	r := connectRaw(t, g, UpstreamOptions{})

	var tr bytes.Buffer
	// exchange sends in and records the lines out up to and including the
	// answer with id want ("" for a notification in, which has none).
	exchange := func(in, want string) {
		t.Helper()
		tr.WriteString("> " + in + "\n")
		r.send(t, in)
		if want == "" {
			return
		}
		r.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			line, _, err := r.lr.Next()
			if err != nil {
				t.Fatalf("reading the answer to %s: %v", in, err)
			}
			tr.WriteString("< " + string(line) + "\n")
			if strings.Contains(string(line), `"id":`+want+`,`) && !strings.Contains(string(line), `"method":`) {
				return
			}
		}
	}
	exchange(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"transcript","version":"1"}}}`, `0`)
	exchange(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ``)
	exchange(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `1`)
	exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"hi"}}}`, `2`)
	exchange(`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"r__slow","arguments":{"steps":2,"ms":1},"_meta":{"progressToken":"p3"}}}`, `"three"`)
	exchange(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"gone","reason":"no such call"}}`, ``)
	exchange(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"e__nope","arguments":{}}}`, `4`)
	exchange(`{"jsonrpc":"2.0","id":5,"method":"no/such/method"}`, `5`)
	exchange(`{not json`, `null`)
	exchange(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"e__add","arguments":{"a":2,"b":3}}}`, `6`)

	testkit.Golden(t, filepath.Join("testdata", "transcript_fastpath.golden"), tr.Bytes(), *update,
		"go test ./mcp/ -run TestTranscriptFastPath -update")
}
