//go:build !windows

package app

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/oauthclient/oauthtest"
)

// A remote server that answers 401 waits in needs-sign-in with one inbox
// request and no browser; a no leaves it waiting (no retry, no backoff);
// a yes opens the browser once, signs in and restarts it; signing out
// puts it back.
func TestSignInFlow(t *testing.T) {
	auth := &fakeAuth{token: ""}
	remote := guardedFake(t, auth)
	var mu sync.Mutex
	var opened []string
	h := startCore(t, servers("remote", fmt.Sprintf(`{"url": %q}`, remote)), func(o *Options) {
		o.RemoteAuth = auth
		o.OpenURL = func(u string) error { mu.Lock(); opened = append(opened, u); mu.Unlock(); return nil }
	})
	st := h.wait("needs-sign-in", stateIs("remote", control.StateNeedsSignIn))
	s, _ := find(st, "remote")
	if s.SignIn == nil || s.SignIn.IssuerHost != "issuer.test" || !strings.Contains(s.Error, "mcptray auth login remote") {
		t.Fatalf("status: %s", dump(st))
	}
	req := waitSignInRequest(t, h)
	if req.Message != "Sign in to remote at issuer.test" || !req.Confirm || req.SignIn == nil || req.SignIn.IssuerHost != "issuer.test" || req.URL != "" {
		t.Errorf("request: %+v", req)
	}
	// One request per server: asking again while it is open adds none.
	if err := h.core.AskSignIn("remote"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.core.Inbox()); n != 1 {
		t.Errorf("%d requests after a second ask, want 1", n)
	}
	restarts := h.server("remote").Restarts

	// No: the server keeps waiting, asks nothing more, is not retried.
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionDecline, By: "test"}); err != nil {
		t.Fatal(err)
	}
	h.waitLog("remote", "sign-in not started (declined)")
	if s := h.server("remote"); s.State != control.StateNeedsSignIn || s.Restarts != restarts || len(h.core.Inbox()) != 0 {
		t.Errorf("after a no: %+v, %d requests", s, len(h.core.Inbox()))
	}
	mu.Lock()
	if len(opened) != 0 {
		t.Errorf("a browser opened without a yes: %v", opened)
	}
	mu.Unlock()

	// The tray's "Sign in…" asks again; yes signs in and restarts it.
	if err := h.core.AskSignIn("remote"); err != nil {
		t.Fatal(err)
	}
	req = waitSignInRequest(t, h)
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, By: "test"}); err != nil {
		t.Fatal(err)
	}
	h.wait("ready after the sign-in", stateIs("remote", control.StateReady))
	mu.Lock()
	if len(opened) != 1 || !strings.HasPrefix(opened[0], "https://issuer.test/authorize") {
		t.Errorf("opened %v, want one visit to the issuer", opened)
	}
	mu.Unlock()
	if s := h.server("remote"); s.SignIn != nil || s.Tools == 0 {
		t.Errorf("ready: %+v", s)
	}
	list, err := h.core.AuthList()
	if err != nil || len(list) != 1 || list[0].Server != "remote" || list[0].State != control.AuthSignedIn || list[0].Issuer != "https://issuer.test" {
		t.Errorf("AuthList: %+v %v", list, err)
	}
	if strings.Contains(dump(h.core.Status()), auth.current()) || strings.Contains(h.logText("remote"), auth.current()) {
		t.Error("the status or the log holds the token")
	}

	// Sign out: the server waits again.
	if err := h.core.SignOut(context.Background(), "remote"); err != nil {
		t.Fatal(err)
	}
	h.wait("needs-sign-in after sign-out", stateIs("remote", control.StateNeedsSignIn))
	if err := h.core.CheckRemote("nope"); err == nil {
		t.Error("CheckRemote of an unknown server")
	}
}

// A stdio server cannot sign in, and a sign-in of an unknown server says
// so.
func TestSignInRefusals(t *testing.T) {
	h := startCore(t, servers("local", fake(t, "echo")), func(o *Options) { o.RemoteAuth = &fakeAuth{} })
	h.wait("ready", stateIs("local", control.StateReady))
	if _, err := h.core.SignIn(context.Background(), "local", nil); err == nil || !strings.Contains(err.Error(), "not a remote (http) server") {
		t.Errorf("stdio: %v", err)
	}
	if _, err := h.core.SignIn(context.Background(), "nope", nil); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown: %v", err)
	}
	if err := h.core.AskSignIn("local"); err == nil {
		t.Error("AskSignIn of a ready stdio server")
	}
}

func waitSignInRequest(t *testing.T, h *harness) inbox.Request {
	t.Helper()
	var req inbox.Request
	testkit.WaitFor(t, "the sign-in request", func() bool {
		for _, r := range h.core.Inbox() {
			if r.Kind == inbox.KindSignIn {
				req = r
				return true
			}
		}
		return false
	})
	return req
}

// fakeAuth stands in for mcp/oauthclient in the core's tests: its token
// is what guardedFake lets through, its sign-in a visit to issuer.test.
type fakeAuth struct {
	mu    sync.Mutex
	token string // "" when signed out
	n     int
}

func (a *fakeAuth) current() string { a.mu.Lock(); defer a.mu.Unlock(); return a.token }

func (a *fakeAuth) Wire(spec config.Server, hs *downstream.HTTPSpec) {
	tok := a.current()
	if tok == "" {
		return
	}
	h := map[string]string{}
	for k, v := range hs.Headers {
		h[k] = v
	}
	h["Authorization"] = "Bearer " + tok
	hs.Headers = h
}

func (a *fakeAuth) NeedsSignIn(err error) (control.SignInStatus, bool) {
	if strings.Contains(err.Error(), "Unauthorized") || strings.Contains(err.Error(), "401") {
		return control.SignInStatus{IssuerHost: "issuer.test"}, true
	}
	return control.SignInStatus{}, false
}

func (a *fakeAuth) SignIn(ctx context.Context, spec config.Server, open func(string) error) (control.AuthInfo, error) {
	if err := open("https://issuer.test/authorize?state=s"); err != nil {
		return control.AuthInfo{}, err
	}
	a.mu.Lock()
	a.n++
	a.token = fmt.Sprintf("tok-%d-%s", a.n, strings.Repeat("z", 12))
	a.mu.Unlock()
	return a.Info(spec)
}

func (a *fakeAuth) Complete(config.Server, string) error { return nil }

func (a *fakeAuth) Logout(ctx context.Context, spec config.Server) error {
	a.mu.Lock()
	a.token = ""
	a.mu.Unlock()
	return nil
}

func (a *fakeAuth) Info(spec config.Server) (control.AuthInfo, error) {
	if a.current() == "" {
		return control.AuthInfo{Server: spec.Name, State: control.AuthSignedOut}, nil
	}
	return control.AuthInfo{Server: spec.Name, Issuer: "https://issuer.test", Scopes: []string{"read"}, State: control.AuthSignedIn}, nil
}

// guardedFake runs the echo fake over streamable HTTP (a real subprocess)
// behind a real HTTP front that answers 401 unless the request carries
// auth's token.
func guardedFake(t *testing.T, auth *fakeAuth) string {
	t.Helper()
	cmd := exec.Command(testBin(t))
	cmd.Env = append(os.Environ(), "MCPTRAY_FAKE_SERVER=echo", "MCPTRAY_FAKE_HTTP=127.0.0.1:0", "GORACE=atexit_sleep_ms=0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	target, err := url.Parse(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth == nil {
			proxy.ServeHTTP(w, r)
			return
		}
		tok := auth.current()
		if tok == "" || r.Header.Get("Authorization") != "Bearer "+tok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// Without a keyring, a remote server that needs no sign-in runs as
// before (the OAuth client finds nothing stored); one that needs a
// sign-in waits for it.
func TestRemoteWithoutKeyring(t *testing.T) {
	plain := guardedFake(t, nil)
	as := oauthtest.New()
	t.Cleanup(as.Close)
	h := startCore(t, servers("plain", fmt.Sprintf(`{"url": %q}`, plain), "remote", fmt.Sprintf(`{"url": %q}`, as.MCPURL())),
		func(o *Options) { o.OAuthStore = noKeyring{} })
	h.wait("plain ready, remote waiting", stateIs("plain", control.StateReady, "remote", control.StateNeedsSignIn))
}

// noKeyring is a SecretStore with no keyring behind it.
type noKeyring struct{}

func (noKeyring) Get(string) (string, error) { return "", errNoKeyring }
func (noKeyring) Set(string, string) error   { return errNoKeyring }
func (noKeyring) Delete(string) error        { return errNoKeyring }

var errNoKeyring = fmt.Errorf("no session D-Bus: %w", keyring.ErrUnavailable)
