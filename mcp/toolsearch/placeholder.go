// Package toolsearch ranks MCP tools for a query.
//
// PLACEHOLDER: a substring matcher behind the API the search branch
// builds (issue 36), so the gateway's dynamic mode can be written against
// it. It is deleted when that branch is merged; it must not ship.
package toolsearch

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// Tool is one tool as the index sees it.
type Tool struct {
	Server      string
	Name        string
	Description string
	InputSchema json.RawMessage
	Annotations json.RawMessage
}

// Hit is one match, best first.
type Hit struct {
	Server string
	Name   string
	Score  float64
}

// Index holds the tools of every server.
type Index struct {
	mu    sync.RWMutex
	tools map[string][]Tool
}

// New makes an empty index.
func New() *Index { return &Index{tools: map[string][]Tool{}} }

// Set replaces the tools of server.
func (x *Index) Set(server string, tools []Tool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.tools[server] = slices.Clone(tools)
}

// Remove forgets server.
func (x *Index) Remove(server string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.tools, server)
}

// Search ranks the tools keep allows for query.
func (x *Index) Search(query string, limit int, keep func(server, tool string) bool) []Hit {
	x.mu.RLock()
	defer x.mu.RUnlock()
	words := strings.Fields(strings.ToLower(query))
	var hits []Hit
	for server, tools := range x.tools {
		for _, t := range tools {
			if keep != nil && !keep(server, t.Name) {
				continue
			}
			text := strings.ToLower(server + " " + t.Name + " " + t.Description)
			n := 0
			for _, w := range words {
				if strings.Contains(text, w) {
					n++
				}
			}
			if n > 0 {
				hits = append(hits, Hit{Server: server, Name: t.Name, Score: float64(n)})
			}
		}
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Server+"\x00"+a.Name, b.Server+"\x00"+b.Name)
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}
