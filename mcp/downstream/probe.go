package downstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"sync"
	"sync/atomic"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// NewWireVersion is the first protocol version without sessions: every
// request carries the version, clientInfo and clientCapabilities in its
// _meta (WireMeta), and a server asks for input by answering a call with
// an input_required result (gateway_input.go in package mcp) instead of
// sending elicitation/create.
const NewWireVersion = "2026-07-28"

// ProbeVersion is the version of a session that starts with the
// server/discover probe: the SDK's client uses NewWireVersion where the
// server answers it, and falls back to initialize (ProtocolVersion)
// otherwise.
const ProbeVersion = NewWireVersion

// ProbeMemory remembers, for the stdio servers that did not take the
// first request of a start (StdioSpec.DiscoverFirst says which), the one
// they took, by a hash of their command line (StdioSpec.ProbeKey, else
// Fingerprint), so that their next start goes straight to it. It holds
// hashes only: never a command line, an argument or an environment
// value. The zero value is not usable; make one with NewProbeMemory. Safe
// for concurrent use.
type ProbeMemory struct {
	save func(ProbeKey, string) // called with each change, outside mu; nil: none

	mu sync.Mutex
	m  map[ProbeKey]string // guarded by mu: key → the version to start with
}

// ProbeKey is the SHA-256 a ProbeMemory knows a server by.
type ProbeKey [sha256.Size]byte

// NewProbeMemory returns a ProbeMemory that knows known (what an earlier
// mcptray learned; nil: nothing; a version other than ProtocolVersion
// and ProbeVersion is left out) and calls save, when not nil, with each
// change: the version learned for a key, or "" for one forgotten. save
// runs on the goroutine of the Start that learned it.
func NewProbeMemory(known map[ProbeKey]string, save func(key ProbeKey, version string)) *ProbeMemory {
	m := &ProbeMemory{save: save, m: map[ProbeKey]string{}}
	for k, v := range known {
		if v == ProtocolVersion || v == ProbeVersion {
			m.m[k] = v
		}
	}
	return m
}

// key is what the memory knows the server of spec by.
func (spec StdioSpec) probeKey() ProbeKey {
	if spec.ProbeKey != (ProbeKey{}) {
		return spec.ProbeKey
	}
	return Fingerprint(spec)
}

// version is the version the server of spec starts with, learned from
// an earlier start ("" when none was). A nil ProbeMemory knows none.
func (m *ProbeMemory) version(spec StdioSpec) string {
	if m == nil {
		return ""
	}
	k := spec.probeKey()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m[k]
}

// remember notes the version the server of spec starts with ("": forget
// it).
func (m *ProbeMemory) remember(spec StdioSpec, version string) {
	if m == nil {
		return
	}
	k := spec.probeKey()
	m.mu.Lock()
	changed := m.m[k] != version
	if version == "" {
		delete(m.m, k)
	} else {
		m.m[k] = version
	}
	m.mu.Unlock()
	if changed && m.save != nil {
		m.save(k, version)
	}
}

// forget drops what was learned of the server of spec.
func (m *ProbeMemory) forget(spec StdioSpec) { m.remember(spec, "") }

// Fingerprint is the SHA-256 of what makes a stdio server the same
// program: its command, arguments, working directory and environment
// (names and values; ours when spec.Env is nil). Each part is
// length-prefixed, so no two command lines hash alike by moving a
// separator.
func Fingerprint(spec StdioSpec) ProbeKey {
	h := sha256.New()
	put := func(s string) {
		var n [8]byte
		for i, l := 0, uint64(len(s)); i < 8; i++ {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(s))
	}
	put(spec.Command)
	put(spec.Dir)
	for _, a := range spec.Args {
		put("a")
		put(a)
	}
	env := spec.Env
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		put("e")
		put(kv)
	}
	var fp ProbeKey
	h.Sum(fp[:0])
	return fp
}

// probeConn is the stdio connection as the SDK's client sees it during
// Connect: it notes the first request going out (server/discover or
// initialize), whether the server answered it and how, and the _meta the
// SDK put on a server/discover (the bytes every later request to a
// new-wire server carries: WireMeta).
type probeConn struct {
	sdk.Connection
	firstID  atomic.Pointer[jsonrpc.ID] // the first request's id, once sent
	discover atomic.Bool                // the first request is server/discover
	answered atomic.Bool                // the server answered it
	refusedE atomic.Bool                // with an error
	meta     atomic.Pointer[[]byte]     // the server/discover request's _meta object, as sent
}

func (c *probeConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if c.firstID.Load() == nil && (req.Method == "server/discover" || req.Method == "initialize") {
			id := req.ID
			c.discover.Store(req.Method == "server/discover")
			c.firstID.Store(&id)
		}
		if req.Method == "server/discover" && c.meta.Load() == nil {
			if m := wire.Field(req.Params, "_meta"); m.OK() {
				b := bytes.Clone(m.Of(req.Params))
				c.meta.Store(&b)
			}
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *probeConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if res, ok := msg.(*jsonrpc.Response); ok && err == nil {
		if id := c.firstID.Load(); id != nil && res.ID == *id {
			c.refusedE.Store(res.Error != nil)
			c.answered.Store(true)
		}
	}
	return msg, err
}

// refused reports whether Connect failed because the server did not take
// its first request: a server/discover it never answered (it exited, or
// let the deadline pass), or an initialize it answered with an error or
// never answered because it exited (ended: it closed its stdout before
// the deadline). A server silent on initialize is not refused: the
// deadline is all that tells it from a slow one.
func (c *probeConn) refused(ended bool) bool {
	if c.firstID.Load() == nil {
		return false
	}
	if c.discover.Load() {
		return !c.answered.Load()
	}
	if !c.answered.Load() {
		return ended
	}
	return c.refusedE.Load()
}

// WireMeta is what a request to a new-wire server carries in its _meta:
// the members the SDK's client puts on its own requests (protocolVersion,
// clientInfo, clientCapabilities under io.modelcontextprotocol/), made
// once per session, so that the gateway's raw path splices them into a
// call without decoding it.
type WireMeta struct {
	// Keys are the members' keys as JSON strings (quoted), and Values
	// their values, index for index.
	Keys   [][]byte
	Values [][]byte
	// Members is every member, "key":value joined by commas, without
	// braces.
	Members []byte
}

// newWireMeta reads the members of a _meta object the SDK sent.
func newWireMeta(obj []byte) *WireMeta {
	m := &WireMeta{}
	wire.ScanObject(obj, func(k []byte, v wire.Span) bool {
		text, ok := wire.KeyText(k)
		if !ok {
			return false
		}
		key, err := json.Marshal(text)
		if err != nil {
			return false
		}
		m.Keys = append(m.Keys, key)
		m.Values = append(m.Values, bytes.Clone(v.Of(obj)))
		if len(m.Members) > 0 {
			m.Members = append(m.Members, ',')
		}
		m.Members = append(m.Members, key...)
		m.Members = append(m.Members, ':')
		m.Members = append(m.Members, v.Of(obj)...)
		return true
	})
	if len(m.Keys) == 0 {
		return nil
	}
	return m
}

// ProtocolVersion is the version the session speaks: NewWireVersion
// where the server took the probe, else what initialize agreed.
func (s *Session) ProtocolVersion() string {
	if s.cs == nil {
		return ""
	}
	if res := s.cs.InitializeResult(); res != nil {
		return res.ProtocolVersion
	}
	return ""
}

// NewWire reports whether the session speaks NewWireVersion (or later):
// its requests carry _meta (WireMeta: stdio), and its calls may answer
// input_required.
func (s *Session) NewWire() bool { return s.newWire }

// WireMeta is the _meta members each request to a new-wire stdio server
// carries; nil for an older server and for HTTP (the SDK's client adds
// them).
func (s *Session) WireMeta() *WireMeta { return s.wireMeta }

// logLevelMeta is the client's sending middleware: a new-wire request
// carries the log level asked for at startup in its _meta (the server
// sends no log message for a request without one), as logging/setLevel
// does once for an older server. The server/discover probe carries it
// too, so WireMeta, read from the probe, has it as well.
func (s *Session) logLevelMeta(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if level := s.logLevel; level != "" && level != "off" {
			if p := req.GetParams(); p != nil {
				m := p.GetMeta()
				if v, ok := m[sdk.MetaKeyProtocolVersion].(string); ok && v >= NewWireVersion {
					if _, set := m[sdk.MetaKeyLogLevel]; !set {
						m[sdk.MetaKeyLogLevel] = level
						p.SetMeta(m)
					}
				}
			}
		}
		return next(ctx, method, req)
	}
}
