package oauthclient

import (
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// Entry is one remote server as the client needs it.
type Entry struct {
	// Server is the mcp.json entry's name.
	Server string
	// URL is the server's MCP endpoint; a token is served to it only.
	URL string
	// ClientID and ClientSecret are a pre-registered client (the entry's
	// "oauth" block), the secret already resolved; both empty for none.
	ClientID     string
	ClientSecret string
	// Scopes are asked for besides those the server names.
	Scopes []string
	// ClientMetadataURL is the Client ID Metadata Document URL to present
	// where the authorization server supports CIMD ("" for none).
	ClientMetadataURL string
	// CallbackPort is the loopback port a pre-registered client's
	// redirect URI names (0: any).
	CallbackPort int
}

// Store keeps values by key (the app: the OS keyring). Get returns an
// error wrapping ErrNotFound for a key with no value; Delete of such a key
// is not an error.
type Store interface {
	Get(key string) (string, error)
	Set(key, value string) error
	Delete(key string) error
}

// ErrNotFound is what a Store's Get wraps when there is no value.
var ErrNotFound = errors.New("not found")

// Options configure a Client. The zero value is ready.
type Options struct {
	// HTTPClient makes the discovery, registration, token and revocation
	// requests (nil: http.DefaultClient).
	HTTPClient *http.Client
	// SignInTimeout is how long SignIn waits for the browser to come back
	// (0: DefaultSignInTimeout).
	SignInTimeout time.Duration
	// ClientName is the client_name of a dynamic registration ("" :
	// "mcptray").
	ClientName string
	// OnNeedsSignIn, when set, is called (on the requesting goroutine;
	// it must not block) each time a handler's Authorize answers
	// NeedsSignIn: also during a session's calls, whose errors the app
	// may not see.
	OnNeedsSignIn func(*NeedsSignIn)
	// Logger gets what a person debugging wants to know, never a token
	// (nil: discard).
	Logger *slog.Logger
}

// DefaultSignInTimeout is how long a sign-in waits for the browser.
const DefaultSignInTimeout = 5 * time.Minute

// State is where an entry's sign-in stands.
type State string

const (
	// StateSignedIn: a token is stored that is valid or can be refreshed.
	StateSignedIn State = "signed-in"
	// StateExpired: the stored token expired and cannot be refreshed.
	StateExpired State = "expired"
	// StateSignedOut: no token is stored.
	StateSignedOut State = "signed-out"
)

// Info is what may be shown of an entry's sign-in: never a token.
type Info struct {
	Server string
	// Issuer is the authorization server's issuer ("" when signed out).
	Issuer string
	// Scopes are the scopes granted (or asked for, when the answer named none).
	Scopes []string
	// Expiry is the access token's expiry (zero: none given, or signed out).
	Expiry time.Time
	State  State
	// Registration is how the client was identified: "dynamic",
	// "preregistered" or "metadata-document" ("" when signed out).
	Registration string
}
