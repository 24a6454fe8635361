package mcp

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the gateway's HTTP endpoint.
type HTTPOptions struct {
	// Token is the bearer token every request must carry
	// ("Authorization: Bearer <token>"). Empty refuses every request.
	Token string
	// DefaultTools is the tool-list mode when a request has no ?tools=.
	DefaultTools string
	// AllowedHosts are the Host header values accepted, e.g.
	// "127.0.0.1:PORT" and "localhost:PORT"; an Origin header, when
	// present, must be http:// or https:// one of them. Empty accepts
	// loopback hosts (any port) only.
	AllowedHosts []string
	// SessionIdle, when set, closes a session that has had no request in
	// flight (an open GET stream counts) for longer, once another session
	// starts (gateway_http_idle.go).
	SessionIdle time.Duration
	// UnusedSessionIdle, when set, is SessionIdle for a session that made
	// no request after initialize but the initialized notification.
	UnusedSessionIdle time.Duration
	// MaxSessions, when set, caps the sessions open at a time (there is
	// one token, so this is the cap per token): a new session closes the
	// one idle the longest, or is refused with 503 when each has a
	// request in flight.
	MaxSessions int
}

// HTTPHandler serves the gateway over streamable HTTP: /mcp for every
// server, /mcp/{server} and /servers/{server}/mcp for one server under its
// own tool names, the
// tool-list mode from ?tools=live|stable|dynamic. Every request needs the
// bearer token (401 otherwise); a foreign Host or Origin (DNS rebinding, a
// web page) gets 403 first, and a body over MaxHTTPBody 413 before either.
// A request without the token is answered on a connection that then
// closes, and its body is not waited for beyond HTTPUnauthBodyTimeout
// (gateway_http_limits.go). Sessions use Mcp-Session-Id as the spec says.
func (g *Gateway) HTTPHandler(opts HTTPOptions) http.Handler {
	getServer := func(r *http.Request) *sdk.Server {
		v, err := g.view(r.PathValue("server"), toolsMode(r, opts))
		if err != nil {
			return nil
		}
		return v.srv
	}
	streamable := sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{Logger: sdkLogger(g.log), MaxRequestBodyBytes: MaxHTTPBody})
	// The 2026-07-28 wire: no session (gateway_wire26.go).
	stateless := sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{Logger: sdkLogger(g.log), MaxRequestBodyBytes: MaxHTTPBody, Stateless: true})
	g.mu.Lock()
	g.httpIdle, g.httpUnused, g.httpMax = opts.SessionIdle, opts.UnusedSessionIdle, opts.MaxSessions
	g.mu.Unlock()
	serve := func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			defer g.httpRequest(id)()
		}
		v, err := g.view(r.PathValue("server"), toolsMode(r, opts))
		if err != nil {
			status := http.StatusBadRequest
			if strings.HasPrefix(err.Error(), "unknown server") {
				status = http.StatusNotFound
			}
			http.Error(w, err.Error(), status)
			return
		}
		var (
			body []byte
			p    *wire.Peek
		)
		if r.Method == http.MethodPost {
			var ok bool
			body, p, ok = g.checkBody(w, r) // gateway_http_check.go
			if !ok {
				return
			}
		}
		if p != nil {
			if why := v.checkParams(r, body, p); why != "" { // gateway_http_params.go
				g.refuseHeaders(w, r, body, p, why)
				return
			}
		}
		if statelessPOST(r, body, p) { // gateway_wire26.go
			if p == nil || !g.serveFastStateless(w, r, v, body, p) {
				stateless.ServeHTTP(w, r)
			}
			return
		}
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			// A new session (an initialize): make room under MaxSessions.
			if refusal := g.roomForHTTPSession(); refusal != "" {
				http.Error(w, refusal, http.StatusServiceUnavailable)
				return
			}
		}
		if r.Method == http.MethodDelete {
			// The SDK waits for the session's calls to finish before it
			// ends the session: end them first.
			g.endHTTPSession(r.Header.Get("Mcp-Session-Id"))
		}
		if p != nil && g.serveFast(w, r, v, body, p) {
			return
		}
		streamable.ServeHTTP(w, r)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", serve)
	mux.HandleFunc("/mcp/{server}", serve)
	// The same single-server route under a path that ends in /mcp: clients
	// that guess the transport from the path (the inspector) take
	// /mcp/NAME for SSE.
	mux.HandleFunc("/servers/{server}/mcp", serve)

	token := opts.Token
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if len(token) == 0 || !sameSecret(got, token) {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: "mcptray", Expiration: time.Now().Add(24 * time.Hour)}, nil
	}
	bearer := auth.RequireBearerToken(verify, nil)(mux)
	hosts := opts.AllowedHosts
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authorized := bearerIs(r, token)
		if !authorized {
			// Whatever the answer (401, 403, 413), the connection is not
			// kept for another request.
			w.Header()["Connection"] = connectionClose
		}
		if !limitBody(w, r, authorized) { // gateway_http_limits.go
			return
		}
		if !hostAllowed(r.Host, hosts) {
			http.Error(w, "forbidden: Host "+r.Host+" is not this server", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !originAllowed(o, hosts) {
			http.Error(w, "forbidden: Origin "+o+" may not use this server", http.StatusForbidden)
			return
		}
		bearer.ServeHTTP(w, r)
	})
}

// endHTTPSession cancels the calls in flight of the HTTP session with id.
func (g *Gateway) endHTTPSession(id string) {
	if id == "" {
		return
	}
	g.mu.Lock()
	up := g.httpUps[id]
	g.mu.Unlock()
	if up == nil {
		return
	}
	for _, c := range g.calls.matching(func(c *call) bool { return c.up == up && c.stop != nil }) {
		c.stop()
	}
}

func toolsMode(r *http.Request, opts HTTPOptions) string {
	if m := r.URL.Query().Get("tools"); m != "" {
		return m
	}
	return opts.DefaultTools
}

func hostAllowed(host string, allowed []string) bool {
	if len(allowed) > 0 {
		return slices.ContainsFunc(allowed, func(a string) bool { return strings.EqualFold(a, host) })
	}
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func originAllowed(origin string, allowed []string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return false
	}
	return hostAllowed(u.Host, allowed)
}
