//go:build !windows

package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/oauthclient"
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
	secrets := newMemOAuth()
	var mu sync.Mutex
	visits := 0
	browsed := make(chan error, 10)
	h := startCore(t, servers("remote", fmt.Sprintf(`{"url": %q}`, as.MCPURL())), func(o *Options) {
		o.OAuthStore = secrets
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
		if !strings.HasPrefix(k, "token/") {
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

// A call refused for want of a scope (403 insufficient_scope) waits while
// the inbox asks; the person's yes signs in again, with the scope, and the
// same call goes through, with no restart, and the count of questions in
// a row starts anew. A no fails the call. At most maxAsks questions in a
// row: then the call fails at once, the status says why, and a restart
// lets mcptray ask again.
func TestSignInStepUpDuringCall(t *testing.T) {
	as := oauthtest.New()
	t.Cleanup(as.Close)
	browsed := make(chan error, 10)
	h := startCore(t, servers("remote", fmt.Sprintf(`{"url": %q, "x-mcptray": {"approve": "off"}}`, as.MCPURL())), func(o *Options) {
		o.OAuthStore = newMemOAuth()
		o.OpenURL = func(u string) error { go func() { browsed <- oauthtest.Browser(u) }(); return nil }
	})
	h.wait("needs-sign-in", stateIs("remote", control.StateNeedsSignIn))
	if err := h.core.Answer(waitSignInRequest(t, h).ID, inbox.Answer{Action: inbox.ActionAccept, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := <-browsed; err != nil {
		t.Fatal(err)
	}
	h.wait("ready", stateIs("remote", control.StateReady))
	restarts := h.server("remote").Restarts

	as.RequireScope("admin")
	c := openRPC(t, h, "", "")
	reply := asyncCall(c, "remote__echo", map[string]any{"text": "more"})
	req := waitSignInRequest(t, h)
	if req.SignIn == nil || !req.SignIn.StepUp || !strings.Contains(req.Message, "needs more access") {
		t.Errorf("request: %+v", req)
	}
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := <-browsed; err != nil {
		t.Fatal(err)
	}
	if r := waitReply(t, reply); !strings.Contains(r, `"text":"more"`) || strings.Contains(r, `"isError":true`) {
		t.Errorf("the call after the step-up: %s", r)
	}
	if s := h.server("remote"); s.State != control.StateReady || s.Restarts != restarts {
		t.Errorf("the step-up restarted the server: %+v", s)
	}
	list, _ := h.core.AuthList()
	if len(list) != 1 || !slices.Contains(list[0].Scopes, "admin") {
		t.Errorf("scopes after the step-up: %+v", list)
	}

	// A no fails the call.
	as.RequireScope("root")
	reply = asyncCall(c, "remote__echo", map[string]any{"text": "again"})
	if err := h.core.Answer(waitSignInRequest(t, h).ID, inbox.Answer{Action: inbox.ActionDecline, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if r := waitReply(t, reply); strings.Contains(r, `"text":"again"`) || !strings.Contains(r, "sign in") {
		t.Errorf("the call after a no: %s", r)
	}

	// Two more questions in a row (the step-up that worked does not
	// count: it was followed by a success), and then no more: the call
	// fails at once, and the status and the log say why.
	for _, text := range []string{"third", "fourth"} {
		reply = asyncCall(c, "remote__echo", map[string]any{"text": text})
		if err := h.core.Answer(waitSignInRequest(t, h).ID, inbox.Answer{Action: inbox.ActionDecline, By: "test"}); err != nil {
			t.Fatal(err)
		}
		waitReply(t, reply)
	}
	if r := waitReply(t, asyncCall(c, "remote__echo", map[string]any{"text": "fifth"})); strings.Contains(r, `"text":"fifth"`) {
		t.Errorf("the fifth call: %s", r)
	}
	if n := len(h.core.Inbox()); n != 0 {
		t.Errorf("%d requests after the third question in a row, want none", n)
	}
	const stopped = "remote keeps asking for more access (insufficient_scope after 3 sign-ins); mcptray stopped asking"
	h.waitLog("remote", stopped)
	if s := h.server("remote"); s.State != control.StateReady || !strings.Contains(s.Error, stopped) {
		t.Errorf("status after the limit: %+v", s)
	}

	// The person's restart: mcptray asks again.
	if err := h.core.Restart("remote"); err != nil {
		t.Fatal(err)
	}
	h.wait("ready after the restart", func(st control.Status) bool {
		s, _ := find(st, "remote")
		return s.State == control.StateReady && s.Restarts > restarts
	})
	c = openRPC(t, h, "", "")
	reply = asyncCall(c, "remote__echo", map[string]any{"text": "sixth"})
	if err := h.core.Answer(waitSignInRequest(t, h).ID, inbox.Answer{Action: inbox.ActionDecline, By: "test"}); err != nil {
		t.Fatal(err)
	}
	waitReply(t, reply)
}

// A server whose step-up never succeeds (403 insufficient_scope to every
// request, as conformance auth/scope-retry-limit): each start that needs
// a sign-in asks, but 3 sign-ins in a row across starts and no more;
// then the server is in state error, saying why, with no request in the
// inbox, until the person acts (here `auth login`, which counts as the
// first of 3 again).
func TestSignInScopeNeverEnough(t *testing.T) {
	as := oauthtest.New()
	t.Cleanup(as.Close)
	as.NeverEnoughScope(true)
	browsed := make(chan error, 10)
	h := startCore(t, servers("remote", fmt.Sprintf(`{"url": %q, "x-mcptray": {"approve": "off"}}`, as.MCPURL())), func(o *Options) {
		o.OAuthStore = newMemOAuth()
		o.OpenURL = func(u string) error { go func() { browsed <- oauthtest.Browser(u) }(); return nil }
	})
	for i := range 3 {
		h.wait("needs-sign-in", stateIs("remote", control.StateNeedsSignIn))
		req := waitSignInRequest(t, h)
		if step := req.SignIn != nil && req.SignIn.StepUp; step != (i > 0) {
			t.Errorf("request %d: step-up %v", i+1, step)
		}
		if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, By: "test"}); err != nil {
			t.Fatal(err)
		}
		if err := <-browsed; err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, "the sign-in", func() bool { return as.Count("/authorize", "") == i+1 })
	}
	const stopped = "remote keeps asking for more access (insufficient_scope after 3 sign-ins); mcptray stopped asking"
	h.wait("error after 3 sign-ins", func(st control.Status) bool {
		s, _ := find(st, "remote")
		return s.State == control.StateError && strings.Contains(s.Error, stopped)
	})
	h.waitLog("remote", stopped)
	if n := len(h.core.Inbox()); n != 0 {
		t.Errorf("%d requests after 3 sign-ins, want none", n)
	}
	if n := as.Count("/authorize", ""); n != 3 {
		t.Errorf("%d visits to /authorize, want 3", n)
	}

	// The person signs in themselves: that is the first of 3 again.
	if _, err := h.core.SignIn(t.Context(), "remote", func(u string) error { go func() { browsed <- oauthtest.Browser(u) }(); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := <-browsed; err != nil {
		t.Fatal(err)
	}
	h.wait("needs-sign-in after auth login", stateIs("remote", control.StateNeedsSignIn))
	if req := waitSignInRequest(t, h); req.SignIn == nil || !req.SignIn.StepUp {
		t.Errorf("request after auth login: %+v", req)
	}
}

// No browser opens (no desktop, a failing $BROWSER): after the yes, the
// inbox shows the sign-in's address to copy; visiting it finishes the
// sign-in, and the request goes.
func TestSignInWithoutBrowser(t *testing.T) {
	as := oauthtest.New()
	t.Cleanup(as.Close)
	h := startCore(t, servers("remote", fmt.Sprintf(`{"url": %q}`, as.MCPURL())), func(o *Options) {
		o.OAuthStore = newMemOAuth()
		o.OpenURL = func(string) error { return errors.New("no browser here") }
	})
	h.wait("needs-sign-in", stateIs("remote", control.StateNeedsSignIn))
	if err := h.core.Answer(waitSignInRequest(t, h).ID, inbox.Answer{Action: inbox.ActionAccept, By: "test"}); err != nil {
		t.Fatal(err)
	}
	var req inbox.Request
	testkit.WaitFor(t, "the address in the inbox", func() bool {
		for _, r := range h.core.Inbox() {
			if r.Kind == inbox.KindSignIn && r.Mode == "url" {
				req = r
				return true
			}
		}
		return false
	})
	if !strings.HasPrefix(req.URL, as.Issuer()+"/authorize?") || !strings.Contains(req.Message, "could not open a browser") {
		t.Errorf("request: %+v", req)
	}
	if err := oauthtest.Browser(req.URL); err != nil {
		t.Fatal(err)
	}
	h.wait("ready", stateIs("remote", control.StateReady))
	testkit.WaitFor(t, "the request to go", func() bool { return len(h.core.Inbox()) == 0 })
}

// memOAuth is an oauthclient.Store in memory, for the tests that are not
// about the keyring (app/oauthkeys has those).
type memOAuth struct {
	mu sync.Mutex // guards m
	m  map[string]string
}

func newMemOAuth() *memOAuth { return &memOAuth{m: map[string]string{}} }

func (s *memOAuth) Get(key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return "", oauthclient.ErrNotFound
	}
	return v, nil
}

func (s *memOAuth) Set(key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = value
	return nil
}

func (s *memOAuth) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}
