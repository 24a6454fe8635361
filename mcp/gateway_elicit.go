package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Requests from servers to the client (sampling, elicitation) are routed to
// the assistant session whose tool call is in flight to that server; when
// several are, the most recent one (the highest call number). A server's
// request carries nothing that ties it to one call on stdio, so this is the
// best guess, and the right one whenever a server serves one call at a
// time.

// secretWords mark a field as secret when its name or title contains one.
var secretWords = []string{"password", "passphrase", "secret", "token", "pin", "key"}

// SecretFields returns the names (sorted) of the secret fields of an
// elicitation's requested schema: format "password", writeOnly, or a name
// or title containing password, passphrase, secret, token, pin or key (any
// case). Such values must never go to the assistant, a log or a disk.
func SecretFields(schema any) []string {
	m, ok := schema.(map[string]any)
	if !ok && schema != nil {
		b, err := json.Marshal(schema)
		if err != nil || json.Unmarshal(b, &m) != nil {
			return nil
		}
	}
	props, _ := m["properties"].(map[string]any)
	var out []string
	for name, p := range props {
		pm, _ := p.(map[string]any)
		title, _ := pm["title"].(string)
		if pm["format"] == "password" || pm["writeOnly"] == true || hasSecretWord(name) || hasSecretWord(title) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func hasSecretWord(s string) bool {
	s = strings.ToLower(s)
	for _, w := range secretWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// TapElicit takes a stdio server's elicitation/create, or its withdrawal
// of one (notifications/cancelled), for a's gateway; from the stdout tap
// (Tap, or the startup tap while the server starts). Other lines go on.
func (a *gwAttachment) TapElicit(s *downstream.Session, line []byte, p *wire.Peek) bool {
	switch {
	case p.Method.Is(line, `"notifications/cancelled"`) && !p.ID.OK() && p.Params.OK():
		pb := p.Params.Of(line)
		if id := wire.Field(pb, "requestId"); id.OK() && a.g.cancelRawElicit(s, string(id.Of(pb))) {
			return true
		}
	case p.Method.Is(line, `"elicitation/create"`) && p.ID.OK():
		var params []byte
		if p.Params.OK() {
			params = bytes.Clone(p.Params.Of(line))
		}
		go a.g.rawElicit(a.name, s, bytes.Clone(p.ID.Of(line)), params)
		return true
	}
	return false
}

// rawElicit answers a stdio server's elicitation/create.
func (g *Gateway) rawElicit(server string, s *downstream.Session, id, params []byte) {
	var ep sdk.ElicitParams
	var line []byte
	if err := json.Unmarshal(params, &ep); err != nil || len(params) == 0 {
		line = wire.ErrorLine(id, jsonrpc.CodeInvalidParams, "elicitation/create: params are not an elicitation request")
	} else {
		// A child of the session's life, not callContext's AfterFunc: when
		// the session ends, every request of a burst sees it at once, and
		// none still on its way takes a place in the inbox.
		ctx, cancel := context.WithCancel(s.Context())
		key := elicitKey{s, string(id)}
		g.mu.Lock()
		g.rawElicits[key] = cancel
		g.mu.Unlock()
		var raw struct {
			Schema json.RawMessage `json:"requestedSchema"`
		}
		json.Unmarshal(params, &raw)
		res, err := g.elicit(ctx, server, s, &ep, raw.Schema)
		g.mu.Lock()
		delete(g.rawElicits, key)
		g.mu.Unlock()
		cancel()
		if err != nil {
			code := int64(codeInternal)
			var we *jsonrpc.Error
			if errors.As(err, &we) {
				code = we.Code
			}
			line = wire.ErrorLine(id, code, err.Error())
		} else {
			b, err := json.Marshal(res)
			if err != nil {
				line = wire.ErrorLine(id, codeInternal, "encoding the answer: "+err.Error())
			} else {
				line = make([]byte, 0, len(b)+len(id)+40)
				line = append(line, `{"jsonrpc":"2.0","id":`...)
				line = append(line, id...)
				line = append(line, `,"result":`...)
				line = append(line, b...)
				line = append(line, "}\n"...)
			}
		}
	}
	s.WriteLine(line)
}

// elicitKey names a stdio server's elicitation request in flight.
type elicitKey struct {
	sess *downstream.Session
	id   string // the request id, raw JSON
}

// cancelRawElicit cancels a stdio server's elicitation when the server
// withdraws it (notifications/cancelled); the assistant or the inbox is
// told in turn.
func (g *Gateway) cancelRawElicit(s *downstream.Session, id string) bool {
	g.mu.Lock()
	cancel := g.rawElicits[elicitKey{s, id}]
	g.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return cancel != nil
}

// elicit routes a server's elicitation: to the assistant whose call caused
// it when that is allowed, else to the inbox (GatewayOptions.Elicit).
// rawSchema is the requested schema as sent (stdio servers), or nil.
func (g *Gateway) elicit(ctx context.Context, server string, s *downstream.Session, params *sdk.ElicitParams, rawSchema json.RawMessage) (*sdk.ElicitResult, error) {
	// A message (or schema, or URL) that echoes an earlier secret goes
	// neither to the assistant nor to the inbox's audit row.
	params, err := downstream.RedactValue(s, params)
	if err != nil {
		return nil, err
	}
	if rawSchema != nil {
		rawSchema = s.RedactJSON(rawSchema)
	}
	p := *params
	if p.Mode == "" {
		p.Mode = "form"
		if p.URL != "" {
			p.Mode = "url"
		}
	}
	if res, ok, err := g.elicitParked(ctx, s, &p, rawSchema); ok { // gateway_park.go
		return res, err
	}
	fields := SecretFields(p.RequestedSchema)
	info := ElicitInfo{Server: server, Request: &p, Schema: rawSchema, Secret: len(fields) > 0, SecretFields: fields}
	c := g.calls.latestFor(s)
	if c != nil {
		info.Tool, info.Client = c.tool, c.up.clientName()
		c.dl.Pause()
		defer c.dl.Resume()
	}
	switch {
	case info.Secret:
		info.Reason = "secret field"
	case p.Meta[InboxOnlyMeta] == true:
		info.Reason = "the server asks the person"
	case g.elicitLocal.Load():
		info.Reason = "elicitation is local"
	case c == nil:
		info.Reason = "no tool call in flight"
	case c.newWire:
		info.Reason = "the assistant speaks 2026-07-28, which has no requests from servers"
	default:
		info.Reason = c.up.cannotElicit(p.Mode)
	}
	if info.Reason == "" {
		if p.Mode == "url" && p.ElicitationID != "" {
			g.mu.Lock()
			g.urlElicits[p.ElicitationID] = c.up
			g.mu.Unlock()
		}
		return c.up.ss.Elicit(c.context(ctx), &p)
	}
	g.log.Info("elicitation goes to the inbox", "server", server, "tool", info.Tool, "reason", info.Reason, "fields", strings.Join(fields, ","))
	if c != nil && c.hasToken() {
		stop := g.keepCallAlive(c)
		defer stop()
	}
	if g.opts.Elicit == nil {
		return &sdk.ElicitResult{Action: "cancel"}, nil
	}
	defer s.PauseStartup()() // while the server starts: it waits on the person
	res, err := g.opts.Elicit(ctx, info)
	if err == nil && res != nil && res.Action == "accept" {
		for _, f := range fields {
			if v, ok := res.Content[f].(string); ok {
				s.Redact(v)
			}
		}
	}
	return res, err
}

// cannotElicit says why the assistant cannot take an elicitation of mode,
// or "".
func (up *upstream) cannotElicit(mode string) string {
	ip := up.ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return "the assistant does not support elicitation"
	}
	e := ip.Capabilities.Elicitation
	switch mode {
	case "url":
		if e.URL == nil {
			return "the assistant does not support URL elicitation"
		}
	default:
		if e.Form == nil && e.URL != nil {
			return "the assistant does not support form elicitation"
		}
	}
	return ""
}

// keepCallAlive sends the call's assistant a progress notification every
// g.keepAlive while the inbox waits, so its client does not time out.
func (g *Gateway) keepCallAlive(c *call) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(g.keepAlive)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				v := math.Float64frombits(c.progress.Load()) + 1
				c.progress.Store(math.Float64bits(v))
				c.notifyProgress(&sdk.ProgressNotificationParams{Progress: v, Message: "waiting for an answer in mcptray"})
			}
		}
	}()
	return func() { close(done) }
}

// context is ctx carrying the values of the call's handler context, so
// that on HTTP a request to the assistant goes out on the call's stream.
func (c *call) context(ctx context.Context) context.Context {
	if c.ctx == nil {
		return ctx
	}
	return valuesCtx{ctx, c.ctx}
}

type valuesCtx struct {
	context.Context
	values context.Context
}

func (v valuesCtx) Value(key any) any {
	if x := v.values.Value(key); x != nil {
		return x
	}
	return v.Context.Value(key)
}

// createMessage routes a server's sampling request to the assistant whose
// call is in flight to it. The call's deadline stops meanwhile.
func (g *Gateway) createMessage(ctx context.Context, server string, s *downstream.Session, params *sdk.CreateMessageParams) (*sdk.CreateMessageResult, error) {
	c := g.calls.latestFor(s)
	if c == nil {
		if res, ok, err := g.sampleParked(ctx, s, nil, params); ok { // a parked call's late question
			return res, err
		}
		return nil, downstream.ErrNoAssistant
	}
	if c.newWire {
		if res, ok, err := g.sampleParked(ctx, s, c, params); ok { // gateway_park.go
			return res, err
		}
		return nil, &jsonrpc.Error{Code: -1, Message: "sampling is not available: the assistant speaks 2026-07-28, which has no requests from servers"}
	}
	if ip := c.up.ss.InitializeParams(); ip == nil || ip.Capabilities == nil || ip.Capabilities.Sampling == nil {
		return nil, &jsonrpc.Error{Code: -1, Message: "sampling is not available: the assistant does not support it"}
	}
	params, err := downstream.RedactValue(s, params)
	if err != nil {
		return nil, err
	}
	c.dl.Pause()
	defer c.dl.Resume()
	return c.up.ss.CreateMessage(c.context(ctx), params)
}

// elicitationComplete passes notifications/elicitation/complete to the
// assistant that got the URL elicitation.
func (g *Gateway) elicitationComplete(server string, _ *downstream.Session, params *sdk.ElicitationCompleteParams) {
	g.mu.Lock()
	up := g.urlElicits[params.ElicitationID]
	delete(g.urlElicits, params.ElicitationID)
	g.mu.Unlock()
	if up != nil {
		up.ss.NotifyElicitationComplete(context.Background(), params)
		return
	}
	if g.opts.ElicitComplete != nil && params.ElicitationID != "" {
		g.opts.ElicitComplete(server, params.ElicitationID)
	}
}
