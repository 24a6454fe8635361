package toolsearch

import (
	"fmt"
	"slices"
	"testing"
)

// cutoffs are the ranks recall is measured at.
var cutoffs = [...]int{1, 3, 5}

// recall is the share of tasks whose right tool (any of Want) is among the
// first k hits, for each k of cutoffs; misses names the tasks that miss
// at 5, with what came first.
func recall(x *Index, tasks []task) (r [len(cutoffs)]float64, misses []string) {
	if len(tasks) == 0 {
		return r, nil
	}
	for _, tk := range tasks {
		hits := x.Search(tk.Query, cutoffs[len(cutoffs)-1], nil)
		rank := -1
		for i, h := range hits {
			if slices.Contains(tk.Want, h.Server+"/"+h.Name) {
				rank = i
				break
			}
		}
		for i, k := range cutoffs {
			if rank >= 0 && rank < k {
				r[i]++
			}
		}
		if rank != 0 {
			first := "nothing"
			if len(hits) > 0 {
				first = hits[0].Server + "/" + hits[0].Name
			}
			held := ""
			if tk.Holdout {
				held = " (held out)"
			}
			if tk.Fresh {
				held = " (after tuning)"
			}
			misses = append(misses, fmt.Sprintf("%q%s: rank %d, want %v, first %s", tk.Query, held, rank+1, tk.Want, first))
		}
	}
	for i := range r {
		r[i] /= float64(len(tasks))
	}
	return r, misses
}

// figures are the tool search's measurements, one line each, as the test
// and make bench print them ("toolsearch: " lines; the Makefile gathers
// them under "Tool search:").
type figures struct {
	tools, servers, listBytes int
	tasks, holdout, fresh     int
	ours, base                [len(cutoffs)]float64 // every task
	oursHeld, baseHeld        [len(cutoffs)]float64 // the held-out tasks only
	oursFresh, baseFresh      [len(cutoffs)]float64 // the tasks written after tuning
	misses                    []string              // ours, at 1
}

func measure(t testing.TB) figures {
	c := loadCatalogue(t)
	tasks := loadTasks(t)
	var held, fresh []task
	for _, tk := range tasks {
		if tk.Holdout {
			held = append(held, tk)
		}
		if tk.Fresh {
			fresh = append(fresh, tk)
		}
	}
	ours, base := c.index(t, defaultScorer), c.index(t, bm25)
	f := figures{tools: ours.Len(), servers: len(c.Servers), listBytes: c.listBytes(t), tasks: len(tasks), holdout: len(held), fresh: len(fresh)}
	f.ours, f.misses = recall(ours, tasks)
	f.base, _ = recall(base, tasks)
	f.oursHeld, _ = recall(ours, held)
	f.baseHeld, _ = recall(base, held)
	f.oursFresh, _ = recall(ours, fresh)
	f.baseFresh, _ = recall(base, fresh)
	return f
}

func (f figures) lines() []string {
	row := func(name string, r [len(cutoffs)]float64) string {
		return fmt.Sprintf("%-28s recall@1 %.2f  @3 %.2f  @5 %.2f", name, r[0], r[1], r[2])
	}
	return []string{
		fmt.Sprintf("catalogue: %d tools of %d npm servers; live tools/list %d bytes (≈ %d tokens at 4 bytes a token)",
			f.tools, f.servers, f.listBytes, f.listBytes/4),
		row(fmt.Sprintf("mcptray, %d tasks:", f.tasks), f.ours),
		row(fmt.Sprintf("plain BM25, %d tasks:", f.tasks), f.base),
		row(fmt.Sprintf("mcptray, %d held out:", f.holdout), f.oursHeld),
		row(fmt.Sprintf("plain BM25, %d held out:", f.holdout), f.baseHeld),
		row(fmt.Sprintf("mcptray, %d after tuning:", f.fresh), f.oursFresh),
		row(fmt.Sprintf("plain BM25, %d after tuning:", f.fresh), f.baseFresh),
	}
}

// TestRecall holds the targets on the committed catalogue and
// tasks: recall@5 ≥ 0.9, recall@1 ≥ 0.7, and above plain BM25 at every
// cut-off. The ranking is pure, so the figures are the same on every run.
func TestRecall(t *testing.T) {
	f := measure(t)
	for _, l := range f.lines() {
		t.Log("toolsearch: " + l)
	}
	for _, m := range f.misses {
		t.Log("not first: " + m)
	}
	if f.tasks < 50 {
		t.Errorf("%d labeled tasks, want at least 50", f.tasks)
	}
	if f.ours[0] < 0.7 {
		t.Errorf("recall@1 = %.2f, want ≥ 0.7", f.ours[0])
	}
	if f.ours[2] < 0.9 {
		t.Errorf("recall@5 = %.2f, want ≥ 0.9", f.ours[2])
	}
	for i, k := range cutoffs {
		if f.ours[i] <= f.base[i] {
			t.Errorf("recall@%d = %.2f, not above plain BM25's %.2f", k, f.ours[i], f.base[i])
		}
	}
}

// TestRecallAblation logs what each part of the ranking adds: recall on
// every task with that part taken out (go test -v; docs/performance.md
// has the table). It asserts nothing.
func TestRecallAblation(t *testing.T) {
	c := loadCatalogue(t)
	tasks := loadTasks(t)
	variants := []struct {
		name string
		edit func(*scorer)
	}{
		{"mcptray", func(*scorer) {}},
		{"without stems, phrases, synonyms", func(s *scorer) { s.analyze = plainTerms; s.related = 0 }},
		{"without related words", func(s *scorer) { s.related = 0 }},
		{"without field weights", func(s *scorer) {
			s.weight = [numFields]float64{1, 1, 1, 1}
			s.b = [numFields]float64{0.75, 0.75, 0.75, 0.75}
		}},
		{"without annotations", func(s *scorer) { s.hint = 0 }},
		{"without the named server", func(s *scorer) { s.named = 0 }},
		{"without the name's action", func(s *scorer) { s.action = 0 }},
		{"without file names", func(s *scorer) { s.fileNames = false }},
	}
	for _, v := range variants {
		s := defaultScorer
		v.edit(&s)
		r, _ := recall(c.index(t, s), tasks)
		t.Logf("%-34s recall@1 %.2f  @3 %.2f  @5 %.2f", v.name+":", r[0], r[1], r[2])
	}
}
