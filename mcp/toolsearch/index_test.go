package toolsearch

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func names(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Server+"/"+h.Name)
	}
	return out
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"create_pull_request":        {"create", "pull", "request"},
		"API-retrieve-a-page":        {"api", "retrieve", "a", "page"},
		"getHTTPStatusCode":          {"get", "http", "status", "code"},
		"slack_post_message v2":      {"slack", "post", "message", "v2"},
		"listDirectoryWithSizes":     {"list", "directory", "with", "sizes"},
		"Read  the file's contents.": {"read", "the", "file", "s", "contents"},
		"":                           nil,
	} {
		if got := words(in); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTerms(t *testing.T) {
	// Both sides meet: plurals and verb forms, phrases, same-meaning words.
	for a, b := range map[string]string{
		"list the files":        "listing file",
		"create a pull request": "creating PR",
		"open merge requests":   "open MR",
		"make a folder":         "make directories",
		"remove the repo":       "delete repositories",
		"the updated issue":     "update tickets",
		"modified entries":      "modify entry",
		"look up coordinates":   "lookup coordinate",
		"knowledge graph":       "memory",
		"running operations":    "run operation",
	} {
		if ta, tb := terms(a), terms(b); !slices.Equal(ta, tb) {
			t.Errorf("terms(%q) = %q, terms(%q) = %q: want the same", a, ta, b, tb)
		}
	}
}

func TestSearchFindsByEveryField(t *testing.T) {
	x := New()
	x.Set("files", []Tool{
		{Name: "list_directory", Description: "Lists entries."},
		{Name: "stat", Description: "Metadata of a path.", InputSchema: map[string]any{"type": "object",
			"properties": map[string]any{"path": map[string]any{"type": "string", "description": "The file to inspect"}}}},
	})
	x.Set("kanban", []Tool{{Name: "moveCard", Description: "Moves a card to another column."}})
	for q, want := range map[string]string{
		"folder listing":       "files/list_directory", // name, through a synonym and a stem
		"inspect":              "files/stat",           // a parameter's description
		"kanban":               "kanban/moveCard",      // the server's name
		"move card":            "kanban/moveCard",      // camel case
		"another column":       "kanban/moveCard",      // the description
		"please RENAME a card": "kanban/moveCard",      // a related word, any case
	} {
		hits := x.Search(q, 1, nil)
		if got := names(hits); len(got) != 1 || got[0] != want {
			t.Errorf("Search(%q) = %v, want %s first", q, got, want)
		}
	}
}

func TestSearchNothingToSearch(t *testing.T) {
	x := New()
	x.Set("s", []Tool{{Name: "the_tool", Description: "Does the thing."}})
	for _, q := range []string{"", "   ", "please find the", "?!"} {
		if hits := x.Search(q, 10, nil); hits != nil {
			t.Errorf("Search(%q) = %v, want nothing", q, names(hits))
		}
	}
	if hits := x.Search("zebra", 10, nil); hits != nil {
		t.Errorf("a word no tool has found %v", names(hits))
	}
	if hits := New().Search("anything", 10, nil); hits != nil {
		t.Errorf("an empty index found %v", names(hits))
	}
}

func TestSearchBadSchema(t *testing.T) {
	// A schema that is not a JSON object is not searched; its tool still is.
	x := New()
	x.Set("s", []Tool{
		{Name: "a_tool", Description: "Sends a fax.", InputSchema: json.RawMessage(`{"properties": `)},
		{Name: "b_tool", Description: "Sends a fax.", InputSchema: []byte(`[1, 2]`)},
		{Name: "c_tool", Description: "Sends a fax.", InputSchema: 42},
		{Name: "d_tool", Description: "Sends a fax.", InputSchema: json.RawMessage(`{"properties": {"recipient": {"description": "Who gets the fax"}}}`)},
	})
	if got := names(x.Search("fax", 0, nil)); len(got) != 4 {
		t.Errorf("Search(fax) = %v, want all four", got)
	}
	if got := names(x.Search("recipient", 0, nil)); !slices.Equal(got, []string{"s/d_tool"}) {
		t.Errorf("Search(recipient) = %v, want s/d_tool", got)
	}
}

func TestSetReplacesOneServer(t *testing.T) {
	x := New()
	x.Set("a", []Tool{{Name: "send_fax"}, {Name: "read_fax"}})
	x.Set("b", []Tool{{Name: "send_mail"}})
	if x.Len() != 3 {
		t.Fatalf("Len = %d, want 3", x.Len())
	}
	x.Set("a", []Tool{{Name: "send_telex"}})
	if got := names(x.Search("send", 0, nil)); !slices.Equal(got, []string{"a/send_telex", "b/send_mail"}) {
		t.Errorf("after Set(a): Search(send) = %v", got)
	}
	if got := x.Search("fax", 0, nil); got != nil {
		t.Errorf("a's old tools are still found: %v", names(got))
	}
	x.Remove("a")
	x.Remove("nobody")
	if got := names(x.Search("send", 0, nil)); !slices.Equal(got, []string{"b/send_mail"}) {
		t.Errorf("after Remove(a): Search(send) = %v", got)
	}
	x.Set("b", nil)
	if x.Len() != 0 || len(x.df) != 0 || x.fieldLen != [numFields]float64{} {
		t.Errorf("empty index keeps statistics: n %d, df %v, lengths %v", x.Len(), x.df, x.fieldLen)
	}
}

func TestSetIsIncremental(t *testing.T) {
	// An index built server by server in any order, with updates along the
	// way, ranks exactly as one built once from the final tools.
	c := loadCatalogue(t)
	tools := c.tools(t)
	once := c.index(t, defaultScorer)
	x := New()
	x.Set("github", tools["gitlab"])
	x.Set("memory", tools["slack"])
	for _, s := range c.Servers {
		x.Set(s.Name, tools[s.Name])
	}
	x.Set("stray", tools["notion"])
	x.Remove("stray")
	for _, tk := range loadTasks(t) {
		a, b := once.Search(tk.Query, 5, nil), x.Search(tk.Query, 5, nil)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%q: built once %v, built by updates %v", tk.Query, a, b)
		}
	}
}

func TestSearchKeep(t *testing.T) {
	x := New()
	x.Set("fs", []Tool{{Name: "delete_file"}, {Name: "delete_directory"}})
	x.Set("git", []Tool{{Name: "delete_branch"}})
	var asked []string
	keep := func(server, tool string) bool {
		asked = append(asked, server+"/"+tool)
		return tool != "delete_file" && server != "git"
	}
	if got := names(x.Search("delete", 10, keep)); !slices.Equal(got, []string{"fs/delete_directory"}) {
		t.Errorf("Search with keep = %v, want only fs/delete_directory", got)
	}
	if len(asked) != 3 {
		t.Errorf("keep was asked about %v, want each tool once", asked)
	}
}

func TestSearchLimitAndOrder(t *testing.T) {
	x := New()
	var tools []Tool
	for i := range 20 {
		tools = append(tools, Tool{Name: fmt.Sprintf("send_%02d", i)})
	}
	x.Set("s", tools)
	hits := x.Search("send", 5, nil)
	if len(hits) != 5 {
		t.Fatalf("limit 5 gave %d hits", len(hits))
	}
	// Equal scores: by server, then name.
	if got := names(hits); !slices.Equal(got, []string{"s/send_00", "s/send_01", "s/send_02", "s/send_03", "s/send_04"}) {
		t.Errorf("ties not broken by name: %v", got)
	}
	if n := len(x.Search("send", 0, nil)); n != 20 {
		t.Errorf("limit 0 gave %d hits, want all 20", n)
	}
}

func TestSearchHints(t *testing.T) {
	// Two tools the words alone cannot tell apart: the annotations decide.
	yes, no := true, false
	x := New()
	x.Set("notes", []Tool{
		{Name: "note_a", Description: "Notes.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "note_b", Description: "Notes.", Annotations: &sdk.ToolAnnotations{DestructiveHint: &yes}},
		{Name: "note_c", Description: "Notes.", Annotations: &sdk.ToolAnnotations{DestructiveHint: &no}},
	})
	for q, want := range map[string]string{
		"show notes":   "notes/note_a",
		"forget notes": "notes/note_b",
	} {
		if got := names(x.Search(q, 1, nil)); !slices.Equal(got, []string{want}) {
			t.Errorf("Search(%q) = %v, want %s", q, got, want)
		}
	}
}

func TestSearchWhileSetting(t *testing.T) {
	// Run with -race: searches share the index with updates.
	c := loadCatalogue(t)
	tools := c.tools(t)
	x := c.index(t, defaultScorer)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				if w%2 == 0 {
					s := c.Servers[(i+w)%len(c.Servers)].Name
					x.Set(s, tools[s])
				} else if hits := x.Search("create a pull request", 5, nil); len(hits) == 0 {
					t.Error("a search during updates found nothing")
					return
				}
			}
		})
	}
	wg.Wait()
	if x.Len() != 114 {
		t.Errorf("Len = %d after the updates, want 114", x.Len())
	}
}
