//go:build linux

package mcp

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/mcptray/mcptray/mcp/downstream"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// catalogueServers is search's catalogue of real servers' tools
// (mcp/toolsearch/testdata/catalogue.json: 11 npm servers, 114 tools, as
// their tools/list gave them) as configured servers whose last known
// tools they are.
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

// listSizes measures, over the real catalogue, the full list (what live
// mode lists once every server is ready: stable mode lists the same
// definitions from the servers' last known tools), the dynamic list, and
// search answers of 5 and 10 tools.
func listSizes(t testing.TB) (full, dyn, dynCount, search5, search10 int) {
	g, _ := newTestGateway(t, GatewayOptions{})
	g.SetConfigured(catalogueServers(t))
	stable := connectStream(t, g, UpstreamOptions{Tools: ToolsStable}, nil)
	dynamic := connectStream(t, g, UpstreamOptions{Tools: ToolsDynamic}, nil)
	full, _ = listBytes(t, stable.ClientSession)
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
// of the full list's bytes (issue 36).
func TestDynamicListIsSmall(t *testing.T) {
	full, dyn, n, _, _ := listSizes(t)
	if n > 6 || dyn*20 > full {
		t.Errorf("dynamic list: %d tools, %d bytes; the full list %d bytes (%.1f %%)", n, dyn, full, 100*float64(dyn)/float64(full))
	}
	t.Logf("full list %d bytes, dynamic %d bytes (%.1f %%)", full, dyn, 100*float64(dyn)/float64(full))
}

// BenchmarkDynamicListBytes reports, in one run, the bytes (and tokens,
// at 4 bytes a token) of the full tool list over the real catalogue, of
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
