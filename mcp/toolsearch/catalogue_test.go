package toolsearch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// catalogue is testdata/catalogue.json: the tools/list of real servers
// from npm (scripts/tool-catalogue.sh).
type catalogue struct {
	Servers []struct {
		Name    string            `json:"name"`
		Package string            `json:"package"`
		Version string            `json:"version"`
		Tools   []json.RawMessage `json:"tools"`
	} `json:"servers"`
}

// task is one labeled task of testdata/tasks.json.
type task struct {
	Query   string   `json:"query"`
	Want    []string `json:"want"`    // server/tool; any of them is a right answer
	Holdout bool     `json:"holdout"` // held out from tuning
	Fresh   bool     `json:"fresh"`   // written after tuning ended, never tuned on
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("reading testdata/%s: %v", name, err)
	}
}

func loadCatalogue(t testing.TB) catalogue {
	t.Helper()
	var c catalogue
	readJSON(t, "catalogue.json", &c)
	return c
}

func loadTasks(t testing.TB) []task {
	t.Helper()
	var f struct {
		Tasks []task `json:"tasks"`
	}
	readJSON(t, "tasks.json", &f)
	return f.Tasks
}

// tools decodes a server's tools as the gateway holds them: sdk.Tool,
// whose input schema a client decodes to map[string]any.
func (c catalogue) tools(t testing.TB) map[string][]Tool {
	t.Helper()
	out := map[string][]Tool{}
	for _, s := range c.Servers {
		for _, raw := range s.Tools {
			var st sdk.Tool
			if err := json.Unmarshal(raw, &st); err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			out[s.Name] = append(out[s.Name], Tool{Server: s.Name, Name: st.Name, Description: st.Description,
				InputSchema: st.InputSchema, Annotations: st.Annotations})
		}
	}
	return out
}

// listBytes is the size of the catalogue as one tools/list result
// ({"tools": [...]}, compact, each tool as its server sent it): what the
// live mode puts in an assistant's context, before mcptray's prefixes.
func (c catalogue) listBytes(t testing.TB) int {
	t.Helper()
	var all []json.RawMessage
	for _, s := range c.Servers {
		all = append(all, s.Tools...)
	}
	b, err := json.Marshal(map[string]any{"tools": all})
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

func (c catalogue) index(t testing.TB, s scorer) *Index {
	t.Helper()
	x := newIndex(s)
	tools := c.tools(t)
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		x.Set(n, tools[n])
	}
	return x
}
