package calendar

import (
	"context"
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
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// memKeyring is a google.Store in memory (the real one is the OS
// keyring, app/keyring).
type memKeyring struct {
	mu sync.Mutex
	m  map[string]string
}

func (k *memKeyring) Get(name string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[name]
	if !ok {
		return "", google.ErrNotFound
	}
	return v, nil
}

func (k *memKeyring) Set(name, value string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[name] = value
	return nil
}

func (k *memKeyring) Delete(name string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, name)
	return nil
}

// visit is a browser: it follows the sign-in address to the fake's
// consent page (which consents at once) and back to the loopback.
func visit(u string) error {
	go func() {
		if resp, err := http.Get(u); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	return nil
}

// TestRealAccountsSignInByElicitation: on the real google.Accounts
// (OAuth against the fake), a call works; when the refresh token is
// refused (invalid_grant), the next call asks to sign in again through a
// URL elicitation, and goes on once the browser came back. No token or
// the client secret is in a result or the log.
func TestRealAccountsSignInByElicitation(t *testing.T) {
	fake := googletest.New()
	defer fake.Close()
	t.Setenv(google.APIURLEnv, fake.URL)
	keyring := &memKeyring{m: map[string]string{}}
	client, err := google.ParseClientFile(fake.ClientFile())
	must(t, err)
	must(t, google.SetClient(keyring, client))
	dir := t.TempDir()
	logs := &testkit.Buffer{}
	accounts := func() *google.Accounts {
		return google.New(google.Options{Store: keyring, Path: filepath.Join(dir, google.AccountsFile), OpenBrowser: visit})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	added, err := accounts().Add(ctx, google.AddOptions{Services: []string{google.ServiceCalendar}})
	must(t, err)
	email := added.Account.Email
	fake.FailRefresh(email, googletest.ExpiredOrRevoked)

	// A fresh process: no access token in RAM, so the refresh is refused.
	srv, err := NewFromConfig(Config{Accounts: accounts(), DataDir: dir, Version: "test",
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	must(t, err)
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(ctx, st, nil)
	must(t, err)
	defer ss.Close()
	var asked []string
	var mu sync.Mutex
	cl := sdk.NewClient(&sdk.Implementation{Name: "mcptray", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params.Mode+": "+req.Params.Message)
			mu.Unlock()
			visit(req.Params.URL)
			return &sdk.ElicitResult{Action: "accept"}, nil
		},
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{URL: &sdk.URLElicitationCapabilities{}}},
	})
	cs, err := cl.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	must(t, err)
	defer cs.Close()
	// The poller never asks: it logs and waits for a tool call to.
	srv.newPoller().once(ctx)
	if len(asked) != 0 || !strings.Contains(logs.String(), "needs to sign in again") {
		t.Errorf("the poller asked %q; its log: %s", asked, logs.String())
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_calendars"})
	must(t, err)
	if res.IsError || !strings.Contains(textOf(res), email) {
		t.Fatalf("list_calendars after signing in again: %s", textOf(res))
	}
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "url: Sign in to Google again for "+email) {
		t.Errorf("asked %q", asked)
	}
	file, _ := os.ReadFile(filepath.Join(dir, google.AccountsFile))
	cursors, _ := os.ReadFile(filepath.Join(dir, CursorsFile))
	for _, secret := range append(fake.Issued(), fake.ClientSecret()) {
		for where, s := range map[string]string{"the result": textOf(res), "the log": logs.String(), "the accounts file": string(file), "the cursors": string(cursors)} {
			if strings.Contains(s, secret) {
				t.Errorf("a secret (%.8s…) is in %s", secret, where)
			}
		}
	}
}
