//go:build linux

package ui

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testkeyring"
	"github.com/mcptray/mcptray/internal/testkit"
)

// TestRealAddServer, in the desktop session: the Servers tab's Add
// server… form, filled with the keyboard as a person would (a click on
// the button, then typing and Tab), is screenshot with its secret masked
// (window-add-server.png, the README's), and Enter writes the entry
// through the real core: mcp.json gets ${keyring:github-…}, never the
// value, the keyring gets the value, and the instance runs the entry.
func TestRealAddServer(t *testing.T) {
	needSession(t)
	const ref = "github-GITHUB_PERSONAL_ACCESS_TOKEN"
	testkeyring.Own(t, "keyring/"+ref)
	testkeyring.Own(t, "keyring-index")
	token := "ghp_" + strings.Repeat("x7", 18)
	conn := sessionBus(t)
	startTrayHost(t)
	a := startApp(t, map[string]any{"notes": fakeServer("echo")})
	waitRegistered(t, a, conn)
	waitMenu(t, a, conn, "notes ready", func(items []menuItem) bool { return hasItem(items, "notes — ready") })
	clickTrayItem(t, a, conn, "Open mcptray…")
	win := findWindow(t, a, "mcptray")
	screenshot(t, a, win, "window-servers-before-add.png")

	// "Add server…" is the first thing under the tabs, at the left.
	before := capture(win)
	xdo(t, "windowfocus", "--sync", win)
	xdo(t, "mousemove", "--window", win, "60", "67", "click", "1")
	testkit.WaitForWithin(t, 20*time.Second, "the form to open", func() bool { a.alive(); return !equalBytes(capture(win), before) })
	key := func(keys ...string) { xdo(t, append([]string{"key", "--window", win, "--delay", "50"}, keys...)...) }
	typ := func(text string) { xdo(t, "type", "--window", win, "--delay", "20", text) }
	typ("github") // the name has the focus
	key("Tab", "Tab", "Tab")
	typ("github-mcp-server")
	key("Tab")
	typ("stdio")
	key("Tab", "Tab", "space") // past the working directory: Add variable
	typ("GITHUB_PERSONAL_ACCESS_TOKEN")
	key("Tab", "Tab", "space", "shift+Tab") // Secret, then back to the value, now masked
	typ(token)
	screenshot(t, a, win, "window-add-server.png")
	key("Return")

	testkit.WaitFor(t, "the entry in mcp.json", func() bool {
		b, _ := os.ReadFile(a.config)
		return strings.Contains(string(b), `"GITHUB_PERSONAL_ACCESS_TOKEN": "${keyring:`+ref+`}"`)
	})
	b, _ := os.ReadFile(a.config)
	for _, want := range []string{`"github": {`, `"command": "github-mcp-server"`, `"stdio"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("mcp.json lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), token) {
		t.Error("the token is in mcp.json")
	}
	if got, err := keyring.Get("keyring/" + ref); err != nil || got != token {
		t.Errorf("keyring/%s: %v (the value differs: %t)", ref, err, got != token)
	}
	// The instance took the entry (github-mcp-server is not installed
	// here: it fails to start, which is the instance trying).
	testkit.WaitFor(t, "github in the status", func() bool { return a.server("github").Name == "github" })
	screenshot(t, a, win, "window-servers-after-add.png")
	if strings.Contains(a.out.String(), token) {
		t.Error("the token is in the app's output")
	}
}

func equalBytes(a, b []byte) bool { return string(a) == string(b) }
