package toolsearch

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestExplain shows why the catalogue ranks as it does for one query:
// TOOLSEARCH_EXPLAIN="query" go test -run TestExplain -v ./mcp/toolsearch
// prints the query's terms and, for the first hits, each term's share.
func TestExplain(t *testing.T) {
	text := os.Getenv("TOOLSEARCH_EXPLAIN")
	if text == "" {
		t.Skip("set TOOLSEARCH_EXPLAIN to a query")
	}
	x := loadCatalogue(t).index(t, defaultScorer)
	q := x.scorer.query(text)
	t.Logf("terms %v, intent %d", q.groups, q.intent)
	st := stats{n: x.n, df: x.df}
	for f := range x.fieldLen {
		st.avgLen[f] = x.fieldLen[f] / float64(x.n)
	}
	for _, h := range x.Search(text, 8, nil) {
		var d *doc
		for _, dd := range x.servers[h.Server] {
			if dd.name == h.Name {
				d = dd
			}
		}
		var parts []string
		for _, g := range q.groups {
			one := query{groups: [][]qterm{g}}
			if s := x.scorer.score(&one, d, &st); s > 0 {
				parts = append(parts, fmt.Sprintf("%s=%.2f", g[0].term, s))
			}
		}
		t.Logf("%.2f %s/%s: %s", h.Score, h.Server, h.Name, strings.Join(parts, " "))
	}
}
