//go:build linux

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testdaemon"
	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// googleEnv runs `mcptray auth google …` as a subprocess against a fake
// Google, with the real keyring and BROWSER set to a script that follows
// the sign-in URL with curl (through the fake's consent, to the loopback
// redirect), recording its argv and its parent's (mcptray's) argv.
type googleEnv struct {
	t      *testing.T
	fake   *googletest.Server
	dir    string // the browser script's records
	data   string
	env    []string
	output bytes.Buffer // everything the commands printed
}

func newGoogleEnv(t *testing.T) *googleEnv {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	for _, entry := range []string{google.ClientEntry, "google/ada@example.com", "google/bob@example.com"} {
		testdaemon.Keyring(t, entry)
	}
	g := &googleEnv{t: t, fake: googletest.New(), dir: t.TempDir(), data: t.TempDir()}
	t.Cleanup(g.fake.Close)
	script := filepath.Join(g.dir, "browser.sh")
	os.WriteFile(script, []byte(`#!/bin/sh
printf '%s\n' "$0" "$@" >>"$REC/browser.argv"
tr '\0' ' ' </proc/$PPID/cmdline >>"$REC/mcptray.argv"
echo >>"$REC/mcptray.argv"
exec curl -sSL -o "$REC/page.html" "$1"
`), 0o755)
	g.env = []string{"MCPTRAY_TEST_AS_MCPTRAY=1", "BROWSER=" + script, "REC=" + g.dir,
		"MCPTRAY_DATA=" + g.data, "MCPTRAY_GOOGLE_API_URL=" + g.fake.URL + "/", "GORACE=atexit_sleep_ms=0"}
	return g
}

// run runs one command line and returns exit code, stdout and stderr.
func (g *googleEnv) run(extraEnv []string, args ...string) (int, string, string) {
	g.t.Helper()
	exe, _ := os.Executable()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(append(os.Environ(), g.env...), extraEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		g.t.Fatal(err)
	}
	g.output.WriteString(out.String() + errb.String())
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

func (g *googleEnv) mustRun(args ...string) string {
	g.t.Helper()
	code, out, errs := g.run(nil, args...)
	if code != 0 {
		g.t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

type authListJSON struct {
	Accounts []struct {
		Email  string    `json:"email"`
		Scopes []string  `json:"scopes"`
		Status string    `json:"status"`
		Reason string    `json:"reason"`
		Added  time.Time `json:"added"`
	} `json:"accounts"`
}

func (g *googleEnv) list() authListJSON {
	g.t.Helper()
	var l authListJSON
	out := g.mustRun("auth", "google", "list", "--json")
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		g.t.Fatalf("list --json: %v\n%s", err, out)
	}
	return l
}

func TestGoogleAuthCLI(t *testing.T) {
	g := newGoogleEnv(t)
	clientFile := filepath.Join(t.TempDir(), "client_secret_desktop.json")
	os.WriteFile(clientFile, g.fake.ClientFile(), 0o600)

	out := g.mustRun("auth", "google", "client", clientFile)
	if !strings.Contains(out, "imported the OAuth client "+g.fake.ClientID()) {
		t.Errorf("client: %s", out)
	}
	if v, err := keyring.Get(google.ClientEntry); err != nil || !strings.Contains(v, g.fake.ClientSecret()) {
		t.Fatalf("the keyring entry %s: %v", google.ClientEntry, err)
	}
	if l := g.list(); len(l.Accounts) != 0 {
		t.Errorf("accounts before add: %+v", l)
	}

	code, out, errs := g.run(nil, "auth", "google", "add")
	if code != 0 || out != "added ada@example.com (calendar, gmail)\n" {
		t.Fatalf("add: %d %q %q", code, out, errs)
	}
	if !strings.Contains(errs, "Your browser shows Google's sign-in page; finish there (waiting 5 minutes at most).") {
		t.Errorf("add's stderr: %s", errs)
	}
	page, _ := os.ReadFile(filepath.Join(g.dir, "page.html"))
	if !strings.Contains(string(page), "You can close this tab.") {
		t.Errorf("the browser's page: %s", page)
	}
	// The argv of the browser and of mcptray were recorded (and are
	// searched for secrets below).
	argv, _ := os.ReadFile(filepath.Join(g.dir, "mcptray.argv"))
	bargv, _ := os.ReadFile(filepath.Join(g.dir, "browser.argv"))
	if !strings.Contains(string(argv), " auth google add") || !strings.Contains(string(bargv), g.fake.URL+googletest.AuthPath+"?") {
		t.Errorf("argv not recorded: %q %q", argv, bargv)
	}
	rtAda, err := keyring.Get("google/ada@example.com")
	if err != nil || !strings.HasPrefix(rtAda, "1//") {
		t.Fatalf("the refresh token in the keyring: %q %v", rtAda, err)
	}

	l := g.list()
	if len(l.Accounts) != 1 || l.Accounts[0].Email != "ada@example.com" || l.Accounts[0].Status != "ok" ||
		strings.Join(l.Accounts[0].Scopes, ",") != "calendar,gmail" || l.Accounts[0].Added.IsZero() {
		t.Errorf("list: %+v", l)
	}
	text := g.mustRun("auth", "google", "list")
	if !strings.Contains(text, "EMAIL") || !strings.Contains(text, "ada@example.com  calendar, gmail  ok") {
		t.Errorf("list:\n%s", text)
	}

	// Remove: revoked at the fake, deleted here.
	out = g.mustRun("auth", "google", "remove", "ada@example.com")
	if out != "removed ada@example.com (its sign-in was revoked at Google)\n" || !g.fake.Revoked(rtAda) {
		t.Errorf("remove: %q, revoked %v", out, g.fake.Revoked(rtAda))
	}
	if _, err := keyring.Get("google/ada@example.com"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("the refresh token is still in the keyring: %v", err)
	}
	code, _, errs = g.run(nil, "auth", "google", "remove", "ada@example.com")
	if code != 1 || !strings.Contains(errs, "no Google account ada@example.com") {
		t.Errorf("removing again: %d %q", code, errs)
	}
	if n := len(g.fake.Issued()); n < 3 { // refresh, access and ID token at least
		t.Errorf("only %d tokens issued to search for", n)
	}
	g.searchSecrets()
}

// --no-browser prints the URL; a person (here: curl) opens it.
func TestGoogleAuthNoBrowserAndGranular(t *testing.T) {
	g := newGoogleEnv(t)
	clientFile := filepath.Join(t.TempDir(), "client.json")
	os.WriteFile(clientFile, g.fake.ClientFile(), 0o600)
	g.mustRun("auth", "google", "client", clientFile)
	g.fake.SetConsent(googletest.Consent{Email: "bob@example.com", Scopes: []string{google.ScopeCalendar}})

	exe, _ := os.Executable()
	cmd := exec.Command(exe, "auth", "google", "add", "--no-browser")
	cmd.Env = append(append(os.Environ(), g.env...), "BROWSER=/nonexistent")
	var out syncBuffer
	errs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = &out, errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var url string
	waitFor(t, "the sign-in URL", func() bool {
		for _, line := range strings.Split(errs.String(), "\n") {
			if u := strings.TrimSpace(line); strings.HasPrefix(u, g.fake.URL) {
				url = u
				return true
			}
		}
		return false
	})
	if b, err := exec.Command("curl", "-sSL", url).CombinedOutput(); err != nil || !strings.Contains(string(b), "You can close this tab") {
		t.Errorf("curl: %v %s", err, b)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("add: %v\n%s", err, errs.String())
	}
	g.output.WriteString(out.String() + errs.String())
	if out.String() != "added bob@example.com (calendar)\n" {
		t.Errorf("stdout: %q", out.String())
	}
	want := "mcptray: warning: bob@example.com did not grant gmail access (https://www.googleapis.com/auth/gmail.modify): " +
		"the gmail server's tools and new-mail notifications will not work for this account"
	if !strings.Contains(errs.String(), want) {
		t.Errorf("stderr lacks the missing scope:\n%s", errs.String())
	}

	// invalid_grant: a server using the account finds it must sign in
	// again; list shows it, with the reason.
	g.fake.FailRefresh("bob@example.com", googletest.ExpiredOrRevoked)
	acc := googleAccounts(g.data, nil)
	_, err := acc.Client(context.Background(), "bob@example.com")
	var sn *google.SignInNeededError
	if !errors.As(err, &sn) {
		t.Fatalf("client: %v", err)
	}
	l := g.list()
	if len(l.Accounts) != 1 || l.Accounts[0].Status != "needs-sign-in" || !strings.Contains(l.Accounts[0].Reason, `publish it "In production"`) {
		t.Errorf("list: %+v", l)
	}
	text := g.mustRun("auth", "google", "list")
	if !strings.Contains(text, "bob@example.com needs to sign in again (mcptray auth google add): Google no longer accepts its saved sign-in") {
		t.Errorf("list:\n%s", text)
	}

	// Offline: the revocation fails, the account is deleted all the same.
	g.fake.Close()
	code, outs, errt := g.run(nil, "auth", "google", "remove", "bob@example.com")
	if code != 0 || outs != "removed bob@example.com\n" || !strings.Contains(errt, "its sign-in could not be revoked at Google (could not reach") ||
		!strings.Contains(errt, "but it is deleted here") {
		t.Errorf("remove offline: %d %q %q", code, outs, errt)
	}
	if _, err := keyring.Get("google/bob@example.com"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("the refresh token is still in the keyring: %v", err)
	}
	if l := g.list(); len(l.Accounts) != 0 {
		t.Errorf("still listed: %+v", l)
	}
	g.searchSecrets()
}

func TestGoogleAuthBadInput(t *testing.T) {
	g := newGoogleEnv(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o600)
		return p
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"auth", "google", "client", write("web.json", `{"web":{"client_id":"i","client_secret":"s"}}`)}, 1, `this is a "Web application" OAuth client`},
		{[]string{"auth", "google", "client", write("sa.json", `{"type":"service_account","private_key":"k"}`)}, 1, "this is a service account key"},
		{[]string{"auth", "google", "client", write("x.json", `{"a":1}`)}, 1, `this JSON file is not an OAuth client (it has no "installed" part)`},
		{[]string{"auth", "google", "client", write("x.txt", "hello")}, 1, "this file is not JSON"},
		{[]string{"auth", "google", "client", filepath.Join(dir, "missing.json")}, 1, "reading the client file:"},
		{[]string{"auth", "google", "client"}, 2, "takes 1 argument"},
		{[]string{"auth", "google", "add", "--scopes", "mail"}, 2, `--scopes: unknown Google service "mail": the choices are calendar and gmail`},
		{[]string{"auth", "google", "add"}, 1, "no Google OAuth client is set up: import yours with `mcptray auth google client FILE`"},
		{[]string{"auth", "google", "remove", "zed@example.com"}, 1, "no Google account zed@example.com"},
		{[]string{"auth", "google", "frob"}, 2, `auth google takes client, add, list or remove, got "frob"`},
		{[]string{"auth", "github"}, 2, "auth takes: login|logout|list, or google client|add|list|remove"},
	} {
		code, _, errs := g.run(nil, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args[2:], code, errs, c.code, c.want)
		}
		if strings.Contains(errs, "console.cloud.google.com") != (strings.Contains(c.want, "OAuth client") || strings.Contains(c.want, "not JSON") || strings.Contains(c.want, "service account")) {
			t.Errorf("%v: whether it says where to get a Desktop client: %q", c.args[2:], errs)
		}
	}
}

// Without a session D-Bus (so no keyring), every command that needs the
// keyring says what is missing, and nothing is written in its place.
func TestGoogleAuthNoKeyring(t *testing.T) {
	g := newGoogleEnv(t)
	clientFile := filepath.Join(t.TempDir(), "client.json")
	os.WriteFile(clientFile, g.fake.ClientFile(), 0o600)
	noBus := []string{"DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent"}
	const reason = "no session D-Bus, which the keyring needs"
	for _, args := range [][]string{
		{"auth", "google", "client", clientFile},
		{"auth", "google", "add"},
		{"auth", "google", "remove", "ada@example.com"},
	} {
		code, _, errs := g.run(noBus, args...)
		if code != 1 || !strings.Contains(errs, reason) || strings.Contains(errs, "panic") {
			t.Errorf("%v: exit %d %q", args[2:], code, errs)
		}
	}
	if code, out, _ := g.run(noBus, "auth", "google", "list"); code != 0 || !strings.Contains(out, "no Google accounts") {
		t.Errorf("list needs no keyring: %d %q", code, out)
	}
	entries, _ := os.ReadDir(g.data)
	for _, e := range entries {
		t.Errorf("the data dir holds %s", e.Name())
	}
	g.searchSecrets()
}

// searchSecrets looks for every token the fake issued and the client
// secret, by value, in the data dir, the commands' output, the argv of the
// browser and of mcptray, and the browser's page.
func (g *googleEnv) searchSecrets() {
	g.t.Helper()
	secrets := append(g.fake.Issued(), g.fake.ClientSecret())
	places := map[string]string{"the commands' output": g.output.String()}
	for _, root := range []string{g.data, g.dir} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				places[p] = string(b)
			}
			return nil
		})
	}
	for where, text := range places {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				g.t.Errorf("a secret (%.8s…) is in %s", s, where)
			}
		}
	}
}
