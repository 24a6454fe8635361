package toolsearch

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// index500 is the catalogue copied over until it holds n tools (github,
// github-2, …), as one person's 20-odd servers would.
func index500(b *testing.B, n int) (*Index, []task) {
	c := loadCatalogue(b)
	tools := c.tools(b)
	x := New()
	for copy := 1; x.Len() < n; copy++ {
		for _, s := range c.Servers {
			name := s.Name
			if copy > 1 {
				name = fmt.Sprintf("%s-%d", s.Name, copy)
			}
			ts := tools[s.Name]
			if left := n - x.Len(); len(ts) > left {
				ts = ts[:left]
			}
			if len(ts) > 0 {
				x.Set(name, ts)
			}
		}
	}
	return x, loadTasks(b)
}

// BenchmarkToolSearch500 is one search over 500 tools, the labeled tasks'
// queries in turn, top 10 (the target: under 5 ms).
func BenchmarkToolSearch500(b *testing.B) {
	x, tasks := index500(b, 500)
	if x.Len() != 500 {
		b.Fatalf("%d tools", x.Len())
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		x.Search(tasks[i%len(tasks)].Query, 10, nil)
		i++
	}
}

// BenchmarkToolSearchSet is one server's update (GitHub's 26 tools)
// in an index of 500: what a list_changed costs.
func BenchmarkToolSearchSet(b *testing.B) {
	x, _ := index500(b, 500)
	tools := loadCatalogue(b).tools(b)["github"]
	b.ReportAllocs()
	for b.Loop() {
		x.Set("github", tools)
	}
}

// BenchmarkToolSearchFigures prints the tool search's figures (recall
// against plain BM25, the live list's size) as "toolsearch: " lines,
// which make bench gathers under "Tool search:". Other packages' benchmarks
// may add lines with the same prefix (the dynamic list's size, a typical
// answer's).
func BenchmarkToolSearchFigures(b *testing.B) {
	f := measure(b)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x, tasks := index500(b, 500)
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	// Each task's query 20 times: a fixed amount of work, timed once.
	start := time.Now()
	n := 0
	for range 20 {
		for _, tk := range tasks {
			x.Search(tk.Query, 10, nil)
			n++
		}
	}
	perQuery := time.Since(start) / time.Duration(n)
	for b.Loop() {
	}
	for _, l := range f.lines() {
		b.Log("toolsearch: " + l)
	}
	b.Logf("toolsearch: search over 500 tools: %.2f ms a query (target: under 5 ms); the index of 500 tools ≈ %d KiB of heap",
		float64(perQuery)/1e6, heap/1024)
	b.ReportMetric(f.ours[0], "recall@1")
	b.ReportMetric(f.ours[2], "recall@5")
}
