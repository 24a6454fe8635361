package google_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// memStore is a Store in memory (the real keyring is tested in cli).
type memStore struct {
	mu  sync.Mutex
	m   map[string]string
	err error // when set, every call fails with it (an unavailable keyring)
}

func newMemStore() *memStore { return &memStore{m: map[string]string{}} }

func (s *memStore) Get(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return "", s.err
	}
	v, ok := s.m[name]
	if !ok {
		return "", google.ErrNotFound
	}
	return v, nil
}

func (s *memStore) Set(name, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.m[name] = value
	return nil
}

func (s *memStore) Delete(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if _, ok := s.m[name]; !ok {
		return google.ErrNotFound
	}
	delete(s.m, name)
	return nil
}

func (s *memStore) snapshot() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.m {
		out[k] = v
	}
	return out
}

// browser is a stand-in browser: it follows the sign-in URL through the
// fake's consent page to the loopback redirect, and keeps the page shown.
type browser struct {
	pages chan string
}

func newBrowser() *browser { return &browser{pages: make(chan string, 10)} }

func (b *browser) open(u string) error {
	go func() {
		resp, err := http.Get(u)
		if err != nil {
			b.pages <- "error: " + err.Error()
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		b.pages <- string(body)
	}()
	return nil
}

func (b *browser) page(t *testing.T) string {
	t.Helper()
	select {
	case p := <-b.pages:
		return p
	case <-time.After(time.Minute):
		t.Fatal("the browser never finished")
		return ""
	}
}

// env is a fake Google, a keyring in memory with the fake's client
// imported, and Accounts on a temp accounts file.
type env struct {
	fake    *googletest.Server
	store   *memStore
	path    string
	browser *browser
	acc     *google.Accounts
	logs    *testkit.Buffer // every Accounts' log, at debug level
}

func newEnv(t *testing.T) *env {
	t.Helper()
	fake := googletest.New()
	t.Cleanup(fake.Close)
	c, err := google.ParseClientFile(fake.ClientFile())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{fake: fake, store: newMemStore(), path: filepath.Join(t.TempDir(), google.AccountsFile), browser: newBrowser(), logs: &testkit.Buffer{}}
	if err := google.SetClient(e.store, c); err != nil {
		t.Fatal(err)
	}
	e.acc = e.accounts()
	return e
}

// accounts is a new Accounts on the env's file and keyring (as another
// process would open them).
func (e *env) accounts() *google.Accounts {
	log := slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return google.New(google.Options{Store: e.store, Path: e.path, OpenBrowser: e.browser.open, Logger: log})
}

// noSecrets fails the test if a token the fake issued or the client
// secret is in the accounts file, the logs, or texts (errors, pages,
// messages the test saw).
func (e *env) noSecrets(t *testing.T, texts ...string) {
	t.Helper()
	file, _ := os.ReadFile(e.path)
	places := map[string]string{"the accounts file": string(file), "the log": e.logs.String()}
	for i, s := range texts {
		places[fmt.Sprintf("text %d", i)] = s
	}
	secrets := append(e.fake.Issued(), e.fake.ClientSecret())
	if len(secrets) < 2 {
		t.Error("no token issued to look for")
	}
	for where, text := range places {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("a secret (%.8s…) is in %s", s, where)
			}
		}
	}
}

func (e *env) add(t *testing.T, services ...string) *google.Added {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	added, err := e.acc.Add(ctx, google.AddOptions{Services: services, Out: &out})
	if err != nil {
		t.Fatalf("add: %v", err)
	}
	e.noSecrets(t, e.browser.page(t), out.String(), strings.Join(added.Messages(), "\n"))
	return added
}

func asSignInNeeded(t *testing.T, err error) *google.SignInNeededError {
	t.Helper()
	var sn *google.SignInNeededError
	if !errors.As(err, &sn) {
		t.Fatalf("want a *SignInNeededError, got %T %v", err, err)
	}
	return sn
}
