//go:build linux

package mcp

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// discoverLine is what the Vercel AI SDK sends first.
const discoverLine = `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ai-sdk","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`

// server/discover is answered -32601, as by a server that predates the
// 2026-07-28 protocol, alone or in a batch, and initialize works after it.
func TestServerDiscoverIsMethodNotFound(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	r := connectRaw(t, g, UpstreamOptions{})
	r.send(t, discoverLine)
	if got, want := r.recv(t), `{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`; got != want {
		t.Errorf("server/discover:\n got %s\nwant %s", got, want)
	}
	r.send(t, `[{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{}}]`)
	if got := r.recv(t); !strings.Contains(got, `"id":"d","error":{"code":-32601`) {
		t.Errorf("server/discover in a batch: %s", got)
	}
	r.initialize(t)
	r.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"after discover"}}}`)
	if got := r.recv(t); !strings.Contains(got, "after discover") {
		t.Errorf("call after server/discover: %s", got)
	}

	srv := httpGateway(t, g, "tok")
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(discoverLine))
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"error":{"code":-32601,"message":"Method not found"}`) {
		t.Errorf("server/discover over HTTP: %s %s", resp.Status, body)
	}
}
