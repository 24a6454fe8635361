package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/toolsearch"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcptray__search_tools: dynamic mode's way in. The index holds every
// server's tools as the meta tools show them (live when ready, else last
// known) and is kept up to date by refresh, one server at a time (Set
// when its list changed, Remove when it is gone); a query only reads it.
// What the person decided (tools off, held back) is applied per query,
// from the catalogue, so a switch needs no re-index.

const (
	metaSearch = builtinPrefix + "search_tools"

	searchDefaultLimit = 10
	searchMaxLimit     = 25
	// searchSchemaHits is how many of the best hits carry their full
	// description and input schema, so the assistant can call one at once;
	// the rest carry a line and no schema (describe_tool gives it).
	searchSchemaHits = 5
	// briefMax bounds a tool's line in list_tools and the lesser hits.
	briefMax = 100

	approvalNote = "a call waits for the person's yes in mcptray (the call returns once they answer)"
)

// searchIndex is the gateway's tool index for dynamic mode.
type searchIndex struct {
	idx atomic.Pointer[toolsearch.Index] // nil until a dynamic view exists; set once by refresh
	// indexed is what idx holds per server: the list it was given,
	// compared by pointer (a re-list makes new tools). Owned by refresh
	// (under Gateway.refreshMu).
	indexed map[string][]*downstream.Tool
}

// shownTools is a server's tools as the meta tools show them: live when
// it is ready, else the last known ones (cached in the store, or seen
// since mcptray started). ok is false when neither is known of it.
func shownTools(d *downServer, conf *ConfiguredServer) (state string, tools []*downstream.Tool, raws []json.RawMessage, ok bool) {
	switch {
	case d != nil && d.sess != nil:
		return "ready", d.tools, d.raw, true
	case conf != nil:
		state = conf.State
		if state == "" {
			state = "not running"
		}
		if !conf.Enabled {
			state = "disabled"
		}
		return state, conf.CachedTools, conf.CachedRaw, true
	case d != nil:
		return "not running", d.tools, d.raw, true
	}
	return "", nil, nil, false
}

// syncSearch brings the index up to date with snap, server by server.
// Called by refresh (under refreshMu) when a dynamic view exists.
func (g *Gateway) syncSearch(snap *snapshot) {
	s := &g.search
	idx := s.idx.Load()
	if idx == nil {
		idx = toolsearch.New()
		s.indexed = map[string][]*downstream.Tool{}
		if len(snap.builtins) > 0 {
			var ts []toolsearch.Tool
			for i := range snap.builtins {
				b := &snap.builtins[i]
				ts = append(ts, toolsearch.Tool{Name: b.Name, Description: b.Description, InputSchema: b.InputSchema})
			}
			idx.Set(builtinHost, ts)
		}
	}
	seen := make(map[string]bool, len(snap.order))
	for _, name := range snap.order {
		var d *downServer
		if dd, ok := snap.down[name]; ok {
			d = &dd
		}
		var conf *ConfiguredServer
		if c, ok := snap.conf[name]; ok {
			conf = &c
		}
		_, tools, _, ok := shownTools(d, conf)
		if !ok {
			continue
		}
		seen[name] = true
		if prev, had := s.indexed[name]; had && slices.Equal(prev, tools) {
			continue
		}
		s.indexed[name] = tools
		idx.Set(name, searchTools(tools))
	}
	for name := range s.indexed {
		if !seen[name] {
			delete(s.indexed, name)
			idx.Remove(name)
		}
	}
	s.idx.Store(idx)
}

// searchTools is a server's tools as the index takes them.
func searchTools(tools []*downstream.Tool) []toolsearch.Tool {
	out := make([]toolsearch.Tool, 0, len(tools))
	for _, t := range tools {
		out = append(out, toolsearch.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations})
	}
	return out
}

// searchArgs are search_tools' arguments.
type searchArgs struct {
	Query  string `json:"query"`
	Limit  *int   `json:"limit"`
	Server string `json:"server"`
}

// searchAnswer is search_tools' result (its structuredContent, and its
// text as JSON).
type searchAnswer struct {
	Tools []foundTool `json:"tools"`
}

// foundTool is one hit of search_tools.
type foundTool struct {
	Name        string          `json:"name"` // "server__tool", as live mode lists it
	Server      string          `json:"server"`
	Tool        string          `json:"tool"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
	Score       float64         `json:"score"`
	State       string          `json:"state"`              // the server's: ready, disabled, starting, …
	Hint        string          `json:"hint,omitempty"`     // how to turn the server on, when it is not ready
	Approval    string          `json:"approval,omitempty"` // set when a call waits for the person
}

// searchOutputSchema is search_tools' outputSchema.
var searchOutputSchema = map[string]any{
	"type":     "object",
	"required": []any{"tools"},
	"properties": map[string]any{"tools": map[string]any{
		"type": "array",
		"items": map[string]any{
			"type":     "object",
			"required": []any{"name", "server", "tool", "score", "state"},
			"properties": map[string]any{
				"name":        map[string]any{"type": "string"},
				"server":      map[string]any{"type": "string"},
				"tool":        map[string]any{"type": "string"},
				"description": map[string]any{"type": "string"},
				"inputSchema": map[string]any{"type": "object"},
				"annotations": map[string]any{"type": "object"},
				"score":       map[string]any{"type": "number"},
				"state":       map[string]any{"type": "string"},
				"hint":        map[string]any{"type": "string"},
				"approval":    map[string]any{"type": "string"},
			},
		},
	}},
}

// parseSearchArgs reads search_tools' arguments; a bad one is isError
// text a model can act on.
func (v *view) parseSearchArgs(raw json.RawMessage) (searchArgs, *sdk.CallToolResult) {
	var a searchArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return a, errorResult(`bad arguments: want {"query": "words", "limit": 10, "server": "optional"}: ` + err.Error())
		}
	}
	a.Query = strings.TrimSpace(a.Query)
	if a.Query == "" {
		return a, errorResult(`missing "query": say in a few words what the tool should do, e.g. "post a message to a Slack channel"`)
	}
	if a.Limit == nil {
		n := searchDefaultLimit
		a.Limit = &n
	}
	if *a.Limit < 1 || *a.Limit > searchMaxLimit {
		return a, errorResult(fmt.Sprintf(`"limit" must be from 1 to %d (got %d)`, searchMaxLimit, *a.Limit))
	}
	if !v.key.aggregate() {
		if a.Server != "" && a.Server != v.key.server {
			return a, errorResult(fmt.Sprintf("unknown server %q: this endpoint serves only %q", a.Server, v.key.server))
		}
		a.Server = v.key.server
	}
	return a, nil
}

func (v *view) searchMeta(raw json.RawMessage) (sdk.Result, error) {
	a, bad := v.parseSearchArgs(raw)
	if bad != nil {
		return bad, nil
	}
	cat := v.catalogue()
	byName := make(map[string]*metaServer, len(cat))
	for i := range cat {
		byName[cat[i].Name] = &cat[i]
	}
	if a.Server != "" && byName[a.Server] == nil {
		return errorResult(fmt.Sprintf("unknown server %q; call %s to see the servers", a.Server, metaList)), nil
	}
	tools := make(map[[2]string]*metaTool)
	for _, ms := range cat {
		if a.Server != "" && ms.Name != a.Server {
			continue
		}
		for _, t := range ms.Tools {
			if t.refused == "" { // off or held back: not found
				tools[[2]string{ms.Name, t.Name}] = t
			}
		}
	}
	var hits []toolsearch.Hit
	if idx := v.g.search.idx.Load(); idx != nil {
		hits = idx.Search(a.Query, *a.Limit, func(server, tool string) bool { return tools[[2]string{server, tool}] != nil })
	}
	var prefixes map[string]string
	if v.key.aggregate() {
		prefixes, _ = serverPrefixes(v.routes.Load().servers)
	}
	ans := searchAnswer{Tools: []foundTool{}}
	for _, h := range hits {
		t := tools[[2]string{h.Server, h.Name}]
		if t == nil { // gone since the index saw it
			continue
		}
		ms := byName[h.Server]
		f := foundTool{Server: h.Server, Tool: h.Name, Score: math.Round(h.Score*1000) / 1000, State: ms.State, Hint: ms.Hint}
		switch {
		case t.builtin != nil:
			f.Name = builtinPrefix + t.Name
		case v.key.aggregate():
			f.Name = prefixedName(prefixes[h.Server], h.Server, h.Name)
		default:
			f.Name = singleName(h.Name)
		}
		if ms.State != "ready" && f.Hint == "" {
			f.Hint = v.g.notReadyText(ms.Name)
		}
		if t.approve {
			f.Approval = approvalNote
		}
		if len(ans.Tools) < searchSchemaHits {
			f.Description = t.Description
			f.InputSchema, f.Annotations = t.sentSchema()
		} else {
			f.Description = brief(t.Description)
		}
		ans.Tools = append(ans.Tools, f)
	}
	text, err := json.Marshal(ans)
	if err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(text)}}, StructuredContent: json.RawMessage(text)}, nil
}

// sentSchema is the tool's input schema and annotations, as the server
// sent them when known.
func (t *metaTool) sentSchema() (schema, ann json.RawMessage) {
	switch {
	case t.builtin != nil:
		b := builtinTool(t.builtin, t.Name)
		schema, _ = json.Marshal(b.InputSchema)
		return schema, nil
	case t.raw != nil:
		var sent struct {
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations json.RawMessage `json:"annotations"`
		}
		if json.Unmarshal(t.raw, &sent) == nil && sent.InputSchema != nil {
			return sent.InputSchema, sent.Annotations
		}
	}
	if t.tool == nil {
		return nil, nil
	}
	if t.tool.InputSchema != nil {
		schema, _ = json.Marshal(t.tool.InputSchema)
	}
	if t.tool.Annotations != nil {
		ann, _ = json.Marshal(t.tool.Annotations)
	}
	return schema, ann
}

// brief is a description's first sentence, at most briefMax characters
// (cut at a word, with "…").
func brief(desc string) string {
	s := strings.TrimSpace(desc)
	if line, _, ok := strings.Cut(s, "\n"); ok {
		s = strings.TrimSpace(line)
	}
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			s = s[:i+1]
			break
		}
	}
	r := []rune(s)
	if len(r) <= briefMax {
		return s
	}
	cut := string(r[:briefMax-1])
	if i := strings.LastIndexByte(cut, ' '); i > briefMax/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
