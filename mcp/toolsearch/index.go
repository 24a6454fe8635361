package toolsearch

import (
	"math"
	"sort"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool as the index reads it.
type Tool struct {
	Server      string // Set fills it in with its server argument
	Name        string
	Description string
	// InputSchema is the tool's input schema: map[string]any (as the SDK
	// decodes a server's tools/list), json.RawMessage, []byte, or any
	// value that marshals to a JSON object. nil or anything else: the
	// parameters are not searched.
	InputSchema any
	Annotations *sdk.ToolAnnotations // nil: no hints
}

// Hit is one tool a search found.
type Hit struct {
	Server string
	Name   string
	Score  float64 // higher is better; only comparable within one search
}

// Index is a search index over the tools of several servers. Set and
// Remove change one server's tools without touching the others'; Search
// reads the index as it is, and may run from any goroutine, alongside Set.
// The zero Index is not ready: use New.
type Index struct {
	mu sync.RWMutex // guards the fields below
	// servers maps a server's name to its tools' documents.
	servers map[string][]*doc
	// df counts the documents holding a term, in any field.
	df map[string]int
	// n counts the documents; fieldLen adds up each field's length over them.
	n        int
	fieldLen [numFields]float64
	scorer   scorer
}

// New returns an empty index with mcptray's ranking.
func New() *Index {
	return newIndex(defaultScorer)
}

func newIndex(s scorer) *Index {
	return &Index{servers: map[string][]*doc{}, df: map[string]int{}, scorer: s}
}

// Set replaces the tools of one server (Tool.Server is set to server).
// An empty list is the same as Remove.
func (x *Index) Set(server string, tools []Tool) {
	docs := make([]*doc, 0, len(tools))
	for _, t := range tools {
		t.Server = server
		docs = append(docs, x.scorer.newDoc(t))
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.removeLocked(server)
	if len(docs) == 0 {
		return
	}
	x.servers[server] = docs
	for _, d := range docs {
		x.count(d, 1)
	}
}

// Remove drops a server's tools.
func (x *Index) Remove(server string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.removeLocked(server)
}

func (x *Index) removeLocked(server string) {
	for _, d := range x.servers[server] {
		x.count(d, -1)
	}
	delete(x.servers, server)
}

// count adds (sign 1) or takes away (-1) a document's share of the
// collection's statistics.
func (x *Index) count(d *doc, sign int) {
	x.n += sign
	for f := range d.length {
		x.fieldLen[f] += float64(sign) * float64(d.length[f])
	}
	for t := range d.tf {
		if x.df[t] += sign; x.df[t] <= 0 {
			delete(x.df, t)
		}
	}
}

// Len is the number of tools in the index.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.n
}

// Search returns the tools that match query, best first, at most limit
// of them (limit ≤ 0: every match). keep, when not nil, says which tools
// may be found at all (the person's switches); the others are skipped
// before scoring. A query with no word to search for (empty, or only
// words like "the" and "please") finds nothing. Ties are broken by
// server, then tool name, so the same index and query give the same list.
func (x *Index) Search(query string, limit int, keep func(server, tool string) bool) []Hit {
	q := x.scorer.query(query)
	if len(q.groups) == 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	st := stats{n: x.n, df: x.df}
	for f := range x.fieldLen {
		if x.n > 0 {
			st.avgLen[f] = x.fieldLen[f] / float64(x.n)
		}
	}
	var hits []Hit
	for _, docs := range x.servers {
		for _, d := range docs {
			if keep != nil && !keep(d.server, d.name) {
				continue
			}
			if s := x.scorer.score(&q, d, &st); s > 0 {
				hits = append(hits, Hit{Server: d.server, Name: d.name, Score: s})
			}
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return a.Name < b.Name
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// stats is the collection as one search sees it.
type stats struct {
	n      int
	df     map[string]int
	avgLen [numFields]float64
}

// idf is BM25's inverse document frequency, never negative.
func (s *stats) idf(term string) float64 {
	df := float64(s.df[term])
	return math.Log(1 + (float64(s.n)-df+0.5)/(df+0.5))
}
