package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Dynamic mode shows four tools instead of every server's: search the
// tools for a task (gateway_search.go), list the servers and their tools
// in brief, describe one tool, call one tool. mcptray's own tools appear
// there as the server "mcptray".
const (
	metaList     = builtinPrefix + "list_tools"
	metaDescribe = builtinPrefix + "describe_tool"
	metaCall     = builtinPrefix + "call_tool"
	builtinHost  = "mcptray"
)

func (v *view) metaTools() []exposed {
	serverProp := map[string]any{"type": "string", "description": "The server, as search_tools gives it."}
	toolProp := map[string]any{"type": "string", "description": "The tool's name on that server (\"tool\" in search_tools' answer)."}
	required := []any{"server", "tool"}
	if !v.key.aggregate() {
		required = []any{"tool"}
	}
	return []exposed{
		{&sdk.Tool{Name: metaSearch,
			Description: "Finds the tools for a task among all the MCP servers mcptray runs. Start here: say what you want done in a few words (\"post a message to a Slack channel\", \"files changed in a pull request\"). The best matches come first, the top ones with their input schema: then call one with " + metaCall + ".",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"query":  map[string]any{"type": "string", "description": "The task or keywords."},
				"limit":  map[string]any{"type": "integer", "minimum": 1, "maximum": searchMaxLimit, "description": fmt.Sprintf("At most this many tools (default %d).", searchDefaultLimit)},
				"server": map[string]any{"type": "string", "description": "Only this server's tools (optional)."}},
				"required": []any{"query"}},
			OutputSchema: searchOutputSchema,
		}, &route{kind: routeSearch}},
		{&sdk.Tool{Name: metaList,
			Description: "Lists the MCP servers, their state, and their tools' names with one line each, to browse. To find a tool for a task, use " + metaSearch + ".",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"server": map[string]any{"type": "string", "description": "Only this server (optional)."}}},
		}, &route{kind: routeListMeta}},
		{&sdk.Tool{Name: metaDescribe,
			Description: "Gives one tool's full description and input schema (" + metaSearch + " already gives them for its top matches).",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"server": serverProp, "tool": toolProp}, "required": required},
		}, &route{kind: routeDescribe}},
		{&sdk.Tool{Name: metaCall,
			Description: "Calls a tool found with " + metaSearch + ": its server, its tool, and arguments as its inputSchema says. Returns the tool's own result. A call may wait for the person's approval.",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"server": serverProp, "tool": toolProp,
				"arguments": map[string]any{"type": "object", "description": "The tool's arguments."}}, "required": required},
		}, &route{kind: routeCallMeta}},
	}
}

// metaServer is a server as the meta tools show it.
type metaServer struct {
	Name  string      `json:"name"`
	State string      `json:"state"`
	Hint  string      `json:"hint,omitempty"`
	Tools []*metaTool `json:"tools"`
}

type metaTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	tool        *downstream.Tool
	raw         json.RawMessage // tool as the server sent it; nil: unknown
	builtin     *BuiltinTool
	refused     string // why the tool is off or held back (not listed); "" if it is not
	approve     bool   // its calls wait for the person's yes
}

// catalogue is every server the view shows with its tools, live or last
// known.
func (v *view) catalogue() []metaServer {
	g := v.g
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []metaServer
	if v.key.aggregate() && len(g.opts.Builtins) > 0 {
		ms := metaServer{Name: builtinHost, State: "ready"}
		for i := range g.opts.Builtins {
			b := &g.opts.Builtins[i]
			ms.Tools = append(ms.Tools, &metaTool{Name: b.Name, Description: b.Description, builtin: b})
		}
		out = append(out, ms)
	}
	for _, name := range v.routes.Load().servers {
		ms := metaServer{Name: name, Tools: []*metaTool{}}
		var conf *ConfiguredServer
		for i := range g.configured {
			if g.configured[i].Name == name {
				conf = &g.configured[i]
			}
		}
		state, tools, raws, ok := shownTools(g.down[name], conf)
		if !ok {
			continue
		}
		ms.State = state
		if state == "disabled" {
			ms.Hint = "turn it on with: mcptray toggle " + name + " on"
		}
		pol := g.policyLocked(name)
		for i, t := range tools {
			var raw json.RawMessage
			if i < len(raws) {
				raw = raws[i]
			}
			ms.Tools = append(ms.Tools, &metaTool{Name: t.Name, Description: t.Description, tool: t, raw: raw,
				refused: pol.refusal(name, t.Name), approve: pol.NeedsApproval(t)})
		}
		out = append(out, ms)
	}
	return out
}

type metaArgs struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

func (v *view) metaArgs(raw json.RawMessage) (metaArgs, error) {
	var a metaArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return a, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments: " + err.Error()}
		}
	}
	if !v.key.aggregate() && a.Server == "" {
		a.Server = v.key.server
	}
	return a, nil
}

// listMeta is the compact browse view: each server, its state, and its
// tools' names with the first sentence of each description (brief).
func (v *view) listMeta(raw json.RawMessage) (sdk.Result, error) {
	a, err := v.metaArgs(raw)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	var shown []metaServer
	for _, ms := range v.catalogue() {
		if a.Server != "" && ms.Name != a.Server {
			continue
		}
		tools := []*metaTool{}
		for _, t := range ms.Tools {
			if t.refused == "" { // off or held back: not shown
				tools = append(tools, &metaTool{Name: t.Name, Description: brief(t.Description)})
			}
		}
		ms.Tools = tools
		shown = append(shown, ms)
		fmt.Fprintf(&b, "%s (%s", ms.Name, ms.State)
		if ms.Hint != "" {
			fmt.Fprintf(&b, "; %s", ms.Hint)
		}
		b.WriteString(")\n")
		for _, t := range ms.Tools {
			if desc := t.Description; desc != "" {
				fmt.Fprintf(&b, "  - %s: %s\n", t.Name, desc)
			} else {
				fmt.Fprintf(&b, "  - %s\n", t.Name)
			}
		}
	}
	if a.Server != "" && len(shown) == 0 {
		return errorResult(fmt.Sprintf("unknown server %q; call %s without arguments to see them all", a.Server, metaList)), nil
	}
	if len(shown) == 0 {
		b.WriteString("no servers\n")
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: b.String()}},
		StructuredContent: map[string]any{"servers": shown},
	}, nil
}

// findMeta finds a tool in the catalogue.
func (v *view) findMeta(a metaArgs) (*metaServer, *metaTool, *sdk.CallToolResult) {
	if a.Tool == "" {
		return nil, nil, errorResult(`missing "tool"`)
	}
	for _, ms := range v.catalogue() {
		if ms.Name != a.Server {
			continue
		}
		for _, t := range ms.Tools {
			if t.Name == a.Tool {
				return &ms, t, nil
			}
		}
		if conf, _ := v.g.serverState(ms.Name); conf.State == "needs-sign-in" {
			// Its tools are not known before the person signs in.
			return nil, nil, errorResult(v.g.notReadyText(ms.Name))
		}
		return nil, nil, errorResult(fmt.Sprintf("server %q has no tool %q; call %s to see its tools", a.Server, a.Tool, metaList))
	}
	return nil, nil, errorResult(fmt.Sprintf("unknown server %q; call %s to see the servers", a.Server, metaList))
}

func (v *view) describeMeta(raw json.RawMessage) (sdk.Result, error) {
	a, err := v.metaArgs(raw)
	if err != nil {
		return nil, err
	}
	_, t, bad := v.findMeta(a)
	if bad != nil {
		return bad, nil
	}
	if t.refused != "" {
		return errorResult(t.refused), nil
	}
	var desc any
	switch {
	case t.builtin != nil:
		desc = builtinTool(t.builtin, t.Name)
	case t.raw != nil: // as the server sent it (gateway_tools_raw.go)
		desc = t.raw
	default:
		desc = t.tool
	}
	b, err := json.MarshalIndent(desc, "", "  ")
	if err != nil {
		return nil, err
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}, StructuredContent: desc}, nil
}

func (v *view) callMeta(ctx context.Context, up *upstream, raw json.RawMessage, meta sdk.Meta) (sdk.Result, error) {
	a, err := v.metaArgs(raw)
	if err != nil {
		return nil, err
	}
	ms, t, bad := v.findMeta(a)
	if bad != nil {
		return bad, nil
	}
	if t.builtin != nil {
		return callBuiltin(ctx, t.builtin, a.Arguments)
	}
	if t.refused != "" {
		return errorResult(t.refused), nil
	}
	if ms.State != "ready" {
		return errorResult(v.g.notReadyText(ms.Name)), nil
	}
	if t.approve {
		if res := v.g.approve(ctx, up, ms.Name, t.Name, t.tool.Annotations, a.Arguments, meta); res != nil {
			return res, nil
		}
	}
	return v.g.forward(ctx, up, ms.Name, t.Name, a.Arguments, meta)
}
