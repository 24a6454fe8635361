package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The 2026-07-28 revision (SEP-2575) has no session: each request carries
// its protocol version, client info and capabilities in its _meta, and
// each result says it is complete ("resultType") and names the server
// that answered (serverInfo in its _meta). The gateway serves it beside
// the older revisions on the same endpoints (docs/protocol.md):
//
//   - on a stream (ServeStream) the view's SDK server reads each request's
//     _meta, so a stream may carry either wire; the fast path sends a
//     new-wire call's bytes on as it does an old one's, and splices the
//     two fields into its result (completeEdits) instead of decoding it;
//   - over HTTP a POST without Mcp-Session-Id whose MCP-Protocol-Version
//     header, or whose request's _meta, names 2026-07-28 or later, and every
//     server/discover, goes to a stateless SDK handler (statelessPOST), or
//     as bytes to the server when it is a plain tools/call
//     (serveFastStateless); every other request to the stateful handler,
//     which gives old clients their initialize and Mcp-Session-Id;
//   - the server gets mcptray's per-request _meta in place of the
//     assistant's (toServerMeta).
//
// A result relayed from a server, which may speak an older revision, gets
// mcptray's own serverInfo (the view's: "mcptray" or "mcptray/NAME").

// protocol2026 is the first revision without sessions.
const protocol2026 = "2026-07-28"

// The per-request _meta keys of 2026-07-28 (go-sdk protocol.go).
const (
	metaProtocolVersion = sdk.MetaKeyProtocolVersion
	metaClientInfo      = sdk.MetaKeyClientInfo
	metaClientCaps      = sdk.MetaKeyClientCapabilities
	metaServerInfo      = sdk.MetaKeyServerInfo
	metaLogLevel        = sdk.MetaKeyLogLevel
)

// newWire reports whether a version (a header's, or a _meta's) selects
// the sessionless protocol, as the SDK reads it: 2026-07-28 or later.
func newWire(version string) bool { return version >= protocol2026 }

// reqMeta is what the fast path reads of a request's params._meta, in one
// pass over it. Spans are relative to the meta object.
type reqMeta struct {
	progressToken wire.Span
	version       wire.Span // io.modelcontextprotocol/protocolVersion
	clientInfo    wire.Span
	clientCaps    wire.Span
	logLevel      wire.Span
}

// wireKeys reports whether the _meta has keys of the new wire, which say
// who the assistant is and what it can do: the server, to which mcptray
// is the client, gets mcptray's instead (toServerMeta).
func (m *reqMeta) wireKeys() bool {
	return m.version.OK() || m.clientInfo.OK() || m.clientCaps.OK() || m.logLevel.OK()
}

func scanMeta(mb []byte) reqMeta {
	var m reqMeta
	wire.ScanObject(mb, func(k []byte, v wire.Span) bool {
		switch {
		case !m.progressToken.OK() && wire.KeyIs(k, "progressToken"):
			m.progressToken = v
		case !m.version.OK() && wire.KeyIs(k, metaProtocolVersion):
			m.version = v
		case !m.clientInfo.OK() && wire.KeyIs(k, metaClientInfo):
			m.clientInfo = v
		case !m.clientCaps.OK() && wire.KeyIs(k, metaClientCaps):
			m.clientCaps = v
		case !m.logLevel.OK() && wire.KeyIs(k, metaLogLevel):
			m.logLevel = v
		}
		return true
	})
	return m
}

// wireOf is how the fast path takes a request whose _meta is m (within
// mb): old (no version, or one before 2026-07-28: the session's wire), new
// (2026-07-28, with the capabilities the revision requires), or neither —
// a version the gateway does not serve, or a _meta the SDK must refuse:
// the SDK answers it, with the spec's error.
func (m *reqMeta) wireOf(mb []byte) (isNew, ok bool) {
	if !m.version.OK() {
		return false, true
	}
	v, isStr := wire.RawString(m.version.Of(mb))
	switch {
	case !isStr:
		return false, false
	case !newWire(v):
		return false, true
	case v != protocol2026 || !m.clientCaps.OK() || mb[m.clientCaps.Start] != '{':
		return false, false
	}
	return true, true
}

// completeEdits are the edits that make the result at res (a span of
// line) a complete 2026-07-28 result from the view: resultType
// "complete" unless the server set one, and the view's serverInfo in its
// _meta in place of any the server gave. They are sorted, and none
// overlaps an edit before res.Start or after res.End.
func (v *view) completeEdits(line []byte, res wire.Span) []wire.Edit {
	if s := wire.SkipWS(line[:res.End], res.Start); s > res.Start {
		res.Start = s
	}
	rb := res.Of(line)
	if len(rb) < 2 || rb[0] != '{' {
		return nil
	}
	var typeSp, metaSp wire.Span
	if wire.ScanObject(rb, func(k []byte, val wire.Span) bool {
		switch {
		case !typeSp.OK() && wire.KeyIs(k, "resultType"):
			typeSp = val
		case !metaSp.OK() && wire.KeyIs(k, "_meta"):
			metaSp = val
		}
		return true
	}) != nil {
		return nil
	}
	empty := wire.SkipWS(rb, 1) < len(rb) && rb[wire.SkipWS(rb, 1)] == '}'
	at := res.Start + 1
	if !typeSp.OK() && !metaSp.OK() {
		ins := v.completePre // `"resultType":"complete","_meta":{…},`
		if empty {
			ins = ins[:len(ins)-1]
		}
		return []wire.Edit{{Start: at, End: at, Repl: ins}}
	}
	var edits []wire.Edit
	if !typeSp.OK() {
		ins := []byte(`"resultType":"complete"`)
		if !empty {
			ins = append(ins, ',')
		}
		edits = append(edits, wire.Edit{Start: at, End: at, Repl: ins})
	}
	if metaSp.OK() {
		edits = append(edits, v.serverInfoEdit(line, metaSp.Within(res)))
	} else {
		edits = append(edits, wire.Edit{Start: at, End: at, Repl: v.metaMember})
		// metaMember ends with a comma; the result is not empty (it has
		// resultType).
	}
	sortEdits(edits)
	return edits
}

// serverInfoEdit puts the view's serverInfo into the _meta value at sp
// of line: in place of the server's, or first among the other keys.
func (v *view) serverInfoEdit(line []byte, sp wire.Span) wire.Edit {
	mb := sp.Of(line)
	if mb[0] != '{' { // null, or not an object: ours alone
		return wire.Edit{Start: sp.Start, End: sp.End, Repl: v.metaObject}
	}
	if info := wire.Field(mb, metaServerInfo); info.OK() {
		info = info.Within(sp)
		return wire.Edit{Start: info.Start, End: info.End, Repl: v.serverInfo}
	}
	ins := v.infoMember // `"…serverInfo":{…},`
	if i := wire.SkipWS(mb, 1); i < len(mb) && mb[i] == '}' {
		ins = ins[:len(ins)-1]
	}
	return wire.Edit{Start: sp.Start + 1, End: sp.Start + 1, Repl: ins}
}

// completeRaw is a raw result (a slow-path tools/call's) made complete
// for the new wire (completeEdits).
func (v *view) completeRaw(raw []byte) []byte {
	edits := v.completeEdits(raw, wire.Span{Start: 0, End: len(raw)})
	if edits == nil {
		return raw
	}
	out := wire.Splice(raw, edits...)
	return out[:len(out)-1]
}

// setWireBytes precomputes the bytes completeEdits splices for the view,
// from its impl: the serverInfo, the member `"…serverInfo":{…},`, a
// _meta holding it alone, that _meta as a member, and what a result with
// neither resultType nor _meta gets after its '{'.
func (v *view) setWireBytes(impl *sdk.Implementation) {
	v.serverInfo, _ = json.Marshal(impl)
	member := append(wire.QuoteJSON(metaServerInfo), ':')
	member = append(member, v.serverInfo...)
	v.metaObject = append(append([]byte{'{'}, member...), '}')
	v.infoMember = append(member, ',')
	v.metaMember = append(append([]byte(`"_meta":`), v.metaObject...), ',')
	v.completePre = append([]byte(`"resultType":"complete",`), v.metaMember...)
}

// requestIsNew reports whether an SDK request is on the new wire: its
// _meta names 2026-07-28 or later.
func requestIsNew(meta sdk.Meta) bool {
	s, ok := meta[metaProtocolVersion].(string)
	return ok && newWire(s)
}

// statelessPOST reports whether an HTTP request goes to the stateless
// handler: a request without a session whose header or _meta (t, its
// one message; nil for a batch) names the new wire, or a server/discover.
func statelessPOST(r *http.Request, t []byte, p *wire.Peek) bool {
	if r.Header.Get("Mcp-Session-Id") != "" {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return newWire(v)
	}
	if r.Method != http.MethodPost || p == nil {
		return false
	}
	if p.Method.Is(t, `"`+methodDiscover+`"`) {
		return true
	}
	if !p.Params.OK() {
		return false
	}
	params := p.Params.Of(t)
	meta := wire.Field(params, "_meta")
	if !meta.OK() {
		return false
	}
	mb := meta.Of(params)
	ver := wire.Field(mb, metaProtocolVersion)
	s, ok := wire.RawString(ver.Of(mb))
	return ver.OK() && ok && newWire(s)
}

// stripMeta is the _meta object mb without the new wire's keys, and with
// its progress token, if any, replaced by token (a gateway token; nil
// keeps it): what a server gets in place of the assistant's _meta. Other
// keys keep their bytes and order.
func stripMeta(mb, token []byte) []byte {
	out := make([]byte, 0, len(mb))
	out = append(out, '{')
	wire.ScanObject(mb, func(k []byte, v wire.Span) bool {
		val := v.Of(mb)
		switch {
		case wire.KeyIs(k, metaProtocolVersion), wire.KeyIs(k, metaClientInfo), wire.KeyIs(k, metaClientCaps), wire.KeyIs(k, metaLogLevel):
			return true
		case token != nil && wire.KeyIs(k, "progressToken"):
			val = token
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, k...)
		out = append(out, '"', ':')
		out = append(out, val...)
		return true
	})
	return append(out, '}')
}

// stripWireKeys deletes the new wire's keys from a copy of a request's
// _meta on the slow path (see stripMeta), and for a 2026-07-28 call puts
// mcptray's own in their place (toServerMeta): all of them toward a server
// whose session speaks 2026-07-28 (isNew), the capabilities alone toward
// an older one (capsOnly: toOldServerMeta).
func stripWireKeys(m map[string]any, isNew, capsOnly bool) {
	caps := m[metaClientCaps]
	delete(m, metaProtocolVersion)
	delete(m, metaClientInfo)
	delete(m, metaClientCaps)
	delete(m, metaLogLevel)
	if !isNew && !capsOnly {
		return
	}
	b, err := json.Marshal(caps)
	if err != nil || len(b) == 0 || b[0] != '{' {
		b = []byte("{}")
	}
	if capsOnly {
		m[metaClientCaps] = json.RawMessage(withInbox(b))
		return
	}
	m[metaProtocolVersion] = protocol2026
	m[metaClientInfo] = json.RawMessage(mcptrayClient)
	m[metaClientCaps] = json.RawMessage(withInbox(b))
}

// A 2026-07-28 call to a server whose session speaks 2026-07-28
// (speaksNew) reaches it as a 2026-07-28 request from mcptray: the server
// sees mcptray's clientInfo, and the assistant's capabilities with
// elicitation added, which mcptray's inbox answers, so it judges the call
// by what this assistant can do (it refuses a tool that needs sampling
// the assistant did not declare, -32021). A server on an older session
// gets none of the keys: a strict one refuses a request whose _meta names
// another revision than its session's (the conformance suite's test
// server answers 400), and sessions are pinned to 2025-11-25 today
// (downstream.ProtocolVersion), so today every server gets them stripped.
var mcptrayClient = func() []byte {
	b, _ := json.Marshal(&sdk.Implementation{Name: "mcptray", Version: downstream.Version()})
	return b
}()

// withInbox is the capabilities object caps with elicitation (form and
// URL) added when the assistant did not declare it.
func withInbox(caps []byte) []byte {
	if wire.Field(caps, "elicitation").OK() {
		return caps
	}
	ins := []byte(`"elicitation":{"form":{},"url":{}}`)
	if i := wire.SkipWS(caps, 1); i < len(caps) && caps[i] != '}' {
		ins = append(ins, ',')
	}
	out := make([]byte, 0, len(caps)+len(ins))
	out = append(out, caps[:1]...)
	out = append(out, ins...)
	return append(out, caps[1:]...)
}

// toOldServerMeta is the _meta a server whose session speaks an older
// revision gets for a 2026-07-28 call: stripMeta's, with the assistant's
// capabilities (elicitation added: withInbox) and no other key of the new
// wire. go-sdk's servers read a request's capabilities there before their
// session's (ServerRequest.ClientCapabilities), so such a server judges
// the call by what this assistant can do — it refuses a tool that needs
// sampling the assistant did not declare (-32021), and asks only what
// the assistant or the inbox can answer (gateway_park.go) — where it
// would otherwise see mcptray's initialize. The protocol version is left
// out: a strict server refuses one that is not its session's.
func toOldServerMeta(mb []byte, m *reqMeta, token []byte) []byte {
	out := stripMeta(mb, token)
	out = out[:len(out)-1]
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(out, wire.QuoteJSON(metaClientCaps)...)
	out = append(out, ':')
	caps := m.clientCaps.Of(mb)
	if len(caps) == 0 || caps[0] != '{' {
		caps = []byte("{}")
	}
	out = append(out, withInbox(caps)...)
	return append(out, '}')
}

// toServerMeta is the _meta a server gets for the assistant's _meta mb
// (m its keys; isNew: a 2026-07-28 call): stripMeta's, with mcptray's own
// keys of the revision added for a 2026-07-28 call.
func toServerMeta(mb []byte, m *reqMeta, isNew bool, token []byte) []byte {
	out := stripMeta(mb, token)
	if !isNew {
		return out
	}
	out = out[:len(out)-1]
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(out, wire.QuoteJSON(metaProtocolVersion)...)
	out = append(out, `:"`+protocol2026+`",`...)
	out = append(out, wire.QuoteJSON(metaClientInfo)...)
	out = append(out, ':')
	out = append(out, mcptrayClient...)
	out = append(out, ',')
	out = append(out, wire.QuoteJSON(metaClientCaps)...)
	out = append(out, ':')
	out = append(out, withInbox(m.clientCaps.Of(mb))...)
	return append(out, '}')
}

// replyEdits are the edits that turn a server's reply line (p its
// fields) to the call into the assistant's: its id, and on the new wire a
// complete result (completeEdits).
func (c *call) replyEdits(line []byte, p *wire.Peek) []wire.Edit {
	id := wire.Edit{Start: p.ID.Start, End: p.ID.End, Repl: c.upID}
	if !c.newWire || !p.Result.OK() {
		return []wire.Edit{id}
	}
	edits := append([]wire.Edit{id}, c.up.v.completeEdits(line, p.Result)...)
	sortEdits(edits)
	return edits
}

// List results (tools, resources, templates, prompts) and server/discover
// carry ttlMs and cacheScope. The gateway promises no freshness a server
// did not: its servers' sessions speak 2025-11-25, whose lists carry no
// TTL, so each counts as ttlMs 0 (stale at once), and an aggregate
// route's list, the minimum over its servers, is 0 too. Clients learn of
// changes from list_changed (subscriptions/listen on this wire). The
// lists are the person's own (which servers, which tools are on), so the
// scope is "private": no shared cache may serve them to anyone else.
const (
	listTTLMs      = 0
	listCacheScope = "private"
)

// cacheable is the views' ServerOptions.SetCacheable: a value a handler
// set (a relayed resource's) stays.
func cacheable(_ context.Context, _ sdk.Request, c *sdk.Cacheable) {
	if c.CacheScope == "" {
		c.TTLMs, c.CacheScope = listTTLMs, listCacheScope
	}
}

// errorStatus is the HTTP status of a server's error answer (line, p its
// fields) to a 2026-07-28 request, as the revision has it and go-sdk's
// stateless handler answers: 404 for -32601, 400 for -32602, -32022 and
// -32021 (a capability the assistant did not declare); else 0 (200).
func errorStatus(line []byte, p *wire.Peek) int {
	eb := p.Err.Of(line)
	switch string(bytes.TrimSpace(wire.Field(eb, "code").Of(eb))) {
	case "-32601":
		return http.StatusNotFound
	case "-32602", "-32022", "-32021":
		return http.StatusBadRequest
	}
	return 0
}

// speaksNew reports whether a server's session speaks the 2026-07-28
// wire.
func speaksNew(sess *downstream.Session) bool {
	cs := sess.Client()
	if cs == nil {
		return false
	}
	res := cs.InitializeResult()
	return res != nil && newWire(res.ProtocolVersion)
}
