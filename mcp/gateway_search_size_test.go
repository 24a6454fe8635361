//go:build linux

package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// catalogueServers is search's catalogue of real servers' tools
// (mcp/toolsearch/testdata/catalogue.json: 11 npm servers, 114 tools, as
// their tools/list gave them) as configured servers whose last known
// tools they are (CachedRaw: each tool as the server sent it).
func catalogueServers(t testing.TB) []ConfiguredServer {
	t.Helper()
	b, err := os.ReadFile("toolsearch/testdata/catalogue.json")
	if err != nil {
		t.Fatal(err)
	}
	var cat struct {
		Servers []struct {
			Name  string            `json:"name"`
			Tools []json.RawMessage `json:"tools"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(b, &cat); err != nil {
		t.Fatal(err)
	}
	var out []ConfiguredServer
	for _, s := range cat.Servers {
		c := ConfiguredServer{Name: s.Name, Enabled: true, State: "ready", CachedRaw: s.Tools}
		for _, raw := range s.Tools {
			var tool downstream.Tool
			if err := json.Unmarshal(raw, &tool); err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			c.CachedTools = append(c.CachedTools, &tool)
		}
		out = append(out, c)
	}
	return out
}

// listBytes is a session's tools/list as JSON, and how many tools.
func listBytes(t testing.TB, cs *sdk.ClientSession) (int, int) {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Tools)
	return len(b), len(res.Tools)
}

// listSizes measures, over the real catalogue served by real
// subprocesses (mode listed: each server's tools/list as the npm server
// gave it), the live list, the dynamic list, and search answers of 5 and
// 10 tools.
func listSizes(t testing.TB) (live, dyn, dynCount, search5, search10 int) {
	g, _ := newTestGateway(t, GatewayOptions{})
	servers := catalogueServers(t)
	g.SetConfigured(servers)
	dir := t.TempDir()
	for _, s := range servers {
		file := filepath.Join(dir, s.Name+".json")
		b, _ := json.Marshal(s.CachedRaw)
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		addServer(t, g, s.Name, "listed", withEnv(mcptest.ListFileEnv+"="+file))
	}
	all := connectStream(t, g, UpstreamOptions{Tools: toolsLive}, nil)
	dynamic := connectStream(t, g, UpstreamOptions{Tools: ToolsDynamic}, nil)
	live, n := listBytes(t, all.ClientSession)
	if n != 114 {
		t.Fatalf("the live list has %d tools, want the catalogue's 114", n)
	}
	dyn, dynCount = listBytes(t, dynamic.ClientSession)
	for _, n := range []int{5, 10} {
		res, _, err := dynamic.call(t, metaSearch, map[string]any{"query": "post a message to a slack channel", "limit": n})
		if err != nil || res.IsError {
			t.Fatalf("search: %v %+v", err, res)
		}
		if n == 5 {
			search5 = len(textOf(t, res))
		} else {
			search10 = len(textOf(t, res))
		}
	}
	return
}

// TestDynamicListIsSmall: over the real catalogue (114 tools of 11 npm
// servers), dynamic mode's tool list is at most 6 tools and at most 5 %
// of the live list's bytes (issue 36).
func TestDynamicListIsSmall(t *testing.T) {
	live, dyn, n, _, _ := listSizes(t)
	if n > 6 || dyn*20 > live {
		t.Errorf("dynamic list: %d tools, %d bytes; the live list %d bytes (%.1f %%)", n, dyn, live, 100*float64(dyn)/float64(live))
	}
	t.Logf("live list %d bytes, dynamic %d bytes (%.1f %%)", live, dyn, 100*float64(dyn)/float64(live))
}

// BenchmarkDynamicListBytes reports, in one run, the bytes (and tokens,
// at 4 bytes a token) of the live tool list over the real catalogue, of
// dynamic mode's list, and of a search answer of 5 and of 10 tools
// (make bench; docs/performance.md).
func BenchmarkDynamicListBytes(b *testing.B) {
	var full, dyn, s5, s10 int
	for b.Loop() {
		full, dyn, _, s5, s10 = listSizes(b)
	}
	b.ReportMetric(float64(full), "live-list-bytes")
	b.ReportMetric(float64(full)/4, "live-list-tokens")
	b.ReportMetric(float64(dyn), "dynamic-list-bytes")
	b.ReportMetric(float64(dyn)/4, "dynamic-list-tokens")
	b.ReportMetric(float64(s5), "search5-bytes")
	b.ReportMetric(float64(s10), "search10-bytes")
	b.ReportMetric(float64(s10)/4, "search10-tokens")
	b.ReportMetric(0, "ns/op")
	b.Logf("dynamic list: live %d bytes (≈%d tokens), dynamic %d bytes (≈%d tokens, %.1f %%), search answer limit 5: %d bytes (≈%d tokens), limit 10: %d bytes (≈%d tokens)",
		full, full/4, dyn, dyn/4, 100*float64(dyn)/float64(full), s5, s5/4, s10, s10/4)
}
