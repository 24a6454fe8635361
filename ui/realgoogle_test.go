//go:build linux

package ui

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/googlekeys"
	"github.com/mcptray/mcptray/internal/testkeyring"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// TestRealGoogle, in the desktop session: turning gcal on from the tray
// with no Google account opens the window (on the Google tab) and leaves
// gcal off in mcp.json; with accounts signed in against the fake Google
// (one of them needing to sign in again), the Google tab is screenshot
// (window-google-accounts.png, the README's) and gcal, waiting for an
// account, is turned on.
func TestRealGoogle(t *testing.T) {
	needSession(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is missing (run scripts/deps.sh)")
	}
	for _, e := range []string{google.ClientEntry, "google/ada@example.com", "google/bob@example.com"} {
		testkeyring.Own(t, e)
	}
	fake := googletest.New()
	t.Cleanup(fake.Close)
	panel := startTrayHost(t)
	_ = panel
	conn := sessionBus(t)
	gcal := fakeServer("echo")
	gcal["disabled"] = true
	a := startApp(t, map[string]any{"notes": fakeServer("echo"), "gcal": gcal})
	waitRegistered(t, a, conn)
	waitMenu(t, a, conn, "gcal off in the tray menu", func(items []menuItem) bool {
		_, ok := findItem(items, "gcal — disabled")
		return ok
	})

	clickTrayItem(t, a, conn, "gcal — disabled")
	win := findWindow(t, a, "mcptray")
	screenshot(t, a, win, "window-google-needed.png")
	var cfg struct {
		MCPServers map[string]struct {
			Disabled bool `json:"disabled"`
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(a.config)
	if err := json.Unmarshal(b, &cfg); err != nil || !cfg.MCPServers["gcal"].Disabled {
		t.Errorf("gcal was turned on with no Google account:\n%s", b)
	}

	// Two accounts, signed in against the fake as `mcptray auth google`
	// does, the browser a script that follows the consent page with curl;
	// bob's sign-in then refused (invalid_grant).
	dir := t.TempDir()
	script := filepath.Join(dir, "browser.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexec curl -sSL -o /dev/null \"$1\"\n"), 0o755)
	t.Setenv("BROWSER", script)
	c, err := google.ParseClientFile(fake.ClientFile())
	if err != nil {
		t.Fatal(err)
	}
	if err := google.SetClient(googlekeys.Store{}, c); err != nil {
		t.Fatal(err)
	}
	accs := googlekeys.Accounts(a.data, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := accs.Add(ctx, google.AddOptions{Out: io.Discard}); err != nil {
		t.Fatal(err)
	}
	fake.SetConsent(googletest.Consent{Email: "bob@example.com", Scopes: []string{google.ScopeCalendar}})
	if _, err := accs.Add(ctx, google.AddOptions{Services: []string{google.ServiceCalendar}, Out: io.Discard}); err != nil {
		t.Fatal(err)
	}
	fake.FailRefresh("bob@example.com", "Token has been expired or revoked.")
	// The next use of bob's sign-in finds it refused (a fresh Accounts:
	// no access token in RAM).
	if hc, err := googlekeys.Accounts(a.data, nil).Client(ctx, "bob@example.com"); err == nil {
		if resp, err := hc.Get(fake.URL + "/calendar/v3/users/me/calendarList"); err == nil {
			resp.Body.Close()
			t.Fatal("bob's refused sign-in still worked")
		}
	}
	if acc, _ := accs.Get("bob@example.com"); acc == nil || acc.Status != google.StatusNeedsSignIn {
		t.Fatalf("bob: %+v", acc)
	}

	// The tab reads them when selected.
	xdo(t, "windowfocus", "--sync", win)
	before := capture(win)
	xdo(t, "key", "--window", win, "ctrl+1")
	screenshotChange(t, a, win, "window-google-servers.png", before)
	before = capture(win)
	xdo(t, "key", "--window", win, "ctrl+5")
	screenshotChange(t, a, win, "window-google-accounts.png", before)
	// gcal waited for an account: there is one now, so it is on.
	testkit.WaitFor(t, "gcal turned on once an account exists", func() bool {
		return a.server("gcal").Enabled
	})
}
