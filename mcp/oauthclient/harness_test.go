package oauthclient_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/oauthclient"
	"github.com/mcptray/mcptray/mcp/oauthclient/oauthtest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// memStore is a Store in RAM that keeps every value it was given, so a
// test can look for a token elsewhere.
type memStore struct {
	mu   sync.Mutex
	m    map[string]string // guarded by mu
	all  []string          // guarded by mu: every value ever set
	gets int               // guarded by mu
}

func newMemStore() *memStore { return &memStore{m: map[string]string{}} }

func (s *memStore) Get(k string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets++
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
	s.all = append(s.all, v)
	return nil
}

func (s *memStore) Delete(k string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
	return nil
}

func (s *memStore) getCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

func (s *memStore) keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.m {
		out = append(out, k)
	}
	return out
}

// secrets are every access and refresh token and client secret the store
// ever held.
func (s *memStore) secrets(t *testing.T) []string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, v := range s.all {
		for _, f := range []string{`"access_token":"`, `"refresh_token":"`, `"client_secret":"`} {
			if _, rest, ok := strings.Cut(v, f); ok {
				if val, _, ok := strings.Cut(rest, `"`); ok && val != "" {
					out = append(out, val)
				}
			}
		}
	}
	return out
}

type env struct {
	fake  *oauthtest.Server
	store *memStore
	log   *testkit.Buffer
	c     *oauthclient.Client
	entry oauthclient.Entry
}

func newEnv(t *testing.T) *env {
	t.Helper()
	fake := oauthtest.New()
	t.Cleanup(fake.Close)
	e := &env{fake: fake, store: newMemStore(), log: &testkit.Buffer{}}
	e.c = e.newClient()
	e.entry = oauthclient.Entry{Server: "remote", URL: fake.MCPURL()}
	return e
}

func (e *env) newClient() *oauthclient.Client {
	return oauthclient.New(e.store, oauthclient.Options{
		Logger:        slog.New(slog.NewTextHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		SignInTimeout: time.Minute,
	})
}

// connect opens an MCP session to entry's server through c's handler.
func (e *env) connect(t *testing.T, c *oauthclient.Client, entry oauthclient.Entry) (*sdk.ClientSession, error) {
	t.Helper()
	cl := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: entry.URL, OAuthHandler: c.Handler(entry), DisableStandaloneSSE: true}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// works connects to each entry's server through c and calls its echo tool,
// failing the test with the server's name and when (e.g. "after a
// restart"; "" for none) on the first that does not answer.
func (e *env) works(t *testing.T, c *oauthclient.Client, when string, entries ...oauthclient.Entry) {
	t.Helper()
	for _, en := range entries {
		cs, err := e.connect(t, c, en)
		if err == nil {
			err = echo(t, cs)
		}
		if err != nil {
			t.Fatalf("%s%s: %v", en.Server, when, err)
		}
	}
}

func (e *env) signIn(t *testing.T, c *oauthclient.Client, entry oauthclient.Entry) oauthclient.Info {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := c.SignIn(ctx, entry, oauthtest.Browser)
	if err != nil {
		t.Fatalf("SignIn: %v", err)
	}
	return info
}

func echo(t *testing.T, cs *sdk.ClientSession) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != "hi" {
		return fmt.Errorf("echo answered %+v", res)
	}
	return nil
}

func needsSignIn(t *testing.T, err error) *oauthclient.NeedsSignIn {
	t.Helper()
	var ns *oauthclient.NeedsSignIn
	if !errors.As(err, &ns) {
		t.Fatalf("want a NeedsSignIn, got %v", err)
	}
	return ns
}

// noSecrets fails when a token or client secret the store held shows up
// in texts or in the client's log.
func (e *env) noSecrets(t *testing.T, texts ...string) {
	t.Helper()
	all := append(texts, e.log.String())
	secrets := e.store.secrets(t)
	if len(secrets) == 0 {
		t.Fatal("the store held no token: nothing to look for")
	}
	for _, s := range secrets {
		for _, txt := range all {
			if strings.Contains(txt, s) {
				t.Errorf("a token or secret shows in %q", txt)
			}
		}
	}
}
