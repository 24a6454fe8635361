package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file forwards what is not tools: resources (read, subscribe,
// updates), prompts, completion and logging. Resource URIs are passed on
// unchanged (they appear in tool results and resource links); a URI
// belongs to the server that listed it, else to the one whose template
// prefix matches best, else to the first server with resources. Prompt
// names follow the tool naming rule.

// readAnywhere asks each of the view's ready servers that has resources
// for a URI nobody listed (e.g. one from a resource_link).
func (v *view) readAnywhere(ctx context.Context, req *sdk.ReadResourceRequest) (sdk.Result, error) {
	var lastErr error = sdk.ResourceNotFoundError(req.Params.URI)
	for _, server := range v.routes.Load().servers {
		sess := v.g.session(server)
		if sess == nil {
			continue
		}
		if caps := sess.Capabilities(); caps == nil || caps.Resources == nil {
			continue
		}
		res, err := v.g.readResource(ctx, server, req.Params)
		if err == nil {
			return res, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// owner is the server behind a resource URI: the one that listed it, else
// the one with the longest matching template prefix, else the first with
// resources.
func (v *view) owner(uri string) string {
	rt := v.routes.Load()
	if s, ok := rt.resources[uri]; ok {
		return s
	}
	best, bestLen := "", -1
	for _, t := range rt.templates {
		if strings.HasPrefix(uri, t.prefix) && len(t.prefix) > bestLen {
			best, bestLen = t.server, len(t.prefix)
		}
	}
	if best != "" {
		return best
	}
	for _, server := range rt.servers {
		if sess := v.g.session(server); sess != nil {
			if caps := sess.Capabilities(); caps != nil && caps.Resources != nil {
				return server
			}
		}
	}
	return ""
}

func (g *Gateway) promptHandler(aggregate bool, server, name string) sdk.PromptHandler {
	return func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		sess := g.session(server)
		if sess == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("server %q is not ready", server)}
		}
		p := *req.Params
		p.Name = name
		defer g.levelForRequest(ctx, req.Session, aggregate, server, sess, req.Params.Meta)() // gateway_loglevel.go
		if res, ok, err := g.promptParked(ctx, server, sess, req, &p); ok {                   // gateway_park_sdk.go
			return res, err
		}
		ctx, stop := sess.CallContext(ctx)
		defer stop()
		res, err := sess.Client().GetPrompt(ctx, &p)
		return downstream.RedactedAnswer(sess, res, err)
	}
}

func (g *Gateway) resourceHandler(aggregate bool, server string) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		if sess := g.session(server); sess != nil {
			defer g.levelForRequest(ctx, req.Session, aggregate, server, sess, req.Params.Meta)() // gateway_loglevel.go
		}
		if res, ok, err := g.readParked(ctx, server, req); ok { // gateway_park_sdk.go
			return res, err
		}
		return g.readResource(ctx, server, req.Params)
	}
}

func (g *Gateway) templateHandler(v *view, uriTemplate string) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		for _, t := range v.routes.Load().templates {
			if prefix, _, _ := strings.Cut(uriTemplate, "{"); t.prefix == prefix {
				if sess := g.session(t.server); sess != nil {
					defer g.levelForRequest(ctx, req.Session, v.key.aggregate(), t.server, sess, req.Params.Meta)() // gateway_loglevel.go
				}
				if res, ok, err := g.readParked(ctx, t.server, req); ok { // gateway_park_sdk.go
					return res, err
				}
				return g.readResource(ctx, t.server, req.Params)
			}
		}
		return nil, sdk.ResourceNotFoundError(req.Params.URI)
	}
}

func (g *Gateway) readResource(ctx context.Context, server string, params *sdk.ReadResourceParams) (*sdk.ReadResourceResult, error) {
	sess := g.session(server)
	if sess == nil {
		return nil, sdk.ResourceNotFoundError(params.URI)
	}
	ctx, stop := sess.CallContext(ctx)
	defer stop()
	res, err := sess.Client().ReadResource(ctx, params)
	return downstream.RedactedAnswer(sess, res, err)
}

// complete forwards completion/complete to the server behind the prompt or
// resource it refers to.
func (v *view) complete(ctx context.Context, req *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
	p := *req.Params
	ref := *p.Ref
	var server string
	switch ref.Type {
	case "ref/prompt":
		r, ok := v.routes.Load().prompts[ref.Name]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", ref.Name)}
		}
		server, ref.Name = r.server, r.name
	case "ref/resource":
		server = v.owner(ref.URI)
	}
	sess := v.g.session(server)
	if sess == nil {
		return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{}}}, nil
	}
	if caps := sess.Capabilities(); caps == nil || caps.Completions == nil {
		return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: []string{}}}, nil
	}
	p.Ref = &ref
	ctx, stop := sess.CallContext(ctx)
	defer stop()
	res, err := sess.Client().Complete(ctx, &p)
	return downstream.RedactedAnswer(sess, res, err)
}

func (v *view) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	if v.isBuiltinResource(req.Params.URI) {
		return v.g.subscribe(ctx, v.g.upstreamOf(req.Session, v), builtinSubServer, req.Params.URI)
	}
	server := v.owner(req.Params.URI)
	if server == "" {
		return sdk.ResourceNotFoundError(req.Params.URI)
	}
	up := v.g.upstreamOf(req.Session, v)
	return v.g.subscribe(ctx, up, server, req.Params.URI)
}

func (v *view) unsubscribe(ctx context.Context, req *sdk.UnsubscribeRequest) error {
	if v.isBuiltinResource(req.Params.URI) {
		return v.g.unsubscribe(ctx, v.g.upstreamOf(req.Session, v), builtinSubServer, req.Params.URI)
	}
	server := v.owner(req.Params.URI)
	if server == "" {
		return nil
	}
	up := v.g.upstreamOf(req.Session, v)
	return v.g.unsubscribe(ctx, up, server, req.Params.URI)
}

// subscribe subscribes the server to uri for its first upstream subscriber.
func (g *Gateway) subscribe(ctx context.Context, up *upstream, server, uri string) error {
	key := subKey{server, uri}
	up.mu.Lock()
	if up.subs[key] {
		up.mu.Unlock()
		return nil
	}
	up.subs[key] = true
	up.mu.Unlock()
	g.mu.Lock()
	g.subs[key]++
	first := g.subs[key] == 1
	g.mu.Unlock()
	if !first {
		return nil
	}
	sess := g.session(server)
	if sess == nil {
		return nil
	}
	ctx, stop := sess.CallContext(ctx)
	defer stop()
	return sess.Client().Subscribe(ctx, &sdk.SubscribeParams{URI: uri})
}

// unsubscribe drops an upstream subscription and the server's with the
// last one.
func (g *Gateway) unsubscribe(ctx context.Context, up *upstream, server, uri string) error {
	key := subKey{server, uri}
	up.mu.Lock()
	had := up.subs[key]
	delete(up.subs, key)
	up.mu.Unlock()
	if !had {
		return nil
	}
	g.mu.Lock()
	g.subs[key]--
	last := g.subs[key] <= 0
	if last {
		delete(g.subs, key)
	}
	g.mu.Unlock()
	sess := g.session(server)
	if !last || sess == nil {
		return nil
	}
	ctx, stop := sess.CallContext(ctx)
	defer stop()
	return sess.Client().Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri})
}

// resourceUpdated passes notifications/resources/updated to the views that
// show the server; the SDK sends it to the sessions that subscribed.
func (g *Gateway) resourceUpdated(server string, sess *downstream.Session, params *sdk.ResourceUpdatedNotificationParams) {
	params, err := downstream.RedactValue(sess, params)
	if err != nil {
		return
	}
	g.mu.Lock()
	var views []*view
	for _, v := range g.views {
		if v.includes(server) {
			views = append(views, v)
		}
	}
	g.mu.Unlock()
	for _, v := range views {
		v.srv.ResourceUpdated(context.Background(), params)
	}
}

// downstreamLog passes a server's notifications/message to the upstream
// sessions that see the server; the SDK drops it for sessions that asked
// for a higher level, or none. On aggregate routes the logger names the
// server.
func (g *Gateway) downstreamLog(server string, sess *downstream.Session, params *sdk.LoggingMessageParams) {
	g.mu.Lock()
	var ups []*upstream
	for _, up := range g.upstreams {
		if up.v.includes(server) && up.level() != "" {
			ups = append(ups, up)
		}
	}
	g.mu.Unlock()
	// A message logged during a call goes, on HTTP, to that call's stream
	// for the assistant that made it; on the 2026-07-28 wire, to the calls
	// that asked for its level (gateway_loglevel.go).
	latest := g.calls.latestFor(sess)
	if latest != nil && latest.newWire {
		latest = nil // its request's level is not the session's
	}
	message := func(aggregate bool) *sdk.LoggingMessageParams {
		p := *params
		if d, ok := p.Data.(string); ok {
			p.Data = sess.RedactText(d)
		}
		if aggregate {
			p.Logger = server + loggerSuffix(params.Logger)
		}
		return &p
	}
	sent := make(map[*sdk.ServerSession]bool, len(ups))
	for _, up := range ups {
		ctx := context.Background()
		if latest != nil && latest.up == up {
			ctx = latest.context(ctx)
		}
		up.ss.Log(ctx, message(up.v.key.aggregate()))
		sent[up.ss] = true
	}
	g.logToCalls(sess, message, sent)
}

func loggerSuffix(l string) string {
	if l == "" {
		return ""
	}
	return "/" + l
}

// logLevels in order of severity.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// applyLevels sets each ready server's logging level to the most verbose of
// the level it was started with and those the upstream sessions that see
// it asked for.
func (g *Gateway) applyLevels() {
	type change struct {
		sess  *downstream.Session
		level string
	}
	var changes []change
	g.mu.Lock()
	for name, d := range g.down {
		if d.sess == nil {
			continue
		}
		caps := d.sess.Capabilities()
		if caps == nil || caps.Logging == nil {
			continue
		}
		want := -1
		if l := slices.Index(logLevels, d.sess.LogLevel()); l >= 0 {
			want = l
		}
		for _, up := range g.upstreams {
			if up.v.includes(name) {
				if l := slices.Index(logLevels, up.level()); l >= 0 && (want < 0 || l < want) {
					want = l
				}
			}
		}
		for _, cl := range d.callLevels { // gateway_loglevel.go
			if l := slices.Index(logLevels, cl); l >= 0 && (want < 0 || l < want) {
				want = l
			}
		}
		level := ""
		if want >= 0 {
			level = logLevels[want]
		}
		if d.level == "" {
			d.level = d.sess.LogLevel()
		}
		if level != "" && level != d.level {
			d.level = level
			changes = append(changes, change{d.sess, level})
		}
	}
	g.mu.Unlock()
	for _, c := range changes {
		ctx, stop := c.sess.CallContext(context.Background())
		c.sess.Client().SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(c.level)})
		stop()
	}
}
