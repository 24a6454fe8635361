package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// gatewayProtocolVersions are the versions assistants may speak, newest
// first (server/discover lists them so): 2026-07-28 per request, without
// a session (gateway_wire26.go), the others after initialize.
var gatewayProtocolVersions = []string{protocol2026, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// viewKey names a view: one server ("" for all) in one tool-list mode.
type viewKey struct{ server, mode string }

func (k viewKey) aggregate() bool { return k.server == "" }

// A view is what one kind of upstream session sees: an sdk.Server holding
// the exposed tools, resources and prompts, and the routes behind them.
// Every upstream session of the view shares its sdk.Server, so the SDK
// sends list_changed to all of them when the catalogue changes.
type view struct {
	g   *Gateway
	key viewKey
	srv *sdk.Server

	routes atomic.Pointer[routeTable] // read lock-free on the hot path; swapped by sync

	// Owned by sync (under Gateway.refreshMu): fingerprints of what is
	// registered on srv, to add and remove only what changed.
	toolFP, promptFP, resourceFP, templateFP map[string]string
	// toolChanges counts the changes of the tool list sync made on srv
	// (each one a list_changed the SDK sends): none when a server re-sent
	// the same list.
	toolChanges atomic.Uint64

	// What a relayed result gets on the new wire (gateway_wire26.go),
	// set once by newView: the view's serverInfo as JSON, and the bytes
	// completeEdits splices with it.
	serverInfo, completePre, infoMember, metaObject, metaMember []byte
}

// routeTable maps exposed names to servers. It is never changed once
// published.
type routeTable struct {
	tools     map[string]*route      // by exposed tool name
	prompts   map[string]promptRoute // by exposed prompt name
	resources map[string]string      // resource URI → server
	templates []templateRoute        // in view order
	servers   []string               // the view's servers, in order
}

type routeKind int

const (
	routeTool     routeKind = iota // a server's tool
	routeBuiltin                   // mcptray__<builtin>
	routeListMeta                  // dynamic: list servers and tools
	routeDescribe                  // dynamic: describe one tool
	routeCallMeta                  // dynamic: call one tool
	routeSearch                    // dynamic: search the tools (gateway_search.go)
	routeRefused                   // a name that could be two servers' (names.go: shadowing): refused
)

// route is where an exposed tool leads.
type route struct {
	kind     routeKind
	server   string
	tool     string              // the server's own name for it
	toolJSON []byte              // tool as a JSON string, ready to splice
	listed   json.RawMessage     // the definition as the server sent it, under the exposed name; nil: the SDK's encoding (gateway_tools_raw.go)
	sess     *downstream.Session // the server's session when it was ready at sync time; nil: not ready
	// approve: a call waits for the person's yes (ToolPolicy.NeedsApproval),
	// so it never takes the fast path.
	approve bool
	// params are the Mcp-Param-* headers the listed definition binds
	// (x-mcp-header: gateway_http_params.go); nil when none.
	params  []paramBinding
	ann     *sdk.ToolAnnotations // the tool's annotations, for the approval request
	builtin *BuiltinTool
	refused string // routeRefused: why, for the isError text
}

type promptRoute struct{ server, name string }

type templateRoute struct {
	prefix string // the template's text before its first '{'
	server string
}

func (g *Gateway) newView(key viewKey) *view {
	v := &view{g: g, key: key,
		toolFP: map[string]string{}, promptFP: map[string]string{},
		resourceFP: map[string]string{}, templateFP: map[string]string{}}
	v.routes.Store(&routeTable{tools: map[string]*route{}, prompts: map[string]promptRoute{}, resources: map[string]string{}})
	impl := &sdk.Implementation{Name: "mcptray", Title: "mcptray", Version: downstream.Version()}
	if !key.aggregate() {
		impl.Name = "mcptray/" + key.server
	}
	v.setWireBytes(impl)
	v.srv = sdk.NewServer(impl, &sdk.ServerOptions{
		Logger: sdkLogger(g.log),
		Capabilities: &sdk.ServerCapabilities{
			Tools:       &sdk.ToolCapabilities{ListChanged: true},
			Resources:   &sdk.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Prompts:     &sdk.PromptCapabilities{ListChanged: true},
			Logging:     &sdk.LoggingCapabilities{},
			Completions: &sdk.CompletionCapabilities{},
		},
		SupportedProtocolVersions: gatewayProtocolVersions,
		CompletionHandler:         v.complete,
		SubscribeHandler:          v.subscribe,
		UnsubscribeHandler:        v.unsubscribe,
		InitializedHandler:        v.initialized,
		SetCacheable:              cacheable, // gateway_wire26.go
	})
	v.srv.AddReceivingMiddleware(v.middleware)
	return v
}

// view returns the view for a route and mode, making it on first use.
func (g *Gateway) view(server, mode string) (*view, error) {
	switch mode {
	case "":
		mode = toolsLive
	case toolsLive, ToolsStable, ToolsDynamic:
	default:
		return nil, fmt.Errorf("unknown tools mode %q (want live, stable or dynamic)", mode)
	}
	key := viewKey{server, mode}
	g.mu.Lock()
	v := g.views[key]
	if v == nil && server != "" && g.down[server] == nil && !slices.ContainsFunc(g.configured, func(c ConfiguredServer) bool { return c.Name == server }) {
		g.mu.Unlock()
		return nil, fmt.Errorf("unknown server %q", server)
	}
	created := false
	if v == nil {
		v = g.newView(key)
		g.views[key] = v
		created = true
	}
	g.mu.Unlock()
	if created {
		g.refresh()
	}
	return v, nil
}

// includes reports whether the view shows server.
func (v *view) includes(server string) bool {
	return v.key.aggregate() || v.key.server == server
}

// snapshot is the gateway's state for one refresh.
type snapshot struct {
	order    []string // configured servers in file order, then the others by name
	conf     map[string]ConfiguredServer
	down     map[string]downServer
	policies map[string]*ToolPolicy
	builtins []BuiltinTool
}

// refresh brings every view up to date with the gateway's state.
func (g *Gateway) refresh() {
	g.refreshMu.Lock()
	defer g.refreshMu.Unlock()
	g.mu.Lock()
	snap := snapshot{conf: map[string]ConfiguredServer{}, down: map[string]downServer{}, policies: maps.Clone(g.policies), builtins: g.opts.Builtins}
	for name := range g.held {
		snap.policies[name] = g.policyLocked(name)
	}
	for _, c := range g.configured {
		if _, dup := snap.conf[c.Name]; !dup {
			snap.conf[c.Name] = c
			snap.order = append(snap.order, c.Name)
		}
	}
	var extra []string
	for name, d := range g.down {
		snap.down[name] = *d
		if _, ok := snap.conf[name]; !ok {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	snap.order = append(snap.order, extra...)
	views := slices.Collect(maps.Values(g.views))
	g.mu.Unlock()

	if slices.ContainsFunc(views, func(v *view) bool { return v.key.mode == ToolsDynamic }) {
		g.syncSearch(&snap) // gateway_search.go
	}

	for _, v := range views {
		for _, c := range v.sync(&snap) {
			g.mu.Lock()
			seen := g.logged[c]
			g.logged[c] = true
			g.mu.Unlock()
			if !seen {
				g.log.Warn("tool name collision", "detail", c)
			}
		}
	}
}

// exposed is one tool as a view exposes it.
type exposed struct {
	tool  *sdk.Tool
	route *route
}

// pendingTool is a server's tool that a view exposes, before its name is
// given.
type pendingTool struct {
	server string
	t      *downstream.Tool
	raw    json.RawMessage // the definition as the server sent it; nil when unknown
	want   string          // toolName or singleName
	sess   *downstream.Session
	pol    *ToolPolicy
}

// assignNames gives each tool of todo its exposed name. A name stays with
// the tool that had it in the view's last routes: a tool that appears
// later (a server renaming its tools, or adding one through list_changed)
// and wants the same name gets the name with a hash, so a name an
// assistant listed, called or had approved never passes to another tool
// while mcptray runs. (Between servers no two tools want one name: the
// prefixes and shadowing in names.go see to that, without memory.) A tool
// now off or held back (offOrHeld, its refusal
// routes) keeps its name too: a call of it is refused saying why. The
// rest go in order (namer).
func (v *view) assignNames(nm *namer, todo []pendingTool, offOrHeld []*route) []string {
	names := make([]string, len(todo))
	if prev := v.routes.Load(); prev != nil {
		for i, p := range todo {
			r := prev.tools[p.want]
			had := r != nil && r.server == p.server && (r.kind == routeTool && r.tool == p.t.Name || r.kind == routeRefused)
			if had && !nm.taken[p.want] {
				names[i] = nm.assign(p.want, p.server, p.t.Name)
			}
		}
		for _, o := range offOrHeld {
			if r := prev.tools[o.tool]; r != nil && (r.kind == routeTool || r.kind == routeRefused) && r.server == o.server && !nm.taken[o.tool] {
				nm.reserve(o.tool, o.server+"/"+o.tool)
			}
		}
	}
	for i, p := range todo {
		if names[i] == "" {
			names[i] = nm.assign(p.want, p.server, p.t.Name)
		}
	}
	return names
}

// sync makes the view's sdk.Server match snap and publishes new routes. It
// returns the name collisions it resolved.
func (v *view) sync(snap *snapshot) []string {
	rt := &routeTable{tools: map[string]*route{}, prompts: map[string]promptRoute{}, resources: map[string]string{}}
	nm := newNamer()
	var tools []exposed

	if v.key.aggregate() {
		rt.servers = snap.order
	} else {
		rt.servers = []string{v.key.server}
	}

	var nested []prefixed // servers another's prefixed names could shadow
	var prefixes map[string]string
	var refused []*route
	if v.key.aggregate() {
		prefixes, nm.collisions = serverPrefixes(rt.servers)
		nested = nestedServers(rt.servers, prefixes)
	}
	if v.key.mode == ToolsDynamic {
		tools = v.metaTools()
	} else {
		if v.key.aggregate() {
			for i := range snap.builtins {
				b := &snap.builtins[i]
				name := builtinPrefix + b.Name
				nm.reserve(name, "mcptray/"+b.Name)
				tools = append(tools, exposed{builtinTool(b, name), &route{kind: routeBuiltin, server: "mcptray", tool: b.Name, builtin: b}})
			}
		}
		var todo []pendingTool
		var offOrHeld, shadowed []*route
		for _, server := range rt.servers {
			list, raws, sess := v.toolsOf(snap, server)
			pol := snap.policies[server]
			for i, t := range list {
				want := singleName(t.Name)
				if v.key.aggregate() {
					want = prefixedName(prefixes[server], server, t.Name)
				}
				if v.key.aggregate() {
					if owner, ok := shadowedBy(nested, server, prefixes[server], want); ok {
						nm.collisions = append(nm.collisions, shadowNote(server, t.Name, want, owner))
						shadowed = append(shadowed, &route{kind: routeRefused, server: server, tool: want, refused: shadowText(server, t.Name, want, owner)})
						continue
					}
				}
				if why := pol.refusal(server, t.Name); why != "" { // off or held back: not listed
					r := &route{kind: routeRefused, server: server, tool: want, refused: why}
					refused, offOrHeld = append(refused, r), append(offOrHeld, r)
					continue
				}
				var raw json.RawMessage
				if i < len(raws) {
					raw = raws[i]
				}
				todo = append(todo, pendingTool{server, t, raw, want, sess, pol})
			}
		}
		refused = append(refused, shadowed...) // the owner's refusal (its tool off or held back) says more
		names := v.assignNames(nm, todo, offOrHeld)
		for i, p := range todo {
			et, ok := exposeTool(p.t, names[i])
			if !ok {
				v.g.log.Warn("tool skipped: its input schema is not an object schema", "server", p.server, "tool", p.t.Name)
				continue
			}
			tools = append(tools, exposed{et, &route{kind: routeTool, server: p.server, tool: p.t.Name, toolJSON: wire.QuoteJSON(p.t.Name), sess: p.sess,
				listed: renamedTool(p.raw, names[i]), approve: p.pol.NeedsApproval(p.t), ann: p.t.Annotations,
				params: paramBindings(renamedTool(p.raw, names[i]))}})
		}
	}

	// Tools: remove what went away, add what is new or changed.
	want := map[string]string{}
	for _, e := range tools {
		rt.tools[e.tool.Name] = e.route
		fp, _ := json.Marshal(e.tool)
		want[e.tool.Name] = string(fp) + string(e.route.listed)
	}
	for _, r := range refused { // routed (to a refusal) but not listed
		if rt.tools[r.tool] == nil {
			rt.tools[r.tool] = r
		}
	}
	v.syncFeatures(snap, rt, nm, prefixes, nested)
	// Publish the routes before the SDK lists the tools (and sends
	// list_changed), so a tool is never listed before it can be called.
	v.routes.Store(rt)

	var gone []string
	for name := range v.toolFP {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
			delete(v.toolFP, name)
		}
	}
	if len(gone) > 0 {
		v.srv.RemoveTools(gone...)
		v.toolChanges.Add(1)
	}
	for _, e := range tools {
		if fp := want[e.tool.Name]; v.toolFP[e.tool.Name] != fp {
			v.toolFP[e.tool.Name] = fp
			v.srv.AddTool(e.tool, unreachableTool)
			v.toolChanges.Add(1)
		}
	}
	return nm.collisions
}

// toolsOf is a server's tools as the view shows them, the same as the
// server sent them (index for index; nil entries when unknown), and its
// session if it is ready.
func (v *view) toolsOf(snap *snapshot, server string) ([]*downstream.Tool, []json.RawMessage, *downstream.Session) {
	d, ok := snap.down[server]
	if ok && d.sess != nil {
		return d.tools, d.raw, d.sess
	}
	if v.key.mode == ToolsStable {
		if len(d.tools) > 0 {
			return d.tools, d.raw, nil // seen live since mcptray started
		}
		c := snap.conf[server]
		return c.CachedTools, c.CachedRaw, nil
	}
	return nil, nil, nil
}

// syncFeatures registers the ready servers' prompts, resources and
// resource templates on the view.
func (v *view) syncFeatures(snap *snapshot, rt *routeTable, tn *namer, prefixes map[string]string, nested []prefixed) {
	nm := newNamer()
	prompts := map[string]*sdk.Prompt{}
	resources := map[string]*sdk.Resource{}
	templates := map[string]*sdk.ResourceTemplate{}
	var promptOrder, resourceOrder, templateOrder []string
	if v.key.aggregate() {
		resourceOrder = v.g.addBuiltinResources(rt, resources)
	}
	for _, server := range rt.servers {
		d, ok := snap.down[server]
		if !ok || d.sess == nil {
			continue
		}
		for _, p := range d.prompts {
			name := p.Name
			if v.key.aggregate() {
				want := prefixedName(prefixes[server], server, p.Name)
				if owner, ok := shadowedBy(nested, server, prefixes[server], want); ok {
					tn.collisions = append(tn.collisions, "prompt "+shadowNote(server, p.Name, want, owner))
					continue
				}
				name = nm.assign(want, server, p.Name)
			} else if _, dup := prompts[name]; dup {
				continue
			}
			cp := *p
			cp.Name = name
			prompts[name] = &cp
			promptOrder = append(promptOrder, name)
			rt.prompts[name] = promptRoute{server, p.Name}
		}
		for _, r := range d.resources {
			if owner, dup := rt.resources[r.URI]; dup {
				tn.collisions = append(tn.collisions, fmt.Sprintf("resource %s is listed by %s and %s; %s serves it", r.URI, owner, server, owner))
				continue
			}
			rt.resources[r.URI] = server
			resources[r.URI] = r
			resourceOrder = append(resourceOrder, r.URI)
		}
		for _, t := range d.templates {
			if _, dup := templates[t.URITemplate]; dup {
				continue
			}
			templates[t.URITemplate] = t
			templateOrder = append(templateOrder, t.URITemplate)
			prefix, _, _ := strings.Cut(t.URITemplate, "{")
			rt.templates = append(rt.templates, templateRoute{prefix, server})
		}
	}
	tn.collisions = append(tn.collisions, nm.collisions...)

	syncSet(v.promptFP, promptOrder, func(k string) any { return prompts[k] },
		func(names []string) { v.srv.RemovePrompts(names...) },
		func(k string) {
			r := rt.prompts[k]
			v.srv.AddPrompt(prompts[k], v.g.promptHandler(v.key.aggregate(), r.server, r.name))
		})
	syncSet(v.resourceFP, resourceOrder, func(k string) any { return resources[k] },
		func(uris []string) { v.srv.RemoveResources(uris...) },
		func(k string) {
			defer v.recoverAdd("resource", k)
			v.srv.AddResource(resources[k], v.resourceHandlerFor(rt, k))
		})
	syncSet(v.templateFP, templateOrder, func(k string) any { return templates[k] },
		func(ts []string) { v.srv.RemoveResourceTemplates(ts...) },
		func(k string) {
			defer v.recoverAdd("resource template", k)
			v.srv.AddResourceTemplate(templates[k], v.g.templateHandler(v, k))
		})
}

// recoverAdd logs an item the SDK refused (it panics on invalid URIs).
func (v *view) recoverAdd(what, key string) {
	if r := recover(); r != nil {
		v.g.log.Warn(what+" skipped", "uri", key, "error", fmt.Sprint(r))
	}
}

// syncSet adds and removes registered items so that fps matches order.
func syncSet(fps map[string]string, order []string, item func(string) any, remove func([]string), add func(string)) {
	want := map[string]string{}
	for _, k := range order {
		b, _ := json.Marshal(item(k))
		want[k] = string(b)
	}
	var gone []string
	for k := range fps {
		if _, ok := want[k]; !ok {
			gone = append(gone, k)
			delete(fps, k)
		}
	}
	if len(gone) > 0 {
		remove(gone)
	}
	for _, k := range order {
		if fps[k] != want[k] {
			fps[k] = want[k]
			add(k)
		}
	}
}

// exposeTool copies t under name, with an input schema the SDK accepts
// (an object schema; a missing "type" is taken to mean object) and
// without x-mcp-header annotations, which the gateway checks itself
// (gateway_http_params.go). Every other field is kept as the server sent
// it; the assistant is shown the server's own definition (listedRaw).
func exposeTool(t *downstream.Tool, name string) (*sdk.Tool, bool) {
	cp, ok := exposeSchema(t, name)
	if ok {
		if m, isMap := cp.InputSchema.(map[string]any); isMap {
			cp.InputSchema, _ = withoutHeaderBindings(m)
		}
	}
	return cp, ok
}

// withoutHeaderBindings is the schema m without x-mcp-header in its
// properties, at any depth, and whether it had any (m is not changed).
func withoutHeaderBindings(m map[string]any) (map[string]any, bool) {
	props, ok := m["properties"].(map[string]any)
	if !ok {
		return m, false
	}
	var out map[string]any
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			continue
		}
		np, changed := withoutHeaderBindings(pm)
		if _, has := np["x-mcp-header"]; has {
			np, changed = maps.Clone(np), true
			delete(np, "x-mcp-header")
		}
		if changed {
			if out == nil {
				out = maps.Clone(props)
			}
			out[name] = np
		}
	}
	if out == nil {
		return m, false
	}
	cp := maps.Clone(m)
	cp["properties"] = out
	return cp, true
}

func exposeSchema(t *downstream.Tool, name string) (*sdk.Tool, bool) {
	cp := *t
	cp.Name = name
	switch s := t.InputSchema.(type) {
	case map[string]any:
		switch s["type"] {
		case "object":
		case nil:
			m := maps.Clone(s)
			m["type"] = "object"
			cp.InputSchema = m
		default:
			return nil, false
		}
	case nil:
		cp.InputSchema = map[string]any{"type": "object"}
	default:
		var m map[string]any
		b, err := json.Marshal(s)
		if err != nil || json.Unmarshal(b, &m) != nil {
			return nil, false
		}
		if m["type"] == nil {
			m["type"] = "object"
		} else if m["type"] != "object" {
			return nil, false
		}
		cp.InputSchema = m
	}
	return &cp, true
}

// unreachableTool is the handler registered with every exposed tool: the
// view's middleware answers tools/call before the SDK's dispatch.
func unreachableTool(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	return nil, errors.New("internal error: tool call not routed")
}

// middleware takes tools/call (every exposed tool is the gateway's),
// falls back across servers for resources/read, and forwards
// logging/setLevel.
func (v *view) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if err := checkLogLevel(req); err != nil { // gateway_loglevel.go
			return nil, err
		}
		switch method {
		case "tools/call":
			r := req.(*sdk.CallToolRequest)
			up := v.g.upstreamOf(r.Session, v)
			res, err := v.callTool(ctx, up, r)
			if raw, ok := res.(*rawResult); ok && requestIsNew(r.Params.Meta) {
				raw.raw = v.completeRaw(raw.raw) // gateway_wire26.go: the SDK's own results it completes itself
			}
			return res, err
		case "initialize":
			if ss, ok := req.GetSession().(*sdk.ServerSession); ok {
				v.g.upstreamOf(ss, v) // HTTP sessions are first seen here
			}
			res, err := next(ctx, method, req)
			if ir, ok := res.(*sdk.InitializeResult); ok && err == nil {
				return tasksInit{ir}, nil // gateway_tasks.go
			}
			return res, err
		case "tools/list":
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			return v.listedRaw(res), nil
		case "resources/read":
			if ss, ok := req.GetSession().(*sdk.ServerSession); ok {
				v.g.upstreamOf(ss, v) // HTTP sessions are first seen here; the park needs it (gateway_park_sdk.go)
			}
			res, err := next(ctx, method, req)
			var werr *jsonrpc.Error
			if err != nil && errors.As(err, &werr) && werr.Code == sdk.CodeResourceNotFound && werr.Message == "Resource not found" {
				if res2, err2 := v.readAnywhere(ctx, req.(*sdk.ReadResourceRequest)); err2 == nil {
					return res2, nil
				}
			}
			return res, err
		case "logging/setLevel":
			res, err := next(ctx, method, req)
			if err == nil {
				r := req.(*sdk.ServerRequest[*sdk.SetLoggingLevelParams])
				up := v.g.upstreamOf(r.Session, v)
				up.setLevel(string(r.Params.Level))
				go v.g.applyLevels()
			}
			return res, err
		}
		if ss, ok := req.GetSession().(*sdk.ServerSession); ok {
			v.g.upstreamOf(ss, v) // HTTP sessions are first seen here
		}
		return next(ctx, method, req)
	}
}

// callTool answers tools/call on the slow path: every HTTP call, and the
// stream calls the fast path left to the SDK (builtins, meta tools,
// servers that are not ready, HTTP servers, unknown names).
func (v *view) callTool(ctx context.Context, up *upstream, req *sdk.CallToolRequest) (sdk.Result, error) {
	name := req.Params.Name
	r := v.routes.Load().tools[name]
	if r == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	args := req.Params.Arguments
	switch r.kind {
	case routeBuiltin:
		return callBuiltin(ctx, r.builtin, args)
	case routeListMeta:
		return v.listMeta(args)
	case routeDescribe:
		return v.describeMeta(args)
	case routeCallMeta:
		return v.callMeta(withRetry(ctx, req.Params), up, args, req.Params.Meta) // a 2026-07-28 retry carries its answers (gateway_input_relay.go)
	case routeSearch:
		return v.searchMeta(args)
	case routeRefused:
		return errorResult(r.refused), nil
	}
	if r.approve {
		if res := v.g.approve(ctx, up, r.server, r.tool, r.ann, args, req.Params.Meta); res != nil {
			return res, nil
		}
	}
	return v.g.forward(withRetry(ctx, req.Params), up, r.server, r.tool, args, req.Params.Meta) // gateway_input.go
}
