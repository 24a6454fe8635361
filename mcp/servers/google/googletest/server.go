package googletest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	*httptest.Server
	mux *http.ServeMux

	mu     sync.Mutex             // guards the fields below
	now    func() time.Time       // the fake's clock
	access map[string]accessToken // access token → what it grants
	limits []RateLimit            // injected answers for the next API requests

	cal   *calendarFake // the Calendar API (calendar*.go)
	gmail *gmailFake    // the Gmail API (gmail*.go)
	oauth oauthState    // the OAuth endpoints' state (oauth.go)
}

// accessToken is an access token the fake issued.
type accessToken struct {
	email   string
	scopes  []string
	expires time.Time
}

// New starts a fake; Close stops it.
func New() *Server {
	s := &Server{mux: http.NewServeMux(), now: time.Now, access: map[string]accessToken{}}
	s.cal = newCalendarFake(s)
	s.gmail = newGmailFake(s)
	s.Server = httptest.NewServer(s.mux)
	s.oauthRoutes()
	return s
}

// handle registers a handler on the fake's mux (the API parts of the fake
// register theirs in their own files).
func (s *Server) handle(pattern string, h http.HandlerFunc) { s.mux.HandleFunc(pattern, h) }

// IssueAccessToken returns a new access token of email for scopes, valid
// for ttl.
func (s *Server) IssueAccessToken(email string, scopes []string, ttl time.Duration) string {
	tok := "ya29.fake-" + randomHex(16)
	s.mu.Lock()
	s.access[tok] = accessToken{email: email, scopes: scopes, expires: s.now().Add(ttl)}
	s.mu.Unlock()
	return tok
}

// bearer checks the request's access token as Google does: a missing,
// unknown or expired one is answered 401 (and false returned); otherwise
// it returns the token's account and scopes.
func (s *Server) bearer(w http.ResponseWriter, r *http.Request) (email string, scopes []string, ok bool) {
	h := r.Header.Get("Authorization")
	tok, found := strings.CutPrefix(h, "Bearer ")
	s.mu.Lock()
	at, known := s.access[tok]
	now := s.now()
	s.mu.Unlock()
	if !found || !known || now.After(at.expires) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/"`)
		apiError(w, http.StatusUnauthorized, "Request had invalid authentication credentials.", "authError", "UNAUTHENTICATED")
		return "", nil, false
	}
	return at.email, at.scopes, true
}

// apiError writes an error as Google's JSON APIs do.
func apiError(w http.ResponseWriter, code int, message, reason, status string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": code, "message": message, "status": status,
		"errors": []map[string]any{{"message": message, "domain": "global", "reason": reason}},
	}})
}

// writeJSON writes v as a 200 JSON answer.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(v)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
