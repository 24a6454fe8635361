//go:build linux

package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testkeyring"
	"github.com/mcptray/mcptray/internal/testkit"
)

// TestRealAssistants, in the desktop session: with a home holding Claude
// Desktop's config (two servers, no mcptray), Cursor's (mcptray in it) and
// a broken one of Zed's, the Assistants tab shows a row for each
// (assistants.png, the README's); Add on Claude Desktop's row shows the
// diff (assistants-diff.png) and Write writes it, after which the row
// says to restart Claude Desktop (assistants-written.png); Import on it
// (assistants-import.png) moves github's token into the keyring and the
// core starts the imported servers, github with the token. The clicks are
// at the places the markup golden (testdata/assistants.xml,
// assistants-diff.xml, assistants-import.xml) gives: no window manager moves the window.
func TestRealAssistants(t *testing.T) {
	needSession(t)
	// The import moves github's token into the keyring (the session's).
	secret := "github-GITHUB_PERSONAL_ACCESS_TOKEN"
	testkeyring.Own(t, "keyring/"+secret)
	testkeyring.Own(t, "keyring-index")
	// A short home, as the paths show in the screenshot.
	home, err := os.MkdirTemp("", "me-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	// An installed mcptray, which the tab writes (assistants.InstalledExecutable:
	// this test binary is a build under the temp folder).
	bin := filepath.Join(home, ".local", "bin")
	mcptray := filepath.Join(bin, "mcptray")
	writeFileAll(t, mcptray, "#!/bin/sh\nexit 0\n", 0o755)
	// Its servers are this test binary as a fake server, which the core
	// starts once they are imported; github has a token.
	exe, _ := os.Executable()
	token := fmt.Sprintf("ghp_test%d", time.Now().UnixNano())
	desktop := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	writeFileAll(t, desktop, fmt.Sprintf(`{
  "mcpServers": {
    "github": {"command": %q, "env": {"MCPTRAY_FAKE_SERVER": "echo", "GITHUB_PERSONAL_ACCESS_TOKEN": %q}},
    "filesystem": {"command": %q, "args": ["--root", "~/notes"], "env": {"MCPTRAY_FAKE_SERVER": "echo"}}
  }
}
`, exe, token, exe), 0o600)
	writeFileAll(t, filepath.Join(home, ".cursor", "mcp.json"), `{
  "mcpServers": {
    "mcptray": {"command": "`+mcptray+`", "args": ["connect"]}
  }
}
`, 0o600)
	writeFileAll(t, filepath.Join(home, ".config", "zed", "settings.json"), "{\n  \"theme\": \"One Dark\"\n  \"vim_mode\": true\n}\n", 0o600)

	// The pointer goes back where it was: windows of later tests open
	// under it (a pointer moving over a window being destroyed can crash
	// Fyne 2.7.1's GLFW driver: processMouseMoved on a nil window).
	if o, err := exec.Command("xdotool", "getmouselocation", "--shell").Output(); err == nil {
		var x, y string
		for _, l := range strings.Fields(string(o)) {
			if v, ok := strings.CutPrefix(l, "X="); ok {
				x = v
			}
			if v, ok := strings.CutPrefix(l, "Y="); ok {
				y = v
			}
		}
		if x != "" && y != "" {
			t.Cleanup(func() { exec.Command("xdotool", "mousemove", x, y).Run() })
		}
	}
	startTrayHost(t)
	conn := sessionBus(t)
	a := startApp(t, map[string]any{"notes": fakeServer("echo")},
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	waitRegistered(t, a, conn)
	// Once notes is ready the menu keeps its items (a click on an item
	// of a menu being rebuilt can miss).
	waitMenu(t, a, conn, "notes ready in the tray menu", func(items []menuItem) bool {
		return hasItem(items, "notes — ready") && hasItem(items, "Open mcptray…")
	})
	clickTrayItem(t, a, conn, "Open mcptray…")
	win := findWindow(t, a, "mcptray")
	screenshot(t, a, win, "assistants-servers.png")
	xdo(t, "windowfocus", "--sync", win)
	before := capture(win)
	tab := 1 + indexOf(tabOrder, tabAssistants)
	xdo(t, "key", "--window", win, "ctrl+"+strconv.Itoa(tab))
	screenshotChange(t, a, win, "assistants.png", before)

	// Add on Claude Desktop's row (the first): its Add button's centre.
	xdo(t, "mousemove", "--window", win, "668", "124", "click", "1")
	// The dialog's Write button: a white label on the primary colour,
	// where the tab has nothing.
	testkit.WaitFor(t, "the dialog with its Write button", func() bool {
		a.alive()
		return brightest(win, 452, 474, 86, 36) > 200
	})
	screenshot(t, a, win, "assistants-diff.png")
	orig, _ := os.ReadFile(desktop)
	if strings.Contains(string(orig), "mcptray") {
		t.Fatal("Claude Desktop's config has mcptray before Write")
	}
	// Write, in the dialog's bottom row.
	xdo(t, "mousemove", "--window", win, "494", "492", "click", "1")
	testkit.WaitFor(t, "mcptray in Claude Desktop's config", func() bool {
		a.alive()
		b, _ := os.ReadFile(desktop)
		return strings.Contains(string(b), `"command": "`+mcptray+`"`)
	})
	// The row shows it once written: Remove on, Add off (while the write
	// is under way, all three are off). An enabled button's label is
	// near white, a disabled one's grey.
	testkit.WaitFor(t, "Claude Desktop's row to show mcptray present", func() bool {
		a.alive()
		return brightest(win, 636, 107, 67, 36) < 160 && brightest(win, 707, 107, 95, 36) > 200
	})
	screenshot(t, a, win, "assistants-written.png")
	b, _ := os.ReadFile(desktop)
	if !strings.Contains(string(b), `"github"`) || !strings.Contains(string(b), token) {
		t.Errorf("the servers of Claude Desktop's config did not stay:\n%s", b)
	}
	if bak, err := os.ReadFile(desktop + ".mcptray-backup"); err != nil || string(bak) != string(orig) {
		t.Errorf("the backup is not the file as it was (%v)", err)
	}

	// Import on the same row, with what the dialog ticks at first: the
	// token moved into the keyring, Claude Desktop's config left alone.
	xdo(t, "mousemove", "--window", win, "850", "124", "click", "1")
	testkit.WaitFor(t, "the import dialog with its Import button", func() bool {
		a.alive()
		return brightest(win, 451, 484, 89, 36) > 200
	})
	screenshot(t, a, win, "assistants-import.png")
	xdo(t, "mousemove", "--window", win, "495", "502", "click", "1")
	st := waitServer(t, a, "github", func(s control.ServerStatus) bool { return s.State == control.StateReady })
	if got := envOf(st.PID, "GITHUB_PERSONAL_ACCESS_TOKEN"); got != token {
		t.Errorf("github runs with GITHUB_PERSONAL_ACCESS_TOKEN %q, want the token from the keyring", got)
	}
	if got, err := keyring.Get("keyring/" + secret); err != nil || got != token {
		t.Errorf("keyring/%s: %v (holds the token: %t)", secret, err, got == token)
	}
	cfg, _ := os.ReadFile(a.config)
	if strings.Contains(string(cfg), token) || !strings.Contains(string(cfg), `"${keyring:`+secret+`}"`) || !strings.Contains(string(cfg), `"filesystem"`) {
		t.Errorf("mcp.json after the import:\n%s", cfg)
	}
	if b, _ := os.ReadFile(desktop); !strings.Contains(string(b), token) {
		t.Error("Claude Desktop's config changed without the replace check")
	}
	screenshot(t, a, win, "assistants-imported.png")
}

// waitServer waits until server name's status satisfies cond.
func waitServer(t *testing.T, a *realApp, name string, cond func(control.ServerStatus) bool) control.ServerStatus {
	t.Helper()
	var st control.ServerStatus
	testkit.WaitForWithin(t, 60*time.Second, name+"'s state", func() bool {
		a.alive()
		st = a.server(name)
		return st.Name == name && cond(st)
	})
	return st
}

// envOf is variable key of process pid's environment.
func envOf(pid int, key string) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// brightest is the brightest grey level (0–255) in the w×h rectangle at
// x, y of X window win; 0 when it cannot be read.
func brightest(win string, x, y, w, h int) int {
	out, _ := exec.Command("import", "-window", win, "-crop", fmt.Sprintf("%dx%d+%d+%d", w, h, x, y), "-depth", "8", "gray:-").Output()
	m := 0
	for _, b := range out {
		m = max(m, int(b))
	}
	return m
}

func writeFileAll(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
