package googletest

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultEmail is the account the consent page signs in when neither the
// test's Consent nor the request's login_hint names one.
const DefaultEmail = "ada@example.com"

// ExpiredOrRevoked is the error_description Google gives an invalid_grant
// for a refresh token that expired (the 7-day life of a consent screen in
// "Testing") or was revoked.
const ExpiredOrRevoked = "Token has been expired or revoked."

// The fake's OAuth endpoints, under its URL.
const (
	AuthPath     = "/o/oauth2/auth"
	TokenPath    = "/token"
	RevokePath   = "/revoke"
	UserinfoPath = "/v1/userinfo" // OpenID Connect userinfo (bearer token)
)

// Consent is how the fake's consent page answers: it consents at once
// (auto-consent), as the test configured.
type Consent struct {
	// Email signs in; "" means the request's login_hint, else DefaultEmail.
	Email string
	// Scopes are the scopes granted of those requested (granular consent:
	// the person unticked the others); nil grants all. openid and email are
	// always granted.
	Scopes []string
	// Deny answers error=access_denied, as when the person cancels.
	Deny bool
}

// OAuthCounts counts what the OAuth endpoints did.
type OAuthCounts struct {
	Authorizations int // consent pages that redirected back with a code
	Exchanges      int // codes exchanged for tokens
	Refreshes      int // refresh grants answered with an access token
	Refused        int // token requests refused (any error)
	Revocations    int // tokens revoked
}

// oauthState is what the OAuth endpoints keep.
type oauthState struct {
	mu           sync.Mutex
	clientID     string
	clientSecret string
	jwtKey       []byte
	consent      Consent
	accessTTL    time.Duration
	codes        map[string]*authCode
	refresh      map[string]*refreshGrant // refresh token → grant
	counts       OAuthCounts
	issued       []string // every token issued: refresh, access, ID
}

type authCode struct {
	redirect  string
	challenge string
	email     string
	scopes    []string
	offline   bool
	used      bool
	expires   time.Time
}

type refreshGrant struct {
	email   string
	scopes  []string
	revoked bool
	failing bool   // FailRefresh: answer invalid_grant
	fail    string // with this description
}

func (s *Server) oauthRoutes() {
	o := &s.oauth
	o.clientID = "fake-" + randomHex(8) + ".apps.googleusercontent.com"
	o.clientSecret = "GOCSPX-fake-" + randomHex(12)
	o.jwtKey = []byte(randomHex(16))
	o.accessTTL = time.Hour
	o.codes = map[string]*authCode{}
	o.refresh = map[string]*refreshGrant{}
	s.handle("GET "+AuthPath, s.authorize)
	s.handle("POST "+TokenPath, s.token)
	s.handle("POST "+RevokePath, s.revoke)
	s.handle("GET "+UserinfoPath, s.userinfo)
}

// userinfo answers, for a valid access token, whose it is.
func (s *Server) userinfo(w http.ResponseWriter, r *http.Request) {
	email, _, ok := s.bearer(w, r)
	if !ok {
		return
	}
	writeJSON(w, map[string]any{"email": email, "email_verified": true})
}

// ClientID is the fake's one registered OAuth client's id.
func (s *Server) ClientID() string { return s.oauth.clientID }

// ClientSecret is that client's secret.
func (s *Server) ClientSecret() string { return s.oauth.clientSecret }

// ClientFile is the "Desktop app" client JSON file Google's console would
// download for the fake's client, its endpoints pointing at the fake.
func (s *Server) ClientFile() []byte {
	b, _ := json.MarshalIndent(map[string]any{"installed": map[string]any{
		"client_id":                   s.oauth.clientID,
		"project_id":                  "mcptray-test",
		"auth_uri":                    s.URL + AuthPath,
		"token_uri":                   s.URL + TokenPath,
		"auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
		"client_secret":               s.oauth.clientSecret,
		"redirect_uris":               []string{"http://localhost"},
	}}, "", "  ")
	return b
}

// SetConsent sets how the consent page answers from now on.
func (s *Server) SetConsent(c Consent) {
	s.oauth.mu.Lock()
	s.oauth.consent = c
	s.oauth.mu.Unlock()
}

// SetAccessTTL sets the life of the access tokens issued from now on
// (default an hour).
func (s *Server) SetAccessTTL(d time.Duration) {
	s.oauth.mu.Lock()
	s.oauth.accessTTL = d
	s.oauth.mu.Unlock()
}

// FailRefresh makes refresh grants of the refresh tokens email holds now
// answer invalid_grant with description (ExpiredOrRevoked for the Testing
// expiry), until RestoreRefresh. A later sign-in gets a token that works,
// as with Google.
func (s *Server) FailRefresh(email, description string) {
	s.oauth.mu.Lock()
	defer s.oauth.mu.Unlock()
	for _, g := range s.oauth.refresh {
		if g.email == email {
			g.failing, g.fail = true, description
		}
	}
}

// RestoreRefresh undoes FailRefresh.
func (s *Server) RestoreRefresh(email string) {
	s.oauth.mu.Lock()
	defer s.oauth.mu.Unlock()
	for _, g := range s.oauth.refresh {
		if g.email == email {
			g.failing = false
		}
	}
}

// Counts returns what the OAuth endpoints did so far.
func (s *Server) Counts() OAuthCounts {
	s.oauth.mu.Lock()
	defer s.oauth.mu.Unlock()
	return s.oauth.counts
}

// Issued returns every token the fake issued (refresh, access and ID
// tokens), for tests that search for them where they must not be.
func (s *Server) Issued() []string {
	s.oauth.mu.Lock()
	defer s.oauth.mu.Unlock()
	return slices.Clone(s.oauth.issued)
}

// Revoked says whether the refresh token was revoked.
func (s *Server) Revoked(refreshToken string) bool {
	s.oauth.mu.Lock()
	defer s.oauth.mu.Unlock()
	g := s.oauth.refresh[refreshToken]
	return g != nil && g.revoked
}

// authorize is the consent page, answering at once: it checks the request
// as Google does, then redirects to redirect_uri with a code and the state.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	o := &s.oauth
	if q.Get("client_id") != o.clientID {
		http.Error(w, "Error 401: invalid_client. The OAuth client was not found.", http.StatusUnauthorized)
		return
	}
	redirect := q.Get("redirect_uri")
	ru, err := url.Parse(redirect)
	if err != nil || ru.Scheme != "http" || ru.Hostname() != "127.0.0.1" || ru.Port() == "" {
		http.Error(w, "Error 400: redirect_uri_mismatch. A Desktop app client redirects to http://127.0.0.1:PORT.", http.StatusBadRequest)
		return
	}
	if q.Get("response_type") != "code" {
		http.Error(w, "Error 400: unsupported_response_type.", http.StatusBadRequest)
		return
	}
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "Error 400: invalid_request. This client must use PKCE with code_challenge_method=S256.", http.StatusBadRequest)
		return
	}
	scopes := strings.Fields(q.Get("scope"))
	if len(scopes) == 0 {
		http.Error(w, "Error 400: invalid_request. Missing required parameter: scope.", http.StatusBadRequest)
		return
	}
	back := url.Values{"state": {q.Get("state")}}
	o.mu.Lock()
	c := o.consent
	if c.Deny {
		o.mu.Unlock()
		back.Set("error", "access_denied")
		http.Redirect(w, r, redirect+"?"+back.Encode(), http.StatusFound)
		return
	}
	email := c.Email
	if email == "" {
		email = q.Get("login_hint")
	}
	if email == "" {
		email = DefaultEmail
	}
	var granted []string
	for _, sc := range scopes {
		if c.Scopes == nil || sc == "openid" || sc == "email" || slices.Contains(c.Scopes, sc) {
			granted = append(granted, sc)
		}
	}
	code := "4/0fake-" + randomHex(16)
	o.codes[code] = &authCode{
		redirect: redirect, challenge: q.Get("code_challenge"), email: email, scopes: granted,
		offline: q.Get("access_type") == "offline", expires: s.clock().Add(10 * time.Minute),
	}
	o.counts.Authorizations++
	o.mu.Unlock()
	back.Set("code", code)
	back.Set("scope", strings.Join(granted, " "))
	http.Redirect(w, r, redirect+"?"+back.Encode(), http.StatusFound)
}

// oauthError answers a token or revoke request with an OAuth error.
func (s *Server) oauthError(w http.ResponseWriter, code int, errCode, desc string) {
	s.oauth.mu.Lock()
	s.oauth.counts.Refused++
	s.oauth.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": errCode, "error_description": desc})
}

// token is the token endpoint: the authorization_code grant (single-use
// codes, the PKCE verifier checked) and the refresh_token grant.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.oauthError(w, http.StatusBadRequest, "invalid_request", "malformed form")
		return
	}
	o := &s.oauth
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != o.clientID || subtle.ConstantTimeCompare([]byte(secret), []byte(o.clientSecret)) != 1 {
		s.oauthError(w, http.StatusUnauthorized, "invalid_client", "Unauthorized")
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		s.exchange(w, r)
	case "refresh_token":
		s.refreshGrant(w, r)
	default:
		s.oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "Invalid grant_type: "+r.PostForm.Get("grant_type"))
	}
}

func (s *Server) exchange(w http.ResponseWriter, r *http.Request) {
	o := &s.oauth
	o.mu.Lock()
	c := o.codes[r.PostForm.Get("code")]
	fresh := c != nil && !c.used && s.clock().Before(c.expires)
	if c != nil {
		c.used = true // single use, even when refused below
	}
	o.mu.Unlock()
	switch {
	case !fresh:
		s.oauthError(w, http.StatusBadRequest, "invalid_grant", "Bad Request")
		return
	case r.PostForm.Get("redirect_uri") != c.redirect:
		s.oauthError(w, http.StatusBadRequest, "redirect_uri_mismatch", "Bad Request")
		return
	}
	verifier := r.PostForm.Get("code_verifier")
	if verifier == "" {
		s.oauthError(w, http.StatusBadRequest, "invalid_grant", "Missing code verifier.")
		return
	}
	sum := sha256.Sum256([]byte(verifier))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
		s.oauthError(w, http.StatusBadRequest, "invalid_grant", "Invalid code verifier.")
		return
	}
	resp := s.issue(c.email, c.scopes, true)
	if c.offline {
		rt := "1//0fake-" + randomHex(24)
		o.mu.Lock()
		o.refresh[rt] = &refreshGrant{email: c.email, scopes: c.scopes}
		o.issued = append(o.issued, rt)
		o.mu.Unlock()
		resp["refresh_token"] = rt
	}
	o.mu.Lock()
	o.counts.Exchanges++
	o.mu.Unlock()
	writeJSON(w, resp)
}

func (s *Server) refreshGrant(w http.ResponseWriter, r *http.Request) {
	o := &s.oauth
	o.mu.Lock()
	g := o.refresh[r.PostForm.Get("refresh_token")]
	var grant refreshGrant
	if g != nil {
		grant = *g
	}
	o.mu.Unlock()
	switch {
	case g == nil || grant.revoked:
		s.oauthError(w, http.StatusBadRequest, "invalid_grant", ExpiredOrRevoked)
		return
	case grant.failing:
		s.oauthError(w, http.StatusBadRequest, "invalid_grant", grant.fail)
		return
	}
	resp := s.issue(g.email, g.scopes, false) // as Google: no new refresh token
	o.mu.Lock()
	o.counts.Refreshes++
	o.mu.Unlock()
	writeJSON(w, resp)
}

// issue makes a token response's access token (and ID token).
func (s *Server) issue(email string, scopes []string, idToken bool) map[string]any {
	o := &s.oauth
	o.mu.Lock()
	ttl := o.accessTTL
	o.mu.Unlock()
	at := s.IssueAccessToken(email, scopes, ttl)
	resp := map[string]any{
		"access_token": at,
		"expires_in":   int(ttl.Seconds()),
		"scope":        strings.Join(scopes, " "),
		"token_type":   "Bearer",
	}
	issued := []string{at}
	if idToken && slices.Contains(scopes, "openid") {
		now := s.clock()
		claims := map[string]any{
			"iss": s.URL, "aud": o.clientID, "azp": o.clientID, "sub": fmt.Sprintf("%x", sha256.Sum256([]byte(email)))[:21],
			"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		}
		if slices.Contains(scopes, "email") {
			claims["email"], claims["email_verified"] = email, true
		}
		id := s.jwt(claims)
		resp["id_token"] = id
		issued = append(issued, id)
	}
	o.mu.Lock()
	o.issued = append(o.issued, issued...)
	o.mu.Unlock()
	return resp
}

// jwt encodes claims as a JWT signed with HS256 and the fake's own key
// (Google signs with RS256; clients read the claims of a token fetched
// over TLS without checking the signature).
func (s *Server) jwt(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	in := enc(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." + enc(claims)
	m := hmac.New(sha256.New, s.oauth.jwtKey)
	m.Write([]byte(in))
	return in + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// revoke is the revocation endpoint (RFC 7009): a refresh token or an
// access token, in the form.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.oauthError(w, http.StatusBadRequest, "invalid_request", "malformed form")
		return
	}
	tok := r.PostForm.Get("token")
	o := &s.oauth
	o.mu.Lock()
	g := o.refresh[tok]
	ok := g != nil && !g.revoked
	if ok {
		g.revoked = true
		o.counts.Revocations++
	}
	o.mu.Unlock()
	if !ok {
		s.mu.Lock()
		_, ok = s.access[tok]
		delete(s.access, tok)
		s.mu.Unlock()
		if ok {
			o.mu.Lock()
			o.counts.Revocations++
			o.mu.Unlock()
		}
	}
	if !ok {
		s.oauthError(w, http.StatusBadRequest, "invalid_token", "Token expired or revoked")
		return
	}
	w.WriteHeader(http.StatusOK)
}

// clock reads the fake's clock under its lock.
func (s *Server) clock() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now()
}
