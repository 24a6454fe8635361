//go:build linux

package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The probe of issue 28, item 1: "name" twice in a tools/call's params.
// The gateway routed (and approved, and recorded) the first; the server,
// like every common decoder, read the last.
const dupKeyProbe = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mem__read_graph","arguments":{"entityNames":["victim"]},"name":"delete_entities"}}`

// TestDuplicateKeyProbeAgainstServerMemory: the real server-memory from
// npm behind the daemon. The probe, and its variant with the first key
// escaped, are refused through `mcptray connect` and over HTTP (/mcp,
// /mcp/mem) with -32600 naming the key; the entity is still there, and
// `mcptray history` records the one call that ran (the probes were
// recorded as read_graph while delete_entities ran).
func TestDuplicateKeyProbeAgainstServerMemory(t *testing.T) {
	peers := npmPeers(t)
	memory := filepath.Join(peers, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	if _, err := os.Stat(memory); err != nil {
		t.Fatalf("server-memory is not among the npm peers (scripts/npm-peers.sh): %v", err)
	}
	graph := filepath.Join(t.TempDir(), "memory.jsonl")
	if err := os.WriteFile(graph, []byte(`{"type":"entity","name":"victim","entityType":"person","observations":["still here"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := startDaemon(t, map[string]any{
		"mem": map[string]any{"command": "node", "args": []string{memory}, "env": map[string]string{"MEMORY_FILE_PATH": graph}},
	})
	in.WaitFor("mem ready", states("mem", "ready"))
	c := startLineClient(t, in)

	refused := func(how, line string) {
		t.Helper()
		if !strings.Contains(line, `"id":3`) || !strings.Contains(line, `"code":-32600`) || !strings.Contains(line, `duplicate key \"name\" in params`) {
			t.Errorf("%s: %s; want -32600 naming the key", how, line)
		}
	}
	for _, probe := range []string{dupKeyProbe, strings.Replace(dupKeyProbe, `{"name"`, `{"na\u006de"`, 1)} {
		c.send(probe)
		refused("connect", c.next(`"id":3`))
	}
	t.Run("http", func(t *testing.T) {
		url, tok := in.endpointAndToken(t)
		for _, route := range []struct{ path, probe string }{
			{"", dupKeyProbe},
			{"/mem", strings.Replace(dupKeyProbe, "mem__read_graph", "read_graph", 1)},
		} {
			refused("POST /mcp"+route.path, postMCP(t, url+route.path, tok, route.probe))
		}
	})

	c.send(`{"jsonrpc":"2.0","id":"read","method":"tools/call","params":{"name":"mem__read_graph","arguments":{}}}`)
	if line := c.next(`"id":"read"`); !strings.Contains(line, "still here") {
		t.Errorf("the entity is gone: %s", line)
	}
	var h struct {
		Calls []struct{ Server, Tool string } `json:"calls"`
	}
	waitFor(t, "read_graph in the history", func() bool {
		_, out, _ := in.Run("history", "--json")
		return json.Unmarshal([]byte(out), &h) == nil && len(h.Calls) >= 1
	})
	if len(h.Calls) != 1 || h.Calls[0].Tool != "read_graph" {
		t.Errorf("history records %+v; want the one read_graph that ran", h.Calls)
	}
}

// next returns the next line that holds want (a server's answer may have
// its id last).
func (c *lineClient) next(want string) string {
	c.t.Helper()
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading a line with %s: %v", want, err)
		}
		if strings.Contains(line, want) {
			return line
		}
	}
}

// postMCP initializes an HTTP session at url and posts body in it,
// returning the answer's body.
func postMCP(t *testing.T, url, tok, body string) string {
	t.Helper()
	session := ""
	post := func(b string) string {
		t.Helper()
		req, _ := http.NewRequest("POST", url, strings.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if session == "" {
			session = resp.Header.Get("Mcp-Session-Id")
		}
		return string(out)
	}
	post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`)
	if session == "" {
		t.Fatalf("no session at %s", url)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return post(body)
}
