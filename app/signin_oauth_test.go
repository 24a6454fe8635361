//go:build !windows

package app

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp/oauthclient/oauthtest"
)

// With the real OAuth client (mcp/oauthclient) against the fake
// authorization server: a 401 waits for the person; their yes signs in
// through the browser's loopback redirect; the server comes up; a restart
// reuses the token with no new visit; the tokens are in the keyring only,
// never in a file of the data dir, the status or the log.
func TestSignInOAuth(t *testing.T) {
	as := oauthtest.New()
	t.Cleanup(as.Close)
	secrets := &memSecrets{m: map[string]string{}}
	var mu sync.Mutex
	visits := 0
	browsed := make(chan error, 10)
	h := startCore(t, servers("remote", fmt.Sprintf(`{"url": %q}`, as.MCPURL())), func(o *Options) {
		o.Secrets = secrets
		o.OpenURL = func(u string) error {
			mu.Lock()
			visits++
			mu.Unlock()
			// A browser opener returns once the browser started.
			go func() { browsed <- oauthtest.Browser(u) }()
			return nil
		}
	})
	st := h.wait("needs-sign-in", stateIs("remote", control.StateNeedsSignIn))
	s, _ := find(st, "remote")
	u, _ := url.Parse(as.URL())
	if s.SignIn == nil || s.SignIn.IssuerHost != u.Host {
		t.Fatalf("status: %s", dump(st))
	}
	req := waitSignInRequest(t, h)
	if req.Message != "Sign in to remote at "+u.Host {
		t.Errorf("message %q", req.Message)
	}
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := <-browsed; err != nil {
		t.Fatal(err)
	}
	h.wait("ready after the sign-in", stateIs("remote", control.StateReady))
	if n := as.Count("/authorize", ""); n != 1 {
		t.Errorf("%d visits to /authorize, want 1", n)
	}
	list, err := h.core.AuthList()
	if err != nil || len(list) != 1 || list[0].State != control.AuthSignedIn || list[0].Issuer != as.Issuer() {
		t.Errorf("AuthList: %+v %v", list, err)
	}

	// A restart uses the stored token: no browser, no new sign-in.
	restarts := h.server("remote").Restarts
	if err := h.core.Restart("remote"); err != nil {
		t.Fatal(err)
	}
	h.wait("ready again", func(st control.Status) bool {
		s, _ := find(st, "remote")
		return s.State == control.StateReady && s.Restarts > restarts
	})
	mu.Lock()
	if visits != 1 || as.Count("/authorize", "") != 1 {
		t.Errorf("after a restart: %d browser visits, %d to /authorize; want 1 and 1", visits, as.Count("/authorize", ""))
	}
	mu.Unlock()

	// The tokens: in the keyring (here, its stand-in) and nowhere else.
	var tokens []string
	secrets.mu.Lock()
	for k, v := range secrets.m {
		if !strings.HasPrefix(k, "oauth/") {
			continue
		}
		var rec map[string]any
		if json.Unmarshal([]byte(v), &rec) == nil {
			for _, f := range []string{"access_token", "refresh_token", "AccessToken", "RefreshToken", "accessToken", "refreshToken"} {
				if s, ok := rec[f].(string); ok && len(s) > 8 {
					tokens = append(tokens, s)
				}
			}
		}
	}
	secrets.mu.Unlock()
	if len(tokens) == 0 {
		t.Fatal("no token in the keyring")
	}
	where := map[string]string{"status": dump(h.core.Status()), "log": h.logText("remote")}
	filepath.WalkDir(h.data, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			where[p] = string(b)
		}
		return nil
	})
	for _, tok := range tokens {
		for name, text := range where {
			if strings.Contains(text, tok) {
				t.Errorf("a token is in %s", name)
			}
		}
	}
}
