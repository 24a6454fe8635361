package downstream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/oauthclient"
	"github.com/mcptray/mcptray/mcp/oauthclient/oauthtest"
	"github.com/mcptray/mcptray/mcp/wire"
)

// memStore is an oauthclient.Store in RAM.
type memStore struct {
	mu sync.Mutex
	m  map[string]string // guarded by mu
}

func (s *memStore) Get(k string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	if !ok {
		return "", fmt.Errorf("%s: %w", k, oauthclient.ErrNotFound)
	}
	return v, nil
}

func (s *memStore) Set(k, v string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = v
	return nil
}

func (s *memStore) Delete(k string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
	return nil
}

// tapRouter keeps the lines the raw path hands it.
type tapRouter struct {
	Router // nil: only the methods below are called here
	mu     sync.Mutex
	lines  []string // guarded by mu
}

func (r *tapRouter) Tap(s *Session, line []byte, p *wire.Peek) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, string(line))
	return true
}
func (r *tapRouter) TapElicit(*Session, []byte, *wire.Peek) bool { return false }
func (r *tapRouter) ToolsListed(*Session)                        {}
func (r *tapRouter) FeaturesChanged(*Session)                    {}
func (r *tapRouter) ProgressSeen(uint64)                         {}

func (r *tapRouter) got() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

// An HTTP server behind OAuth: StartHTTP without a sign-in fails with a
// NeedsSignIn one can errors.As; after it, both the SDK's path and the
// raw fast path carry the token, a raw post's 401 goes to the handler
// oauthFixture is what each test here starts from: the fake authorization
// server and its MCP server (closed with the test), an OAuth client over a
// store in memory, and the entry of the fake's server.
func oauthFixture(t *testing.T) (*oauthtest.Server, *memStore, *oauthclient.Client, oauthclient.Entry) {
	t.Helper()
	fake := oauthtest.New()
	t.Cleanup(fake.Close)
	store := &memStore{m: map[string]string{}}
	return fake, store, oauthclient.New(store, oauthclient.Options{}), oauthclient.Entry{Server: "remote", URL: fake.MCPURL()}
}

// (a refresh, a retry), and the token is in the session's redactions.
func TestStartHTTPOAuth(t *testing.T) {
	fake, store, c, e := oauthFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	_, err := StartHTTP(ctx, HTTPSpec{Name: "remote", URL: e.URL, OAuth: c.Handler(e)}, Hooks{})
	var ns *oauthclient.NeedsSignIn
	if !errors.As(err, &ns) || ns.Server != "remote" {
		t.Fatalf("StartHTTP before the sign-in: %v, want a NeedsSignIn", err)
	}
	if _, err := c.SignIn(ctx, e, oauthtest.Browser); err != nil {
		t.Fatal(err)
	}
	r := &tapRouter{}
	s, err := StartHTTP(ctx, HTTPSpec{Name: "remote", URL: e.URL, OAuth: c.Handler(e), Router: r}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Attach(r)
	if err := s.WriteLine([]byte(`{"jsonrpc":"2.0","id":"gw-1","method":"tools/call","params":{"name":"echo","arguments":{"text":"raw one"}}}`)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the raw call's answer", func() bool { return strings.Contains(r.got(), "raw one") })
	// The server drops the token: the raw post's 401 reaches the
	// handler, which refreshes, and the post is sent again.
	fake.ExpireAccessTokens()
	if err := s.WriteLine([]byte(`{"jsonrpc":"2.0","id":"gw-2","method":"tools/call","params":{"name":"echo","arguments":{"text":"raw two"}}}`)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the raw call's answer after a 401", func() bool { return strings.Contains(r.got(), "raw two") })
	if n := fake.Count("/token", "refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	// The token in use is redacted from what the server says.
	v, _ := store.Get("token/" + fake.Issuer() + "#remote")
	_, rest, _ := strings.Cut(v, `"access_token":"`)
	tok, _, _ := strings.Cut(rest, `"`)
	if tok == "" {
		t.Fatal("no stored token")
	}
	if got := s.RedactText("echo " + tok); strings.Contains(got, tok) {
		t.Errorf("the token is not redacted: %q", got)
	}
	if strings.Contains(r.got(), tok) {
		t.Error("a raw answer shows the token")
	}
	// A refresh refused: the raw call's error says a sign-in is needed,
	// without the token.
	fake.RefuseRefresh(true)
	fake.ExpireAccessTokens()
	if err := s.WriteLine([]byte(`{"jsonrpc":"2.0","id":"gw-3","method":"tools/call","params":{"name":"echo","arguments":{"text":"raw three"}}}`)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the raw call's error", func() bool { return strings.Contains(r.got(), "needs you to sign in") })
	if strings.Contains(r.got(), tok) {
		t.Error("the raw error shows the token")
	}
}

// A server that answers go-sdk's fallback initialize 400 (2026-07-28
// only): the sign-in its server/discover asked for is still what the
// start error says, and errors.As finds it.
func TestStartHTTPOAuthAfterFallback(t *testing.T) {
	fake, _, c, e := oauthFixture(t)
	fake.RefuseInitialize(true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := StartHTTP(ctx, HTTPSpec{Name: "remote", URL: e.URL, OAuth: c.Handler(e)}, Hooks{})
	var ns *oauthclient.NeedsSignIn
	if !errors.As(err, &ns) || !strings.Contains(err.Error(), "needs you to sign in") {
		t.Fatalf("StartHTTP: %v, want a NeedsSignIn", err)
	}
	if strings.Count(err.Error(), "needs you to sign in") != 1 {
		t.Errorf("the start error says it more than once: %v", err)
	}
}

// A raw post (a task's tools/call) refused for want of a scope waits
// while AskAuth asks, as the SDK's calls do; the sign-in it runs
// retries the post, and AuthOK hears that the new token worked.
func TestRawPostAsksForScope(t *testing.T) {
	fake, _, c, e := oauthFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.SignIn(ctx, e, oauthtest.Browser); err != nil {
		t.Fatal(err)
	}
	var asked, oks atomic.Int32
	ask := func(ctx context.Context, err error) bool {
		var ns *oauthclient.NeedsSignIn
		if !errors.As(err, &ns) || !ns.StepUp {
			t.Errorf("asked with %v, want a step-up", err)
			return false
		}
		asked.Add(1)
		_, err = c.SignIn(ctx, e, oauthtest.Browser)
		return err == nil
	}
	r := &tapRouter{}
	s, err := StartHTTP(ctx, HTTPSpec{Name: "remote", URL: e.URL, OAuth: c.Handler(e), Router: r,
		AskAuth: ask, AuthOK: func() { oks.Add(1) }}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Attach(r)
	fake.RequireScope("admin")
	if err := s.WriteLine([]byte(`{"jsonrpc":"2.0","id":"gw-1","method":"tools/call","params":{"name":"echo","arguments":{"text":"raw scoped"}}}`)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the raw call's answer after the step-up", func() bool { return strings.Contains(r.got(), "raw scoped") })
	if asked.Load() != 1 || oks.Load() != 1 {
		t.Errorf("asked %d times, AuthOK %d times; want 1 and 1", asked.Load(), oks.Load())
	}
	if strings.Contains(r.got(), "needs you to sign in") {
		t.Errorf("the raw call failed: %s", r.got())
	}
}
