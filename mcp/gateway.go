package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// defaultCallTimeout bounds one tool call through the gateway; the clock
// stops while an elicitation for that call waits for an answer.
const defaultCallTimeout = 5 * time.Minute

// Tool-list modes of an upstream session.
const (
	toolsLive    = "live"    // only ready servers; list_changed on every change
	ToolsStable  = "stable"  // every configured server's last known tools
	ToolsDynamic = "dynamic" // meta tools: search, list, describe, call
)

// Elicitation modes.
const (
	elicitAuto  = "auto"  // non-secret requests go to the assistant when it can take them
	ElicitLocal = "local" // everything goes to the inbox
)

// builtinPrefix starts the names of mcptray's own tools.
const builtinPrefix = "mcptray" + nameSep

// GatewayOptions configure a Gateway.
type GatewayOptions struct {
	Logger      *slog.Logger  // nil: slog.Default()
	CallTimeout time.Duration // per tool call; 0 means defaultCallTimeout
	// Builtins are mcptray's own tools, exposed as "mcptray__<Name>" on
	// aggregate routes (not on single-server routes, and in dynamic mode
	// only through the meta tools).
	Builtins []BuiltinTool
	// Elicit answers an elicitation the assistant cannot or must not see
	// (the inbox). It may block until a person answers; ctx ends when the
	// server gives up. nil answers "cancel".
	Elicit func(ctx context.Context, info ElicitInfo) (*sdk.ElicitResult, error)
	// ElicitComplete receives a server's notifications/elicitation/complete
	// for a URL elicitation that was not forwarded to an assistant (the
	// inbox had it). nil ignores them.
	ElicitComplete func(server, elicitationID string)
	// Elicitation is "auto" (the default) or "local".
	Elicitation string
	// BuiltinResources are mcptray's own resources (mcptray://events),
	// listed and read on aggregate routes; Gateway.ResourceUpdated tells
	// the sessions that subscribed to one that it changed.
	BuiltinResources []BuiltinResource
	// Approve asks the person whether a call of a tool that needs approval
	// (ToolPolicy.NeedsApproval) may go ahead; it may block until they
	// answer, or ctx ends (the assistant gave up). nil refuses every such
	// call.
	Approve func(ctx context.Context, req ApprovalRequest) (Approval, error)
	// CheckTools, when set, sees a server's tools each time they are listed
	// (SetServer, and every re-list), before any view shows them, and
	// returns the ones to hold back, by name, with why (pinned
	// descriptions that changed). SetHeld changes that set later. It runs
	// on the caller's goroutine and must not call back into the gateway.
	CheckTools func(server string, sess *downstream.Session, tools []*downstream.Tool) map[string]string
	// OnToolCall, when set, receives one record per tool call forwarded
	// to a server, once its reply (or error) is on its way. It is called
	// from the gateway's goroutines and must return at once.
	OnToolCall func(ToolCallRecord)
}

// ElicitInfo is an elicitation request on its way to the inbox.
type ElicitInfo struct {
	Server string // the server asking
	Tool   string // the tool call it belongs to (the server's own name); "" if none is in flight
	Client string // the assistant that made that call (its clientInfo name); "" if none
	// Request is what the server sent. Mode is always set ("form" or
	// "url"). For form mode RequestedSchema is the schema as decoded JSON
	// (map[string]any); format "password" is allowed here.
	Request *sdk.ElicitParams
	// Schema is the requested schema exactly as a stdio server sent it, so
	// its properties keep their order; nil when not known (use
	// Request.RequestedSchema).
	Schema json.RawMessage
	// Notice is set for a URL elicitation taken from a tool call's
	// URLElicitationRequired error (-32042): nobody waits for the answer
	// (the assistant got the error and may retry once it is completed).
	Notice bool
	// Secret is set when a field is secret (see SecretFields); the value
	// must then never leave the machine.
	Secret       bool
	SecretFields []string // the names of the secret fields, in schema order
	// Reason says why the request is not with the assistant, for the log:
	// "secret field", "elicitation is local", "no tool call in flight",
	// "the assistant does not support form elicitation", …
	Reason string
}

// BuiltinTool is one of mcptray's own tools.
type BuiltinTool struct {
	Name        string          // without the "mcptray__" prefix, e.g. "servers"
	Description string          // shown to the assistant
	InputSchema json.RawMessage // a JSON schema object; nil means {"type":"object"}
	// Call runs the tool. structured (if non-nil) becomes structuredContent
	// and text the text content; an error becomes an isError result with
	// the error's text.
	Call func(ctx context.Context, args json.RawMessage) (structured any, text string, err error)
}

// ConfiguredServer is one entry of the configuration, as the gateway needs
// it for stable and dynamic modes.
type ConfiguredServer struct {
	Name        string
	Enabled     bool
	State       string             // e.g. "ready", "starting", "error", "crash-loop", "disabled"
	CachedTools []*downstream.Tool // the last tools/list seen (from the store), for stable mode
	CachedRaw   []json.RawMessage  // the same tools as the server sent them, index for index; nil entries: unknown
}

// A Gateway re-exposes the tools, resources and prompts of the downstream
// servers it is given (SetServer) to any number of upstream (assistant)
// sessions (ServeStream, HTTPHandler). Safe for concurrent use.
//
// One sdk.Server exists per view (route × tool-list mode), shared by the
// upstream sessions of that view. tools/list, resources, prompts and the
// rest of the protocol are the SDK's; tools/call on a stream session goes
// past the SDK (upstream.go): its bytes are rewritten and forwarded to the
// server's stdin, and the reply comes back the same way.
type Gateway struct {
	opts        GatewayOptions
	log         *slog.Logger
	callTimeout atomic.Int64  // nanoseconds; SetSettings may change it
	elicitLocal atomic.Bool   // Elicitation is "local"; SetSettings may change it
	keepAlive   time.Duration // progress interval while an elicitation waits in the inbox
	seal        *stateSeal    // seals the requestStates relayed to assistants on 2026-07-28 (gateway_seal.go)

	mu         sync.Mutex
	down       map[string]*downServer           // guarded by mu: by server name
	configured []ConfiguredServer               // guarded by mu
	views      map[viewKey]*view                // guarded by mu
	upstreams  map[*sdk.ServerSession]*upstream // guarded by mu
	httpUps    map[string]*upstream             // guarded by mu: HTTP sessions by Mcp-Session-Id
	httpIdle   time.Duration                    // guarded by mu: HTTPOptions.SessionIdle
	httpUnused time.Duration                    // guarded by mu: HTTPOptions.UnusedSessionIdle
	httpMax    int                              // guarded by mu: HTTPOptions.MaxSessions
	subs       map[subKey]int                   // guarded by mu: upstream subscriptions per server and URI
	urlElicits map[string]*upstream             // guarded by mu: URL elicitations forwarded upstream, by elicitation id
	logReqs    map[*logRequest]bool             // guarded by mu: 2026-07-28 requests other than tools/call with a log level, in flight (gateway_loglevel.go)
	rawElicits map[elicitKey]context.CancelFunc // guarded by mu: stdio servers' elicitations in flight
	logged     map[string]bool                  // guarded by mu: name collisions already logged
	policies   map[string]*ToolPolicy           // guarded by mu: by server name (gateway_policy.go); never changed once set
	held       map[string]map[string]string     // guarded by mu: tools held back by server, with why (CheckTools, SetHeld); never changed once set

	refreshMu sync.Mutex  // serialises refresh: the views' sdk.Servers change under it
	search    searchIndex // dynamic mode's tool index, kept by refresh (gateway_search.go)

	parkMu     sync.Mutex
	parks      map[uint64]*park // guarded by parkMu: parked calls by number (gateway_park.go)
	parkLifeNs atomic.Int64     // how long a parked call waits for its retry; 0: defaultParkLife (tests set it)

	calls   callTable
	tasks   taskTable        // tasks made through the gateway, by upstream session (gateway_tasks.go)
	clients clientAllowances // stateless clients' "allow for this session" (gateway_approve.go)
	nextID  atomic.Uint64
}

// downServer is what the gateway knows of one server.
type downServer struct {
	name      string
	sess      *downstream.Session // nil: not ready
	tools     []*downstream.Tool
	raw       []json.RawMessage // tools as sent, index for index with tools (Session.ToolsRaw)
	resources []*sdk.Resource
	templates []*sdk.ResourceTemplate
	prompts   []*sdk.Prompt
	level     string // the logging level last set on the server ("" none)
	// callLevels are the log levels of the 2026-07-28 calls in flight to
	// an older server that asked for one, by call number
	// (gateway_loglevel.go): applyLevels keeps the server at the most
	// verbose of them.
	callLevels map[uint64]string
}

type subKey struct{ server, uri string }

// NewGateway makes a gateway with no servers.
func NewGateway(opts GatewayOptions) *Gateway {
	g := &Gateway{
		opts:       opts,
		log:        opts.Logger,
		keepAlive:  10 * time.Second,
		seal:       newStateSeal(),
		down:       map[string]*downServer{},
		views:      map[viewKey]*view{},
		upstreams:  map[*sdk.ServerSession]*upstream{},
		httpUps:    map[string]*upstream{},
		subs:       map[subKey]int{},
		urlElicits: map[string]*upstream{},
		rawElicits: map[elicitKey]context.CancelFunc{},
		parks:      map[uint64]*park{},
		logged:     map[string]bool{},
		policies:   map[string]*ToolPolicy{},
		held:       map[string]map[string]string{},
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	g.SetSettings(opts.CallTimeout, opts.Elicitation)
	g.calls.m = map[uint64]*call{}
	return g
}

// SetServer tells the gateway that a server is ready (sess non-nil, its
// tools as of sess.Tools()) or not (nil: starting, stopped, crashed,
// disabled). It returns once every view shows the change.
//
// The gateway subscribes to sess: each later successful sess.ListTools
// (the supervisor re-lists on Hooks.ToolsChanged) updates the tools, and
// the server's resources and prompts are listed here and re-listed on its
// list_changed notifications. When sess ends, the gateway treats the
// server as down at once and fails the calls in flight to it. Calling
// SetServer again with the same session is harmless.
func (g *Gateway) SetServer(name string, sess *downstream.Session) {
	var held map[string]string
	if sess != nil && g.opts.CheckTools != nil {
		held = g.opts.CheckTools(name, sess, sess.Tools())
	}
	g.mu.Lock()
	if sess != nil && g.opts.CheckTools != nil {
		g.setHeldLocked(name, held)
	}
	d := g.down[name]
	if d == nil {
		d = &downServer{name: name}
		g.down[name] = d
	}
	old := d.sess
	if old != sess {
		d.sess = sess
		d.resources, d.templates, d.prompts, d.level, d.callLevels = nil, nil, nil, "", nil
	}
	if sess != nil {
		d.tools, d.raw = sess.ToolsWithRaw()
	}
	g.mu.Unlock()

	// A replaced session stays attached: calls in flight to it finish, or
	// fail when it ends (watch).
	if sess != nil && old != sess {
		sess.Attach(g.Router(name))
		go g.watch(name, sess)
		go g.featuresChanged(name, sess)
		go g.applyLevels()
		go g.resubscribe(name, sess)
	}
	g.refresh()
}

// SetConfigured gives every configured server in file order. Servers that
// are neither configured nor set are forgotten.
func (g *Gateway) SetConfigured(servers []ConfiguredServer) {
	g.mu.Lock()
	g.configured = slices.Clone(servers)
	configured := make(map[string]bool, len(servers)) // one pass: 1000 servers, not a million comparisons
	for _, c := range servers {
		configured[c.Name] = true
	}
	for name, d := range g.down {
		if d.sess == nil && !configured[name] {
			delete(g.down, name)
		}
	}
	g.mu.Unlock()
	g.refresh()
}

// watch marks the server down when its session ends.
func (g *Gateway) watch(name string, sess *downstream.Session) {
	<-sess.Done()
	g.failCalls(sess)
	g.mu.Lock()
	d := g.down[name]
	current := d != nil && d.sess == sess
	if current {
		d.sess = nil
		d.resources, d.templates, d.prompts, d.level, d.callLevels = nil, nil, nil, "", nil
	}
	g.mu.Unlock()
	if current {
		g.refresh()
	}
}

// resubscribe subscribes a new session of a server to the URIs upstream
// sessions subscribed to through an earlier one.
func (g *Gateway) resubscribe(name string, sess *downstream.Session) {
	g.mu.Lock()
	var uris []string
	for k, n := range g.subs {
		if k.server == name && n > 0 {
			uris = append(uris, k.uri)
		}
	}
	g.mu.Unlock()
	for _, uri := range uris {
		ctx, stop := sess.CallContext(context.Background())
		if err := sess.Client().Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
			g.log.Warn("resubscribing", "server", name, "uri", uri, "error", err)
		}
		stop()
	}
}

// toolsListed is called by Session.ListTools.
func (g *Gateway) toolsListed(name string, sess *downstream.Session) {
	tools, raw := sess.ToolsWithRaw()
	var held map[string]string
	if g.opts.CheckTools != nil && g.session(name) == sess {
		held = g.opts.CheckTools(name, sess, tools)
	}
	g.mu.Lock()
	d := g.down[name]
	current := d != nil && d.sess == sess
	if current {
		d.tools, d.raw = tools, raw
		if g.opts.CheckTools != nil {
			g.setHeldLocked(name, held)
		}
	}
	g.mu.Unlock()
	if current {
		g.refresh()
	}
}

// featuresChanged lists a server's resources, templates and prompts (all
// pages) and updates the views.
func (g *Gateway) featuresChanged(name string, sess *downstream.Session) {
	ctx, cancel := sess.CallContext(context.Background())
	defer cancel()
	ctx, cancel2 := context.WithTimeout(ctx, time.Minute)
	defer cancel2()
	caps := sess.Capabilities()
	var (
		resources []*sdk.Resource
		templates []*sdk.ResourceTemplate
		prompts   []*sdk.Prompt
	)
	if caps != nil && caps.Resources != nil {
		for r, err := range sess.Client().Resources(ctx, nil) {
			if err != nil {
				g.log.Warn("listing resources", "server", name, "error", err)
				break
			}
			resources = append(resources, r)
		}
		for t, err := range sess.Client().ResourceTemplates(ctx, nil) {
			if err != nil {
				g.log.Warn("listing resource templates", "server", name, "error", err)
				break
			}
			templates = append(templates, t)
		}
	}
	if caps != nil && caps.Prompts != nil {
		for p, err := range sess.Client().Prompts(ctx, nil) {
			if err != nil {
				g.log.Warn("listing prompts", "server", name, "error", err)
				break
			}
			prompts = append(prompts, p)
		}
	}
	// Names, titles, descriptions and URIs go to assistants as listed.
	if r, err := downstream.RedactValue(sess, &resources); err == nil {
		resources = *r
	}
	if t, err := downstream.RedactValue(sess, &templates); err == nil {
		templates = *t
	}
	if p, err := downstream.RedactValue(sess, &prompts); err == nil {
		prompts = *p
	}
	g.mu.Lock()
	d := g.down[name]
	current := d != nil && d.sess == sess
	if current {
		d.resources, d.templates, d.prompts = resources, templates, prompts
	}
	g.mu.Unlock()
	if current {
		g.refresh()
	}
}

// session is the ready session of a server, or nil.
func (g *Gateway) session(name string) *downstream.Session {
	g.mu.Lock()
	defer g.mu.Unlock()
	if d := g.down[name]; d != nil {
		return d.sess
	}
	return nil
}

// serverState describes a server that is not ready, for messages.
func (g *Gateway) serverState(name string) (conf ConfiguredServer, known bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.configured {
		if c.Name == name {
			return c, true
		}
	}
	return ConfiguredServer{Name: name}, g.down[name] != nil
}

// notReadyText is the isError text for a call to a server that is not
// ready.
func (g *Gateway) notReadyText(name string) string {
	conf, _ := g.serverState(name)
	if !conf.Enabled && conf.State != "" || conf.State == "disabled" {
		return fmt.Sprintf("The MCP server %q is turned off in mcptray. Turn it on with: mcptray toggle %s on", name, name)
	}
	state := conf.State
	if state == "needs-approval" {
		return fmt.Sprintf("The MCP server %q is new or changed in mcptray's config and waits for the person to allow what it runs (mcptray's inbox, or: mcptray approve %s).", name, name)
	}
	if state == "needs-sign-in" {
		// Never the sign-in's address: only the person starts a sign-in.
		return fmt.Sprintf("%s needs you to sign in; mcptray has asked you in its tray.", name)
	}
	if state == "waiting-input" {
		return fmt.Sprintf("The MCP server %q waits for a value its configuration asks for (${input:…}). The person must give it in mcptray's inbox (the tray, or: mcptray inbox).", name)
	}
	if state == "" {
		state = "not running"
	}
	return fmt.Sprintf("The MCP server %q is not ready (state: %s). Check it with: mcptray status; restart it with: mcptray restart %s (if it is turned off: mcptray toggle %s on)", name, state, name, name)
}

// SetSettings changes the per-call deadline (0: defaultCallTimeout) and the
// elicitation mode ("auto" or "local"; "": auto) for calls that start from
// now on. The app calls it on every config reload.
func (g *Gateway) SetSettings(callTimeout time.Duration, elicitation string) {
	if callTimeout <= 0 {
		callTimeout = defaultCallTimeout
	}
	g.callTimeout.Store(int64(callTimeout))
	g.elicitLocal.Store(elicitation == ElicitLocal)
}

// timeout is the current per-call deadline.
func (g *Gateway) timeout() time.Duration { return time.Duration(g.callTimeout.Load()) }
