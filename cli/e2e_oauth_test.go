//go:build linux

package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testdaemon"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/oauthclient/oauthtest"
)

// testBrowserEnv makes this test binary a browser (TestMain): it follows
// the sign-in address it is given to the loopback redirect, and counts
// its visits in the file the variable names.
const testBrowserEnv = "MCPTRAY_TEST_BROWSER"

// testBrowser is the browser's main.
func testBrowser(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "browser: one URL")
		return 2
	}
	if f, err := os.OpenFile(os.Getenv(testBrowserEnv), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		fmt.Fprintln(f, "visit")
		f.Close()
	}
	if err := oauthtest.Browser(args[0]); err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		return 1
	}
	return 0
}

// A remote server that signs in, end to end with a real daemon, the real
// OAuth client and the fake authorization server: its 401 puts it in
// needs-sign-in (status --json names the issuer's host) with one inbox
// request; `inbox answer ID --yes` opens $BROWSER, which follows the
// redirect; the server comes up and its tool answers; a restart reuses the
// token (no new visit); `auth logout` revokes and puts it back to wait;
// `auth login --no-browser` prints the address and waits for it; `auth
// list` shows the sign-in. No token is in a file under HOME or the data
// dir, nor in the logs or the status.
func TestRemoteSignInEndToEnd(t *testing.T) {
	testdaemon.Keyring(t, "oauth/server/remote") // the daemon's tokens go to the desktop's keyring
	as := oauthtest.New()
	t.Cleanup(as.Close)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	visits := filepath.Join(dir, "visits")
	browser := filepath.Join(dir, "browser.sh")
	exe, _ := os.Executable()
	script := fmt.Sprintf("#!/bin/sh\nMCPTRAY_TEST_AS_MCPTRAY= %s=%q exec %q \"$@\"\n", testBrowserEnv, visits, exe)
	if err := os.WriteFile(browser, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	in := &instance{&testdaemon.Instance{T: t, Env: []string{"BROWSER=" + browser, "HOME=" + home}}}
	in.StartConfig(map[string]any{"mcpServers": map[string]any{"remote": map[string]any{"url": as.MCPURL(), "x-mcptray": map[string]any{"approve": "off"}}}})
	t.Cleanup(func() { in.Run("auth", "logout", "remote") })

	u, _ := url.Parse(as.URL())
	in.WaitFor("needs-sign-in", states("remote", control.StateNeedsSignIn))
	code, out, errs := in.Run("status", "--json")
	var st control.Status
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("status --json: %d %s %s", code, out, errs)
	}
	if s := st.Servers[0]; s.SignIn == nil || s.SignIn.IssuerHost != u.Host {
		t.Errorf("status: %+v", s)
	}
	if n := visitCount(visits); n != 0 {
		t.Errorf("%d browser visits before anyone said yes", n)
	}

	// The assistant's calls are answered, and start nothing: the meta
	// tools of the dynamic mode, and mcptray's own.
	dyn := openGatewayMode(t, in.Data, "dynamic")
	// The gateway hears of the state from the status broadcaster, a
	// moment after status --json does.
	testkit.WaitFor(t, "the gateway to know remote waits", func() bool {
		res, errText := dyn.call("tools/call", map[string]any{"name": "mcptray__call_tool", "arguments": map[string]any{"server": "remote", "tool": "echo"}})
		if errText != "" {
			return false
		}
		text, _ := callResult(t, res)
		return strings.Contains(text, "needs you to sign in")
	})
	for _, args := range []map[string]any{
		{"server": "remote", "tool": "echo", "arguments": map[string]any{"text": "hi"}},
		{"server": "remote", "tool": "sign_in"},
	} {
		res, errText := dyn.call("tools/call", map[string]any{"name": "mcptray__call_tool", "arguments": args})
		if errText != "" {
			t.Errorf("call_tool while it waits: %s", errText)
		} else if text, isErr := callResult(t, res); !isErr || !strings.Contains(text, "remote needs you to sign in; mcptray has asked you in its tray.") || strings.Contains(text, "authorize") {
			t.Errorf("call_tool while it waits: %s %t", text, isErr)
		}
	}
	for _, tool := range []string{"mcptray__list_tools", "mcptray__describe_tool"} {
		dyn.call("tools/call", map[string]any{"name": tool, "arguments": map[string]any{"server": "remote", "tool": "echo"}})
	}
	if n := visitCount(visits); n != 0 || as.Count("/authorize", "") != 0 {
		t.Errorf("an assistant's calls started a sign-in: %d visits, %d /authorize", n, as.Count("/authorize", ""))
	}

	ib, raw := in.waitRequest("remote")
	if len(ib.Requests) != 1 || ib.Requests[0].Message != "Sign in to remote at "+u.Host || ib.Requests[0].URL != "" {
		t.Fatalf("inbox: %s", raw)
	}
	if code, _, errs := in.Run("inbox", "answer", ib.Requests[0].ID, "--yes"); code != 0 {
		t.Fatalf("inbox answer --yes: %d %s", code, errs)
	}
	in.WaitFor("ready after the sign-in", states("remote", "ready"))
	if n := visitCount(visits); n != 1 {
		t.Errorf("%d browser visits, want 1", n)
	}
	g := openGateway(t, in.Data)
	text, isErr := callResult(t, g.tool("remote__echo", map[string]any{"text": "hi"}))
	if isErr || !strings.Contains(text, "hi") {
		t.Errorf("tools/call after the sign-in: %q %t", text, isErr)
	}

	// The sign-in is in the keyring, under the server's entry and its
	// issuer.
	if v, err := keyring.Get("oauth/server/remote"); err != nil || !strings.Contains(v, as.Issuer()) {
		t.Errorf("the keyring's oauth/server/remote: %q %v", v, err)
	}

	// A restart reuses the token.
	if code, _, errs := in.Run("restart", "remote"); code != 0 {
		t.Fatalf("restart: %s", errs)
	}
	in.WaitFor("ready after the restart", func(st statusJSON) bool {
		return len(st.Servers) == 1 && st.Servers[0].State == "ready" && st.Servers[0].Restarts >= 2
	})
	if n := visitCount(visits); n != 1 || as.Count("/authorize", "") != 1 {
		t.Errorf("after a restart: %d visits, %d /authorize; want 1 and 1", n, as.Count("/authorize", ""))
	}

	code, out, errs = in.Run("auth", "list", "--json")
	var l control.AuthList
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || len(l.Servers) != 1 || l.Servers[0].State != control.AuthSignedIn || l.Servers[0].Issuer != as.Issuer() {
		t.Errorf("auth list --json: %d %s %s", code, out, errs)
	}

	// Sign out: the tokens are revoked and the server waits again.
	if code, out, errs := in.Run("auth", "logout", "remote"); code != 0 || !strings.Contains(out, "signed out of remote") {
		t.Fatalf("auth logout: %d %s %s", code, out, errs)
	}
	tokens := as.Revoked()
	if len(tokens) == 0 {
		t.Fatal("auth logout revoked nothing")
	}
	in.WaitFor("needs-sign-in after logout", states("remote", control.StateNeedsSignIn))

	// auth login --no-browser prints the address and waits: here, as
	// from an SSH session, the browser is elsewhere, and the person pastes
	// the address it ended on (a wrong one first).
	login := exec.Command(exe, "auth", "login", "remote", "--no-browser", "--config", in.Config, "--data", in.Data)
	login.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1", "HOME="+home)
	stdout, _ := login.StdoutPipe()
	paste, _ := login.StdinPipe()
	loginErr := new(syncBuffer)
	login.Stderr = loginErr
	if err := login.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, as.Issuer()+"/authorize?") {
		t.Fatalf("auth login --no-browser printed %q (%v); stderr %s", line, err, loginErr)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	redirect := resp.Header.Get("Location")
	if !strings.HasPrefix(redirect, "http://127.0.0.1:") {
		t.Fatalf("authorize answered %s, Location %q", resp.Status, redirect)
	}
	fmt.Fprintln(paste, "http://127.0.0.1:1/callback?state=someone-else&code=x")
	testkit.WaitFor(t, "the wrong address refused", func() bool { return strings.Contains(loginErr.String(), "that address did not complete the sign-in") })
	fmt.Fprintln(paste, redirect)
	if err := login.Wait(); err != nil {
		t.Fatalf("auth login: %v; stderr %s", err, loginErr)
	}
	in.WaitFor("ready after auth login", states("remote", "ready"))
	if n := visitCount(visits); n != 1 {
		t.Errorf("auth login --no-browser opened the browser (%d visits)", n)
	}

	// No token anywhere but the keyring.
	where := map[string]string{"the daemon's stderr": in.Stderr.String()}
	for _, root := range []string{home, in.Data, filepath.Dir(in.Config)} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				where[p] = string(b)
			}
			return nil
		})
	}
	for _, args := range [][]string{{"status", "--json"}, {"auth", "list", "--json"}, {"inbox", "--json"}, {"logs", "remote"}} {
		_, out, errs := in.Run(args...)
		where[strings.Join(args, " ")] = out + errs
	}
	for _, tok := range tokens {
		for name, text := range where {
			if strings.Contains(text, tok) {
				t.Errorf("a token is in %s", name)
			}
		}
	}
}

// visitCount is how many times the test browser was started.
func visitCount(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "visit")
}

// openGatewayMode opens an assistant's session in tools mode (live,
// stable or dynamic).
func openGatewayMode(t *testing.T, data, tools string) *gatewayConn {
	t.Helper()
	cl, err := control.Dial(data)
	if err != nil {
		t.Fatal(err)
	}
	rw, err := cl.OpenMCP(context.Background(), "", tools)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rw.Close() })
	g := &gatewayConn{t: t, rw: rw, r: bufio.NewReader(rw)}
	g.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	rw.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	return g
}

// A server's process cannot start a sign-in, sign out, or ask for one:
// the control API's sign-in routes are the person's only.
func TestOnlyThePersonSignsIn(t *testing.T) {
	as := oauthtest.New()
	t.Cleanup(as.Close)
	evil := fakeEntry(t, "commander")
	evil["x-mcptray"] = map[string]any{"approve": "off"}
	in := startDaemon(t, map[string]any{"evil": evil, "remote": map[string]any{"url": as.MCPURL()}})
	in.WaitFor("ready and waiting", states("evil", "ready", "remote", control.StateNeedsSignIn))
	sh := &serverShell{t: t, in: in, g: openGateway(t, in.Data), tool: "evil__run"}
	sh.refused(false, "auth", "login", "remote", "--no-browser")
	sh.refused(true, "auth", "login", "remote")
	sh.refused(false, "auth", "logout", "remote")
	sh.postRefused(false, "POST", "/v1/auth/remote/ask", "")
	sh.postRefused(true, "POST", "/v1/auth/remote/login?browser=client", "")
	if n := as.Count("/authorize", "") + as.Count("/register", ""); n != 0 {
		t.Errorf("%d requests to the authorization server after a server's tries", n)
	}
	if st, _ := state(in.Status(), "remote"); st != control.StateNeedsSignIn {
		t.Errorf("remote is %s", st)
	}
}

// Bad input to auth login|logout|list gets a clear error: usage errors
// exit 2, an unknown or local server and a missing instance exit 1.
func TestRemoteAuthBadInput(t *testing.T) {
	dir := t.TempDir()
	cfg, data := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "data")
	if code, _, errs := cli(t, "auth", "list", "--config", cfg, "--data", data); code != 1 || !strings.Contains(errs, "not running") {
		t.Errorf("auth list with no instance: %d %q", code, errs)
	}
	in := startDaemon(t, map[string]any{"local": fakeEntry(t, "echo")})
	in.WaitFor("ready", states("local", "ready"))
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"auth", "login"}, 2, "auth login takes 1 argument"},
		{[]string{"auth", "login", "a", "b"}, 2, "auth login takes 1 argument"},
		{[]string{"auth", "logout"}, 2, "auth logout takes 1 argument"},
		{[]string{"auth", "list", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"auth", "login", "nope"}, 1, `"nope"`},
		{[]string{"auth", "logout", "nope"}, 1, `"nope"`},
		{[]string{"auth", "login", "local"}, 1, "local: not a remote (http) server"},
		{[]string{"auth", "logout", "local"}, 1, "local: not a remote (http) server"},
	} {
		if code, _, errs := in.Run(c.args...); code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	if code, out, errs := in.Run("auth", "list"); code != 0 || !strings.Contains(out, "no remote (http) servers") {
		t.Errorf("auth list with no remote server: %d %q %q", code, out, errs)
	}
}
