package oauthclient_test

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/oauthclient"
)

// storedRefresh is the refresh token stored for server.
func (e *env) storedRefresh(t *testing.T, server string) string {
	t.Helper()
	v, err := e.store.Get("token/" + e.fake.Issuer() + "#" + server)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(v, `"refresh_token":"`)
	tok, _, _ := strings.Cut(rest, `"`)
	return tok
}

// A token about to expire is refreshed before use, and the rotated
// refresh token is saved at once: the fake kills a used one, so a
// restart that still had the old one could not refresh again.
func TestRefreshRotationSaved(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.ExpiresIn(30 * time.Second) // always within the refresh margin
	e.signIn(t, e.c, e.entry)
	before := e.storedRefresh(t, "remote")
	cs, err := e.connect(t, e.c, e.entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := echo(t, cs); err != nil {
		t.Fatal(err)
	}
	if e.fake.Count("/token", "refresh_token") == 0 {
		t.Fatal("no refresh")
	}
	if after := e.storedRefresh(t, "remote"); after == before {
		t.Error("the rotated refresh token was not saved")
	}
	cs2, err := e.connect(t, e.newClient(), e.entry)
	if err != nil {
		t.Fatalf("after a restart: %v", err)
	}
	if err := echo(t, cs2); err != nil {
		t.Fatal(err)
	}
	// refresh requests carry the resource once, as the metadata says.
	for _, r := range e.fake.Requests() {
		if r.Form.Get("grant_type") == "refresh_token" && (len(r.Resources) != 1 || r.Resources[0] != e.fake.MCPURL()) {
			t.Errorf("a refresh sent resource %q", r.Resources)
		}
	}
	e.noSecrets(t)
}

// Two servers on one issuer refreshing at the same time: neither loses
// its rotation (after a restart both still refresh).
func TestTwoServersOneIssuerRotation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.ExpiresIn(30 * time.Second)
	other := oauthclient.Entry{Server: "other", URL: e.fake.MCPURL()}
	e.signIn(t, e.c, e.entry)
	e.signIn(t, e.c, other)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 2 {
		for _, en := range []oauthclient.Entry{e.entry, other} {
			wg.Go(func() {
				cs, err := e.connect(t, e.c, en)
				if err == nil {
					err = echo(t, cs)
				}
				if err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	e.works(t, e.newClient(), " after a restart", e.entry, other)
}

// A refresh the authorization server refuses is a sign-in request, not a
// dead server; the token is forgotten.
func TestFailedRefreshNeedsSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.ExpiresIn(30 * time.Second)
	e.signIn(t, e.c, e.entry)
	e.fake.RefuseRefresh(true)
	_, err := e.connect(t, e.c, e.entry)
	ns := needsSignIn(t, err)
	if ns.Issuer != e.fake.Issuer() {
		t.Errorf("NeedsSignIn = %+v", ns)
	}
	if info, _ := e.c.Info(e.entry); info.State != oauthclient.StateSignedOut {
		t.Errorf("Info after a refused refresh = %+v", info)
	}
	e.noSecrets(t, err.Error())
}

// A token with no expires_in is good until a 401; then one refresh, and
// the call goes on.
func TestNoExpiryValidUntil401(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.NoExpiry(true)
	info := e.signIn(t, e.c, e.entry)
	if !info.Expiry.IsZero() {
		t.Errorf("Expiry = %v, want none", info.Expiry)
	}
	cs, err := e.connect(t, e.c, e.entry)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.fake.Count("/token", "refresh_token"); n != 0 {
		t.Errorf("%d refreshes of a token with no expiry before any 401", n)
	}
	e.fake.ExpireAccessTokens()
	if err := echo(t, cs); err != nil {
		t.Fatalf("after the server dropped the token: %v", err)
	}
	if n := e.fake.Count("/token", "refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
}

// A server that refuses every fresh token (audience mismatch): one
// refresh and one retry, then TokenRefused — no loop.
func TestAudienceMismatchNoLoop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.WrongAudience(true)
	e.signIn(t, e.c, e.entry)
	if _, err := e.connect(t, e.c, e.entry); err == nil {
		t.Fatal("connected with a token for another resource")
	}
	_, err := e.connect(t, e.c, e.entry)
	var tr *oauthclient.TokenRefused
	if !errors.As(err, &tr) || tr.Server != "remote" {
		t.Fatalf("second connect: %v, want TokenRefused", err)
	}
	if n := e.fake.Count("/token", "refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want exactly 1", n)
	}
	if n := e.fake.Count("/authorize", ""); n != 1 {
		t.Errorf("%d authorizations, want the one sign-in", n)
	}
	e.noSecrets(t, err.Error())
}

// 403 insufficient_scope: NeedsSignIn with StepUp and the union of
// scopes; the sign-in asks for them and the call works after.
func TestStepUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.RequireScope("admin")
	e.signIn(t, e.c, e.entry)
	cs, err := e.connect(t, e.c, e.entry)
	if err != nil {
		t.Fatal(err)
	}
	err = echo(t, cs)
	ns := needsSignIn(t, err)
	if !ns.StepUp || !contains(ns.Scopes, "admin") || !contains(ns.Scopes, "read") {
		t.Errorf("NeedsSignIn = %+v", ns)
	}
	info := e.signIn(t, e.c, e.entry)
	if !contains(info.Scopes, "admin") || !contains(info.Scopes, "read") {
		t.Errorf("scopes after step-up: %v", info.Scopes)
	}
	cs2, err := e.connect(t, e.c, e.entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := echo(t, cs2); err != nil {
		t.Fatal(err)
	}
}

// laggingStore serves a token value read before another process wrote a
// new one, for its first reads of it: the race of two processes
// refreshing at once.
type laggingStore struct {
	*memStore
	mu    sync.Mutex
	key   string
	old   string
	stale int // guarded by mu: reads of key still to serve old
}

func (s *laggingStore) Get(k string) (string, error) {
	s.mu.Lock()
	if k == s.key && s.stale > 0 {
		s.stale--
		s.mu.Unlock()
		return s.old, nil
	}
	s.mu.Unlock()
	return s.memStore.Get(k)
}

// Another process rotated the refresh token while this one read the old
// one: this one's refresh is refused, and it takes the stored token
// rather than forgetting it.
func TestRotationByAnotherProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.ExpiresIn(30 * time.Second)
	e.signIn(t, e.c, e.entry)
	key := "token/" + e.fake.Issuer() + "#remote"
	old, err := e.store.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	// "Another process" (e.c) refreshes and rotates.
	cs, err := e.connect(t, e.c, e.entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := echo(t, cs); err != nil {
		t.Fatal(err)
	}
	refreshes := e.fake.Count("/token", "refresh_token")
	stale := oauthclient.New(&laggingStore{memStore: e.store, key: key, old: old, stale: 2}, oauthclient.Options{})
	cs2, err := e.connect(t, stale, e.entry)
	if err != nil {
		t.Fatalf("the stale client: %v", err)
	}
	if err := echo(t, cs2); err != nil {
		t.Fatal(err)
	}
	if n := e.fake.Count("/token", "refresh_token") - refreshes; n < 1 {
		t.Fatal("the stale client did not try its old refresh token")
	}
	if info, _ := e.c.Info(e.entry); info.State != oauthclient.StateSignedIn {
		t.Errorf("after the refused refresh: %+v", info)
	}
}

// A stored token past its expiry with no refresh token: NeedsSignIn (not
// the server's bare 401), and Info says expired until then.
func TestExpiredWithoutRefreshToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.signIn(t, e.c, e.entry)
	key := "token/" + e.fake.Issuer() + "#remote"
	v, err := e.store.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(v), &rec); err != nil {
		t.Fatal(err)
	}
	delete(rec, "refresh_token")
	rec["expiry"] = time.Now().Add(-time.Hour).Format(time.RFC3339)
	b, _ := json.Marshal(rec)
	e.store.Set(key, string(b))
	c := e.newClient()
	if info, _ := c.Info(e.entry); info.State != oauthclient.StateExpired {
		t.Errorf("Info = %+v, want expired", info)
	}
	_, err = e.connect(t, c, e.entry)
	needsSignIn(t, err)
}

// The token endpoint sees the authentication the registration names: a
// public client never sends a Basic header (not even an empty password),
// a confidential one its method, on the exchange and on refreshes.
func TestTokenEndpointAuthMethod(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"none", "client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.fake.ExpiresIn(30 * time.Second)
			if method != "none" {
				e.fake.RegisterConfidential(method)
			}
			e.signIn(t, e.c, e.entry)
			cs, err := e.connect(t, e.c, e.entry)
			if err != nil {
				t.Fatal(err)
			}
			if err := echo(t, cs); err != nil {
				t.Fatal(err)
			}
			// A second sign-in reuses the registration.
			e.signIn(t, e.c, e.entry)
			n := 0
			for _, r := range e.fake.Requests() {
				if strings.HasSuffix(r.Path, "/token") {
					n++
					if r.AuthMethod != method {
						t.Errorf("a %s token request authenticated with %s, want %s", r.Form.Get("grant_type"), r.AuthMethod, method)
					}
				}
			}
			if n < 3 || e.fake.Count("/token", "refresh_token") == 0 || e.fake.Count("/register", "") != 1 {
				t.Errorf("%d token requests, %d refreshes, %d registrations", n, e.fake.Count("/token", "refresh_token"), e.fake.Count("/register", ""))
			}
			e.noSecrets(t)
		})
	}
}
