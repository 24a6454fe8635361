package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is the fake: authorization servers and a protected MCP server.
type Server struct {
	ts *httptest.Server

	mu        sync.Mutex
	issuer    string             // guarded by mu: "as1" or "as2"
	clients   map[string]*client // guarded by mu: by client_id
	codes     map[string]*grant  // guarded by mu: by code
	access    map[string]*grant  // guarded by mu: by access token
	refresh   map[string]*grant  // guarded by mu: by refresh token
	requests  []Request          // guarded by mu
	noExpiry  bool               // guarded by mu
	expiresIn time.Duration      // guarded by mu
	wrongAud  bool               // guarded by mu
	scope     string             // guarded by mu: tools/call needs it ("" none)
	never     bool               // guarded by mu: every request with a token gets 403 insufficient_scope
	refuse    bool               // guarded by mu: refresh answers invalid_grant
	supported []string           // guarded by mu: scopes_supported
	revoked   []string           // guarded by mu: tokens revoked
	legacy400 bool               // guarded by mu: initialize answered 400 before the token check
	cimd      bool               // guarded by mu: client ID metadata documents accepted
	regMethod string             // guarded by mu: the auth method registrations get ("none")
}

type client struct {
	id, issuer  string
	redirectURI string
	secret      string // a pre-registered client's ("" for a public one)
}

type grant struct {
	issuer, clientID, redirectURI string
	challenge                     string
	resource                      string
	scopes                        []string
	expiry                        time.Time
}

// Request is one request to the authorization server, as recorded.
type Request struct {
	Method, Path string
	// Form is the request's query and form, with the values of secret
	// parameters kept (the fake is a test's).
	Form url.Values
	// Resources are the resource parameters as sent (to count them).
	Resources []string
	// AuthMethod is how the client authenticated: client_secret_basic,
	// client_secret_post or none.
	AuthMethod string
}

// New starts a fake; Close stops it.
func New() *Server {
	s := &Server{issuer: "as1", regMethod: "none", clients: map[string]*client{}, codes: map[string]*grant{},
		access: map[string]*grant{}, refresh: map[string]*grant{}, expiresIn: time.Hour,
		supported: []string{"read", "write"}}
	mux := http.NewServeMux()
	for _, as := range []string{"as1", "as2"} {
		mux.HandleFunc("GET /.well-known/oauth-authorization-server/"+as, s.asMetadata(as))
		mux.HandleFunc("POST /"+as+"/register", s.register(as))
		mux.HandleFunc("GET /"+as+"/authorize", s.authorize(as))
		mux.HandleFunc("POST /"+as+"/token", s.token(as))
		mux.HandleFunc("POST /"+as+"/revoke", s.revoke(as))
	}
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", s.prm)
	srv := sdk.NewServer(&sdk.Implementation{Name: "oauthtest", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "echoes its text"}, func(ctx context.Context, req *sdk.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
	})
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{JSONResponse: true})
	mux.Handle("/mcp", s.protect(mcpHandler))
	s.ts = httptest.NewServer(mux)
	return s
}

// URL is the fake's base URL.
func (s *Server) URL() string { return s.ts.URL }

// MCPURL is the protected MCP server's URL.
func (s *Server) MCPURL() string { return s.ts.URL + "/mcp" }

// Issuer is the current authorization server's issuer.
func (s *Server) Issuer() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ts.URL + "/" + s.issuer
}

// Close stops the fake.
func (s *Server) Close() { s.ts.Close() }

// NoExpiry makes token answers leave out expires_in.
func (s *Server) NoExpiry(on bool) { s.set(func() { s.noExpiry = on }) }

// ExpiresIn sets the expires_in of tokens issued from now on.
func (s *Server) ExpiresIn(d time.Duration) { s.set(func() { s.expiresIn = d }) }

// Preregister adds a confidential client of the current issuer, as a
// person registers one in a provider's console, with the loopback
// redirect URI of port, and returns its id.
func (s *Server) Preregister(secret string, port int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &client{id: "pre-" + random(), issuer: s.issuer, secret: secret,
		redirectURI: fmt.Sprintf("http://127.0.0.1:%d/callback", port)}
	s.clients[c.id] = c
	return c.id
}

// RegisterConfidential makes registrations from now on get a secret and
// token_endpoint_auth_method method (client_secret_basic or
// client_secret_post), and the metadata advertise that method only.
func (s *Server) RegisterConfidential(method string) { s.set(func() { s.regMethod = method }) }

// methods is token_endpoint_auth_methods_supported. The caller holds mu.
func (s *Server) methods() []string {
	if s.regMethod != "none" {
		return []string{s.regMethod}
	}
	return []string{"none", "client_secret_post", "client_secret_basic"}
}

// RefuseInitialize makes the MCP server answer a legacy initialize 400
// before it looks at the token, as a server of protocol 2026-07-28 only
// does: a client's sign-in must come from its server/discover's 401.
func (s *Server) RefuseInitialize(on bool) { s.set(func() { s.legacy400 = on }) }

// AcceptMetadataDocuments makes the authorization servers advertise
// client_id_metadata_document_supported and take an https client_id as
// a public client whose redirect URIs are loopback ones (the document is
// not fetched).
func (s *Server) AcceptMetadataDocuments(on bool) { s.set(func() { s.cimd = on }) }

// client is the client of id at issuer as; a metadata document's when
// they are accepted. The caller holds mu.
func (s *Server) client(id, as, redirectURI string) *client {
	if c := s.clients[id]; c != nil && c.issuer == as {
		return c
	}
	if s.cimd && strings.HasPrefix(id, "https://") && strings.HasPrefix(redirectURI, "http://127.0.0.1:") {
		return &client{id: id, issuer: as, redirectURI: redirectURI}
	}
	return nil
}

// DeleteClients forgets every registered client: their requests get
// invalid_client.
func (s *Server) DeleteClients() { s.set(func() { s.clients = map[string]*client{} }) }

// WrongAudience makes tokens issued from now on name another resource.
func (s *Server) WrongAudience(on bool) { s.set(func() { s.wrongAud = on }) }

// RequireScope makes tools/call need scope ("" for none): 403
// insufficient_scope otherwise.
func (s *Server) RequireScope(scope string) {
	s.set(func() {
		s.scope = scope
		if scope != "" && !slices.Contains(s.supported, scope) {
			s.supported = append(s.supported, scope)
		}
	})
}

// NeverEnoughScope makes every request with a good token get 403
// insufficient_scope (scope "read admin"), whatever the token's scopes:
// a server whose step-up never succeeds (conformance
// auth/scope-retry-limit).
func (s *Server) NeverEnoughScope(on bool) {
	s.set(func() {
		s.never = on
		if on && !slices.Contains(s.supported, "admin") {
			s.supported = append(s.supported, "admin")
		}
	})
}

// SwitchIssuer moves the MCP server to the other authorization server
// (as2): tokens of the first are refused from now on.
func (s *Server) SwitchIssuer() { s.set(func() { s.issuer = "as2" }) }

// RefuseRefresh makes refreshes answer invalid_grant.
func (s *Server) RefuseRefresh(on bool) { s.set(func() { s.refuse = on }) }

// ExpireAccessTokens makes every access token issued so far expired.
func (s *Server) ExpireAccessTokens() {
	s.set(func() {
		for _, g := range s.access {
			g.expiry = time.Now().Add(-time.Second)
		}
	})
}

func (s *Server) set(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// Requests are the authorization server requests so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Count is the number of requests to the authorization servers' path
// ending in suffix ("/register", "/authorize", "/token", "/revoke"), and
// for "/token" with grant ("" any).
func (s *Server) Count(suffix, grant string) int {
	n := 0
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, suffix) && (grant == "" || r.Form.Get("grant_type") == grant) {
			n++
		}
	}
	return n
}

// Revoked are the tokens revoked so far.
func (s *Server) Revoked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.revoked)
}

// Browser is a stand-in browser: it GETs the sign-in URL, follows
// /authorize's 302 to the loopback redirect, and fails unless the page
// shown is a 200.
func Browser(u string) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the browser got %s: %s", resp.Status, b)
	}
	return nil
}

func (s *Server) record(r *http.Request) {
	r.ParseForm()
	req := Request{Method: r.Method, Path: r.URL.Path, Form: r.Form}
	req.Resources = append(append([]string(nil), r.URL.Query()["resource"]...), r.PostForm["resource"]...)
	req.AuthMethod = "none"
	if _, _, ok := r.BasicAuth(); ok {
		req.AuthMethod = "client_secret_basic"
	} else if r.PostForm.Get("client_secret") != "" {
		req.AuthMethod = "client_secret_post"
	}
	s.requests = append(s.requests, req)
}

func (s *Server) prm(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":              s.ts.URL + "/mcp",
		"authorization_servers": []string{s.ts.URL + "/" + s.issuer},
		"scopes_supported":      []string{"read"},
	})
}

func (s *Server) asMetadata(as string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		iss := s.ts.URL + "/" + as
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                iss,
			"authorization_endpoint":                iss + "/authorize",
			"token_endpoint":                        iss + "/token",
			"registration_endpoint":                 iss + "/register",
			"revocation_endpoint":                   iss + "/revoke",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": s.methods(),
			"scopes_supported":                      append(slices.Clone(s.supported), "offline_access"),
			"client_id_metadata_document_supported": s.cimd,
		})
	}
}

func (s *Server) register(as string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var meta struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Form: url.Values{"body": {string(body)}}})
		if err := json.Unmarshal(body, &meta); err != nil || len(meta.RedirectURIs) != 1 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
			return
		}
		c := &client{id: "client-" + random(), issuer: as, redirectURI: meta.RedirectURIs[0]}
		ans := map[string]any{"client_id": c.id, "redirect_uris": meta.RedirectURIs,
			"token_endpoint_auth_method": s.regMethod, "grant_types": []string{"authorization_code", "refresh_token"}}
		if s.regMethod != "none" {
			c.secret = "dcr-secret-" + random()
			ans["client_secret"] = c.secret
		}
		s.clients[c.id] = c
		writeJSON(w, http.StatusCreated, ans)
	}
}

func (s *Server) authorize(as string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.record(r)
		q := r.URL.Query()
		c := s.client(q.Get("client_id"), as, q.Get("redirect_uri"))
		if c == nil {
			http.Error(w, "unknown client", http.StatusBadRequest) // never redirected (RFC 6749 §4.1.2.1)
			return
		}
		if q.Get("redirect_uri") != c.redirectURI {
			http.Error(w, "redirect_uri is not the one registered", http.StatusBadRequest)
			return
		}
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || len(q["resource"]) != 1 {
			http.Error(w, "PKCE S256 and one resource are required", http.StatusBadRequest)
			return
		}
		code := "code-" + random()
		s.codes[code] = &grant{issuer: as, clientID: c.id, redirectURI: c.redirectURI, challenge: q.Get("code_challenge"),
			resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
		u, _ := url.Parse(c.redirectURI)
		v := url.Values{"code": {code}, "state": {q.Get("state")}}
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
}

func (s *Server) token(as string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.record(r)
		f := r.PostForm
		id, secret := f.Get("client_id"), f.Get("client_secret")
		if u, p, ok := r.BasicAuth(); ok {
			id, _ = url.QueryUnescape(u)
			secret, _ = url.QueryUnescape(p)
		}
		if c := s.client(id, as, f.Get("redirect_uri")); c == nil && !(s.cimd && strings.HasPrefix(id, "https://")) || c != nil && c.secret != secret {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		}
		if len(f["resource"]) > 1 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_target", "error_description": "resource sent twice"})
			return
		}
		var g *grant
		switch f.Get("grant_type") {
		case "authorization_code":
			g = s.codes[f.Get("code")]
			delete(s.codes, f.Get("code"))
			sum := sha256.Sum256([]byte(f.Get("code_verifier")))
			if g == nil || g.clientID != id || g.redirectURI != f.Get("redirect_uri") ||
				base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || f.Get("resource") != g.resource {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
				return
			}
		case "refresh_token":
			g = s.refresh[f.Get("refresh_token")]
			delete(s.refresh, f.Get("refresh_token")) // rotated: a used refresh token is dead
			if g == nil || g.clientID != id || s.refuse {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
				return
			}
		default:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		ng := *g
		if s.wrongAud {
			ng.resource = "https://other.example/mcp"
		}
		access, refresh := "at-"+random(), "rt-"+random()
		ans := map[string]any{"access_token": access, "token_type": "Bearer", "refresh_token": refresh,
			"scope": strings.Join(g.scopes, " ")}
		ng.expiry = time.Now().Add(100 * 365 * 24 * time.Hour)
		if !s.noExpiry {
			ans["expires_in"] = int(s.expiresIn / time.Second)
			ng.expiry = time.Now().Add(s.expiresIn)
		}
		s.access[access] = &ng
		rg := ng
		s.refresh[refresh] = &rg
		writeJSON(w, http.StatusOK, ans)
	}
}

func (s *Server) revoke(as string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.record(r)
		t := r.PostForm.Get("token")
		delete(s.access, t)
		delete(s.refresh, t)
		s.revoked = append(s.revoked, t)
		w.WriteHeader(http.StatusOK)
	}
}

// protect answers 401 to a request without a good token, and 403
// insufficient_scope to a tools/call without RequireScope's scope.
func (s *Server) protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		s.mu.Lock()
		if s.legacy400 && strings.Contains(string(body), `"method":"initialize"`) {
			s.mu.Unlock()
			http.Error(w, "Missing MCP-Protocol-Version header", http.StatusBadRequest)
			return
		}
		meta := s.ts.URL + "/.well-known/oauth-protected-resource/mcp"
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		g := s.access[tok]
		ok := g != nil && g.issuer == s.issuer && g.resource == s.ts.URL+"/mcp" && time.Now().Before(g.expiry)
		need, never := s.scope, s.never
		s.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope="read"`, meta))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if never {
			need = "admin"
		}
		if need != "" && (never || !slices.Contains(g.scopes, need) && strings.Contains(string(body), `"tools/call"`)) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="read %s", resource_metadata=%q`, need, meta))
			http.Error(w, "insufficient scope", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func random() string { return rand.Text() }
