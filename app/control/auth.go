package control

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/mcptray/mcptray/app/config"
)

// The sign-ins of remote (OAuth) servers: `mcptray auth login|logout|list`
// go through these routes, since the instance owns the keyring store and
// restarts the server. Nothing here carries a token or a client secret.

// SignInStatus is where a server in state needs-sign-in wants the person
// to sign in.
type SignInStatus struct {
	IssuerHost string `json:"issuerHost"`
	// StepUp is set when a call was refused for want of a scope
	// (403 insufficient_scope), not for want of any sign-in.
	StepUp bool `json:"stepUp,omitempty"`
}

// AuthInfo is one remote server's sign-in as `mcptray auth list` shows
// it: never a token.
type AuthInfo struct {
	Server string `json:"server"`
	// Issuer is the authorization server's issuer, "" before the first
	// sign-in; Scopes are those granted.
	Issuer string   `json:"issuer,omitempty"`
	Scopes []string `json:"scopes,omitempty"`
	// Expiry is when the access token expires (zero: unknown, or none).
	Expiry time.Time `json:"expiry,omitzero"`
	// State is signed-in, signed-out or expired (AuthState*).
	State string `json:"state"`
}

// Sign-in states of AuthInfo.State.
const (
	AuthSignedIn  = "signed-in"
	AuthSignedOut = "signed-out"
	AuthExpired   = "expired" // a token is kept, but it is past its expiry and no refresh is known to work
)

// AuthList is GET /v1/auth's reply.
type AuthList struct {
	Servers []AuthInfo `json:"servers"`
}

// ErrNotRemote is wrapped when a sign-in is asked of a server that is
// not a remote (HTTP) one.
var ErrNotRemote = errors.New("not a remote (http) server")

// completeBody is POST /v1/auth/{name}/complete's body: the address the
// person's browser ended on (it holds the authorization code: a body,
// never a URL of this API).
type completeBody struct {
	Redirect string `json:"redirect"`
}

// signInLine is one line of POST /v1/auth/{name}/login's reply: first
// the address to open when the client opens it itself (browser=client),
// then the outcome.
type signInLine struct {
	URL   string    `json:"url,omitempty"`
	Info  *AuthInfo `json:"info,omitempty"`
	Error string    `json:"error,omitempty"`
}

func (h *Handler) authRoutes() {
	h.mux.HandleFunc("GET /v1/auth", func(w http.ResponseWriter, r *http.Request) {
		l, err := h.b.AuthList()
		if err != nil {
			writeJSON(w, http.StatusInternalServerError, apiError{Error: err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, AuthList{Servers: l})
	})
	h.mux.HandleFunc("POST /v1/auth/{name}/logout", h.personOnly("sign out of a server", func(w http.ResponseWriter, r *http.Request) {
		writeAuthError(w, h.b.SignOut(r.Context(), r.PathValue("name")))
	}))
	h.mux.HandleFunc("POST /v1/auth/{name}/login", h.personOnly("sign in to a server", h.signIn))
	h.mux.HandleFunc("POST /v1/auth/{name}/complete", h.personOnly("complete a sign-in", func(w http.ResponseWriter, r *http.Request) {
		var body completeBody
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&body); err != nil || body.Redirect == "" {
			writeJSON(w, http.StatusBadRequest, apiError{Error: `the body must be {"redirect": "the address the browser ended on"}`})
			return
		}
		writeAuthError(w, h.b.CompleteSignIn(r.PathValue("name"), body.Redirect))
	}))
	h.mux.HandleFunc("POST /v1/auth/{name}/ask", h.personOnly("ask for a sign-in", func(w http.ResponseWriter, r *http.Request) {
		writeAuthError(w, h.b.AskSignIn(r.PathValue("name")))
	}))
}

// signIn runs a sign-in for the person. With ?browser=client the address
// goes back to the client (its first reply line) instead of to the
// instance's browser: `mcptray auth login --no-browser` prints it. The
// reply is newline-delimited JSON, its last line the outcome.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := h.b.CheckRemote(name); err != nil {
		writeAuthError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	var open func(string) error
	if r.URL.Query().Get("browser") == "client" {
		open = func(u string) error {
			if err := enc.Encode(signInLine{URL: u}); err != nil {
				return err
			}
			flush()
			return nil
		}
	}
	info, err := h.b.SignIn(r.Context(), name, open)
	if err != nil {
		enc.Encode(signInLine{Error: err.Error()})
		return
	}
	enc.Encode(signInLine{Info: &info})
}

func writeAuthError(w http.ResponseWriter, err error) {
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, struct{}{})
	case errors.Is(err, config.ErrNoServer):
		writeJSON(w, http.StatusNotFound, apiError{Error: err.Error()})
	default:
		writeJSON(w, http.StatusBadRequest, apiError{Error: err.Error()})
	}
}

// authBackend is the part of Backend the sign-in routes use.
type authBackend interface {
	// AuthList is every remote server's sign-in, in config order.
	AuthList() ([]AuthInfo, error)
	// CheckRemote says why name cannot sign in (config.ErrNoServer,
	// ErrNotRemote), nil when it can.
	CheckRemote(name string) error
	// SignIn signs the person in to name and restarts it; open gets the
	// address to visit (nil: the instance's browser opener).
	SignIn(ctx context.Context, name string, open func(url string) error) (AuthInfo, error)
	// AskSignIn puts name's sign-in request in the inbox again (the
	// tray's "Sign in…"), when it waits for a sign-in.
	AskSignIn(name string) error
	// CompleteSignIn finishes name's sign-in under way with the address
	// the person's browser ended on.
	CompleteSignIn(name, redirect string) error
	// SignOut forgets name's tokens (revoking them where the server
	// supports it) and restarts it.
	SignOut(ctx context.Context, name string) error
}
