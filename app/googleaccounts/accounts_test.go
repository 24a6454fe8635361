package googleaccounts

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testkeyring"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// TestGoogleAPI drives the Google tab's API on the real keyring against
// the fake Google, the browser a script that follows the consent page
// with curl: no client at first; a bad client file refused with package
// google's words; the client imported; an account added, signed in again
// (its address preselected, its services kept), and removed (revoked at
// Google); one removed while Google is unreachable, said so and gone all
// the same. No secret reaches the log.
func TestGoogleAPI(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	for _, e := range []string{google.ClientEntry, "google/ada@example.com", "google/bob@example.com"} {
		testkeyring.Own(t, e)
	}
	fake := googletest.New()
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	script := filepath.Join(dir, "browser.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexec curl -sSL -o \"$REC/page.html\" \"$1\"\n"), 0o755)
	t.Setenv("BROWSER", script)
	t.Setenv("REC", dir)
	var logBuf testkit.Buffer
	c := New(filepath.Join(dir, "data"), slog.New(slog.NewTextHandler(&logBuf, nil)))

	if id, err := c.Client(); err != nil || id != "" {
		t.Fatalf("Client before import: %q %v", id, err)
	}
	if list, err := c.List(); err != nil || len(list) != 0 {
		t.Fatalf("List before add: %v %v", list, err)
	}
	if _, err := c.Add(context.Background(), nil, "", nil); !errors.Is(err, google.ErrNoClient) {
		t.Errorf("add with no client: %v", err)
	}

	web := filepath.Join(dir, "client_secret_web.json")
	os.WriteFile(web, []byte(`{"web": {"client_id": "x", "client_secret": "y"}}`), 0o600)
	_, err := c.ImportClient(web)
	if err == nil || !strings.HasPrefix(err.Error(), `client_secret_web.json: this is a "Web application" OAuth client`) {
		t.Errorf("a web client: %v", err)
	}
	if _, err := c.ImportClient(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "reading the client file") {
		t.Errorf("a missing file: %v", err)
	}
	good := filepath.Join(dir, "client_secret_desktop.json")
	os.WriteFile(good, fake.ClientFile(), 0o600)
	id, err := c.ImportClient(good)
	if err != nil || id != fake.ClientID() {
		t.Fatalf("import: %q %v", id, err)
	}
	if got, err := c.Client(); err != nil || got != fake.ClientID() {
		t.Errorf("Client: %q %v", got, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var opened string
	added, err := c.Add(ctx, nil, "", func(u string, berr error) {
		if berr != nil {
			t.Errorf("the browser script: %v", berr)
		}
		opened = u
	})
	if err != nil {
		t.Fatalf("add: %v", err)
	}
	if added.Account.Email != "ada@example.com" || strings.Join(added.Account.Scopes, ",") != "calendar,gmail" ||
		added.Account.Status != StatusOK || len(added.Warnings) != 0 || !strings.HasPrefix(opened, fake.URL+googletest.AuthPath+"?") {
		t.Errorf("added %+v, opened %q", added, opened)
	}
	// The browser (curl) writes the page once it has it: poll.
	var page []byte
	if !testkit.Eventually(time.Minute, func() bool {
		page, _ = os.ReadFile(filepath.Join(dir, "page.html"))
		return strings.Contains(string(page), "You can close this tab.")
	}) {
		t.Errorf("the browser's page: %s", page)
	}
	rtAda, err := keyring.Get("google/ada@example.com")
	if err != nil {
		t.Fatal(err)
	}

	// bob, Calendar only, of calendar and gmail asked: the warning says
	// what Gmail's absence disables.
	fake.SetConsent(googletest.Consent{Email: "bob@example.com", Scopes: []string{google.ScopeCalendar}})
	added, err = c.Add(ctx, []string{"calendar", "gmail"}, "", nil)
	if err != nil || added.Account.Email != "bob@example.com" || len(added.Warnings) != 1 || !strings.Contains(added.Warnings[0], "gmail") {
		t.Fatalf("add bob: %+v %v", added, err)
	}
	// Sign in again: the address is the login hint, the services bob's.
	fake.SetConsent(googletest.Consent{})
	var again string
	added, err = c.Add(ctx, nil, "bob@example.com", func(u string, _ error) { again = u })
	if err != nil || added.Account.Email != "bob@example.com" || strings.Join(added.Account.Scopes, ",") != "calendar" ||
		!strings.Contains(again, "login_hint=bob%40example.com") || strings.Contains(again, "gmail") {
		t.Errorf("sign bob in again: %+v %v %q", added, err, again)
	}
	list, err := c.List()
	if err != nil || len(list) != 2 || list[0].Email != "ada@example.com" || list[1].Email != "bob@example.com" || list[0].Added.IsZero() {
		t.Fatalf("accounts: %+v %v", list, err)
	}

	res, err := c.Remove(ctx, "ada@example.com")
	if err != nil || res.Email != "ada@example.com" || res.RevokeError != "" || !fake.Revoked(rtAda) {
		t.Errorf("remove ada: %+v %v (revoked %v)", res, err, fake.Revoked(rtAda))
	}
	rtBob, _ := keyring.Get("google/bob@example.com")
	fake.Close() // Google unreachable
	res, err = c.Remove(ctx, "bob@example.com")
	if err != nil || res.Email != "bob@example.com" || !strings.Contains(res.RevokeError, "could not reach") {
		t.Errorf("remove bob offline: %+v %v", res, err)
	}
	if _, err := keyring.Get("google/bob@example.com"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("bob's keyring entry after remove: %v", err)
	}
	if list, _ := c.List(); len(list) != 0 {
		t.Errorf("accounts after removing both: %+v", list)
	}
	if _, err := c.Remove(ctx, "zed@example.com"); err == nil || !strings.Contains(err.Error(), "no Google account zed@example.com") {
		t.Errorf("remove an unknown account: %v", err)
	}

	log := logBuf.String()
	if !strings.Contains(log, "signed a Google account in") {
		t.Errorf("the log lacks the sign-in:\n%s", log)
	}
	for what, secret := range map[string]string{"client secret": fake.ClientSecret(), "ada's token": rtAda, "bob's token": rtBob} {
		if secret == "" || strings.Contains(log, secret) {
			t.Errorf("the %s is in the log (or empty)", what)
		}
	}
}
