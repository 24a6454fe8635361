package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/oauthclient"
)

// NewRemoteAuth is the core's RemoteAuth over mcp/oauthclient, its tokens
// and registrations kept in store (the app's: app/oauthkeys, the OS
// keyring's entries "oauth/…"), read through a cache in memory: the
// instance is the only writer (the CLI's sign-ins go through it), and the
// transport asks for the token on every request. A store call is bounded
// by the keyring's timeout (a locked keyring may wait for the person).
func NewRemoteAuth(store oauthclient.Store, opts oauthclient.Options) RemoteAuth {
	log := func(string, error) {}
	if opts.Logger != nil {
		log = func(msg string, err error) { opts.Logger.Warn(msg, "err", err) }
	}
	return &remoteAuth{c: oauthclient.New(&cachedStore{store: store, log: log, m: map[string]cached{}}, opts)}
}

// remoteAuth is RemoteAuth over an oauthclient.Client.
type remoteAuth struct{ c *oauthclient.Client }

func entryOf(spec config.Server) oauthclient.Entry {
	e := oauthclient.Entry{Server: spec.Name, URL: spec.URL}
	if o := spec.OAuth; o != nil {
		e.ClientID, e.ClientSecret, e.Scopes, e.ClientMetadataURL, e.CallbackPort = o.ClientID, o.ClientSecret, o.Scopes, o.ClientMetadataURL, o.CallbackPort
	}
	return e
}

func (a *remoteAuth) Wire(spec config.Server, hs *downstream.HTTPSpec) {
	hs.OAuth = a.c.Handler(entryOf(spec))
}

func (a *remoteAuth) NeedsSignIn(err error) (control.SignInStatus, bool) {
	var need *oauthclient.NeedsSignIn
	if !errors.As(err, &need) {
		return control.SignInStatus{}, false
	}
	return control.SignInStatus{IssuerHost: need.IssuerHost, StepUp: need.StepUp}, true
}

func (a *remoteAuth) SignIn(ctx context.Context, spec config.Server, open func(string) error) (control.AuthInfo, error) {
	info, err := a.c.SignIn(ctx, entryOf(spec), open)
	if err != nil {
		return control.AuthInfo{}, err
	}
	return authInfo(info), nil
}

func (a *remoteAuth) Complete(spec config.Server, redirect string) error {
	return a.c.Complete(entryOf(spec), redirect)
}

func (a *remoteAuth) Logout(ctx context.Context, spec config.Server) error {
	return a.c.Logout(ctx, entryOf(spec))
}

func (a *remoteAuth) Info(spec config.Server) (control.AuthInfo, error) {
	info, err := a.c.Info(entryOf(spec))
	if err != nil {
		return control.AuthInfo{}, err
	}
	return authInfo(info), nil
}

func authInfo(i oauthclient.Info) control.AuthInfo {
	return control.AuthInfo{Server: i.Server, Issuer: i.Issuer, Scopes: i.Scopes, Expiry: i.Expiry, State: string(i.State)}
}

// cachedStore is an oauthclient.Store with what it read or wrote kept in
// memory (a missing entry too).
type cachedStore struct {
	store       oauthclient.Store
	log         func(msg string, err error)
	unavailable sync.Once         // logs the keyring's absence once
	mu          sync.Mutex        // guards m
	m           map[string]cached // by key
}

type cached struct {
	v  string
	ok bool // false: the store has no such entry
}

func (s *cachedStore) Get(key string) (string, error) {
	s.mu.Lock()
	c, hit := s.m[key]
	s.mu.Unlock()
	if !hit {
		v, err := keyring.WithTimeout(keyringTimeout, func() (string, error) { return s.store.Get(key) })
		switch {
		case errors.Is(err, oauthclient.ErrNotFound):
			c = cached{}
		case errors.Is(err, keyring.ErrUnavailable):
			// No keyring (no session D-Bus, say): nothing stored, so
			// remote servers that need no sign-in run as before, and one
			// that needs it asks; the sign-in then says what is missing.
			s.unavailable.Do(func() { s.log("no keyring: remote servers' sign-ins cannot be kept", err) })
			c = cached{}
		case err != nil:
			return "", fmt.Errorf("reading the keyring: %w", err)
		default:
			c = cached{v: v, ok: true}
		}
		s.mu.Lock()
		s.m[key] = c
		s.mu.Unlock()
	}
	if !c.ok {
		return "", oauthclient.ErrNotFound
	}
	return c.v, nil
}

func (s *cachedStore) Set(key, value string) error {
	if _, err := keyring.WithTimeout(keyringTimeout, func() (string, error) { return "", s.store.Set(key, value) }); err != nil {
		return fmt.Errorf("saving to the keyring: %w", err)
	}
	s.mu.Lock()
	s.m[key] = cached{v: value, ok: true}
	s.mu.Unlock()
	return nil
}

func (s *cachedStore) Delete(key string) error {
	_, err := keyring.WithTimeout(keyringTimeout, func() (string, error) { return "", s.store.Delete(key) })
	if err != nil && !errors.Is(err, oauthclient.ErrNotFound) {
		return fmt.Errorf("deleting from the keyring: %w", err)
	}
	s.mu.Lock()
	s.m[key] = cached{}
	s.mu.Unlock()
	return nil
}
