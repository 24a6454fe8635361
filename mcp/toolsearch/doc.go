// Package toolsearch ranks MCP tools for a query in plain words: the
// search behind dynamic mode's mcptray__search_tools. It is pure Go over
// data the gateway hands it; it imports no package of the module (only
// the SDK, for sdk.ToolAnnotations), starts no goroutine and holds no
// resource, so there is nothing to close.
//
// # API
//
//	x := toolsearch.New()
//	x.Set("github", []toolsearch.Tool{{Name: "create_issue", Description: "…", InputSchema: schema, Annotations: ann}})
//	x.Remove("github")
//	hits := x.Search("open a ticket about the crash", 10, func(server, tool string) bool { return allowed })
//	// hits[0].Server, hits[0].Name, hits[0].Score: best first
//
// Set replaces one server's tools (on list_changed, reload, a server
// turned off): only that server's documents are analysed, and the
// collection's statistics are adjusted by its share, so no query and no
// other server's update rebuilds anything. Search may run from any
// goroutine at the same time as Set and Remove (a sync.RWMutex: searches
// share it, an update takes it alone for the time it takes to swap one
// server's documents in). Search's keep callback is the person's say
// (tools turned off, held back by pinning): a tool it refuses is never
// scored. Tool.InputSchema takes the schema the way the gateway has it
// (map[string]any from the SDK, or raw JSON); a schema that does not
// parse is not an error: its tool is still found by name and description.
// Search with no searchable word (an empty query, or only "please find
// the") returns nil: the caller says so to the model.
//
// # Ranking
//
// BM25F over four fields of each tool: its name split into words (snake,
// kebab and camel case; with the annotations' title), its server's name,
// its description, and its parameters' names and descriptions (input
// schema properties, and those of nested objects and arrays, two levels
// down), each with its own weight and length normalisation (score.go).
// Both sides go through the same analysis (text.go, synonyms.go): stop
// words out, a small suffix stemmer ("files", "listing", "created"),
// phrases made one word ("pull request" = "PR"), words that mean the same
// here made one ("folder" = "directory", "remove" = "delete"), and, on
// the query side only, related words searched at a lower weight ("find"
// also looks for "search", "forget" for "delete"). Annotations move a
// score a little when the query's verb says what kind of tool it wants:
// readOnlyHint for "list/show/what", destructiveHint for
// "delete/forget". The figures, against plain BM25 on the catalogue of
// real servers in testdata, are in docs/performance.md ("Tool search");
// TestRecall holds them.
//
// # Measurements
//
// testdata/catalogue.json is the tools/list of eleven npm servers at
// pinned versions (scripts/tool-catalogue.sh writes it; the file names
// each package and version); testdata/tasks.json is the labeled tasks.
// The plain BM25 baseline lives in bm25_test.go: only the measurements
// link it. TestRecall asserts the targets; make bench repeats, under
// "Tool search:", every line a benchmark logs with the prefix
// "toolsearch: " (BenchmarkToolSearchFigures here: recall against plain
// BM25, the live list's size, a search's time over 500 tools) and the
// gateway's "dynamic list: " line (the dynamic list's and a search
// answer's size). A benchmark elsewhere adds a figure by logging a line
// with the "toolsearch: " prefix.
package toolsearch
