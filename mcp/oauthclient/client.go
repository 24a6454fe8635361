package oauthclient

import (
	"context"
	"io"

	"github.com/mcptray/mcptray/mcp/loopback"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Client is the OAuth client of every remote server of one mcptray.
type Client struct {
	store Store
	opts  Options
	hc    *http.Client
	log   *slog.Logger

	mu         sync.Mutex
	entryLocks map[string]*sync.Mutex        // guarded by mu: serialise an entry's refreshes
	issuerLock map[string]*sync.Mutex        // guarded by mu: serialise an issuer's registrations
	retried    map[string]retryMark          // guarded by mu: by entry, the token a 401's refresh gave
	challenges map[string]challenge          // guarded by mu: by entry, the server's last 401/403
	cache      map[string]cached             // guarded by mu: by entry, its record as last read or written
	waiting    map[string]*loopback.Listener // guarded by mu: by entry, the listener of its sign-in in progress
	signIns    map[string]*signInRun         // guarded by mu: by entry, its sign-in in progress
}

// signInRun is a sign-in in progress; a newer one for the same entry
// cancels it (the person gave up on its browser tab and asked again).
type signInRun struct {
	cancel context.CancelCauseFunc
}

// cached is an entry's token record as this Client last read or wrote it
// (r nil: none), so that a request costs no keyring read. A 401 and a
// refresh read the Store again (another process may have signed in or
// rotated the token).
type cached struct {
	r *tokenRecord
}

// retryMark is a token obtained because the server answered 401: another
// 401 on it, soon, is a refusal, not a reason to refresh again.
type retryMark struct {
	access string
	at     time.Time
}

// retryWindow is how long a 401 on a token a 401 made counts as its
// refusal.
const retryWindow = time.Minute

// challenge is the server's last 401/403, kept for SignIn: its
// WWW-Authenticate names the metadata and the scopes.
type challenge struct {
	url    string
	status int
	header []string
}

// refreshMargin: a token is refreshed this long before it expires.
const refreshMargin = time.Minute

// New is a Client over store.
func New(store Store, opts Options) *Client {
	if opts.SignInTimeout <= 0 {
		opts.SignInTimeout = DefaultSignInTimeout
	}
	if opts.ClientName == "" {
		opts.ClientName = "mcptray"
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Client{
		store: store, opts: opts, hc: hc, log: log,
		entryLocks: map[string]*sync.Mutex{},
		issuerLock: map[string]*sync.Mutex{},
		retried:    map[string]retryMark{},
		challenges: map[string]challenge{},
		cache:      map[string]cached{},
		waiting:    map[string]*loopback.Listener{},
		signIns:    map[string]*signInRun{},
	}
}

func (c *Client) lockEntry(server string) func() {
	c.mu.Lock()
	m := c.entryLocks[server]
	if m == nil {
		m = &sync.Mutex{}
		c.entryLocks[server] = m
	}
	c.mu.Unlock()
	m.Lock()
	return m.Unlock
}

func (c *Client) lockIssuer(issuer string) func() {
	c.mu.Lock()
	m := c.issuerLock[issuer]
	if m == nil {
		m = &sync.Mutex{}
		c.issuerLock[issuer] = m
	}
	c.mu.Unlock()
	m.Lock()
	return m.Unlock
}
