//go:build linux

package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

// TestTrayAppUnderWine runs mcptray.exe — the tray app built for Windows,
// with cgo through mingw-w64, as make build-windows builds it — under
// Wine in the desktop session: its icon shows in Wine's system tray, the
// menu opens on a right click (screenshot: windows-wine-menu.png in the
// artifacts), and a request to quit (taskkill, WM_CLOSE) ends the app with
// exit status 0.
//
// The Wine prefix is this test's own (.cache/wine/ui, made by
// scripts/wine.sh), ended with wineserver -k when the test ends.
// MCPTRAY_WINDOWS_BIN names the folder of make build-windows's
// mcptray.exe: make test-windows sets it; without it the test is skipped
// (the cgo build takes minutes cold). Skipped without wine64 or the
// mingw-w64 compiler, except in CI (CI=true), where scripts/deps.sh
// installs both.
func TestTrayAppUnderWine(t *testing.T) {
	needSession(t)
	needWine(t)
	root, _ := filepath.Abs("..")
	exe := buildWindowsTrayApp(t)

	wine := func(args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(root, "scripts", "wine.sh"), args...)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "MCPTRAY_") { // a developer's MCPTRAY_CONFIG must not reach the app
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "MCPTRAY_WINEPREFIX="+filepath.Join(root, ".cache", "wine", "ui"))
		return cmd
	}
	if out, err := wine("--setup").CombinedOutput(); err != nil {
		t.Fatalf("scripts/wine.sh --setup: %v\n%s", err, out)
	}
	t.Cleanup(func() { wine("--kill").Run() })

	dir := t.TempDir()
	config, data := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "data")
	writeJSON(t, config, map[string]any{
		"mcpServers": map[string]any{
			"notes": map[string]any{"command": "cmd", "args": []string{"/c", "exit"}, "disabled": true},
		},
		"x-mcptray": map[string]any{"listen": "127.0.0.1:0"}, // not the default port other tests may use
	})
	app := wine(exe, "run", "--config", config, "--data", data)
	var out testkit.Buffer
	app.Stdout, app.Stderr = &out, &out
	app.WaitDelay = 5 * time.Second // Wine's processes may hold the output pipe
	t0 := time.Now()
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- app.Wait() }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			wine("--kill").Run()
			app.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("mcptray.exe's output:\n%s", out.String())
		}
	})
	running := func() {
		t.Helper()
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("mcptray.exe exited: %v\n%s", err, out.String())
		default:
		}
	}

	// Fyne's tray is set once its hidden window is there; Wine shows the
	// icon in a window of its own (no XEmbed tray in the session).
	pos := map[string]int{}
	testkit.WaitForWithin(t, 90*time.Second, "the tray icon in Wine's system tray", func() bool {
		running()
		tray := xWindow("Wine System Tray")
		if xWindow("SystrayMonitor") == "" || tray == "" {
			return false
		}
		geo, err := exec.Command("xdotool", "getwindowgeometry", "--shell", tray).Output()
		if err != nil {
			return false // the window went in between
		}
		for line := range strings.Lines(string(geo)) {
			k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
			pos[k], _ = strconv.Atoi(v)
		}
		return true
	})
	t.Logf("tray icon shown %s after the start", time.Since(t0).Round(time.Millisecond))
	icon := []string{strconv.Itoa(pos["X"] + 9), strconv.Itoa(pos["Y"] + 10)} // the first icon, 16 px and a margin

	// A right click on the icon opens the menu (its own window).
	before := visibleWindows()
	xdo(t, "mousemove", icon[0], icon[1], "click", "3")
	testkit.WaitFor(t, "the tray menu to open", func() bool {
		running()
		return visibleWindows() > before
	})
	// (Not screenshot: the menu on a black screen has too few colours for
	// its "drawn" check.)
	shot := filepath.Join(artifactsDir(t), "windows-wine-menu.png")
	if out, err := exec.Command("import", "-window", "root", shot).CombinedOutput(); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	t.Logf("screenshot: %s", shot)
	xdo(t, "key", "Escape")

	// taskkill without /F sends WM_CLOSE to the app's top-level windows, as
	// Windows asks a tray app to quit at logoff: Fyne's hidden tray window
	// takes it as Quit.
	if out, err := wine("taskkill", "/IM", "mcptray.exe").CombinedOutput(); err != nil {
		t.Fatalf("taskkill: %v\n%s", err, out)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("mcptray.exe after taskkill: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mcptray.exe still runs 30 s after taskkill")
	}
	if strings.Contains(out.String(), "Error in Fyne call thread") {
		t.Errorf("Fyne's thread check fired:\n%s", out.String())
	}
}

// needWine skips t without wine64 or x86_64-w64-mingw32-gcc, except in CI,
// where it fails.
func needWine(t *testing.T) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("x86_64-w64-mingw32-gcc"); err != nil {
		missing = "x86_64-w64-mingw32-gcc (apt: gcc-mingw-w64-x86-64)"
	}
	if _, err := exec.LookPath("wine64"); err != nil {
		if out, err := exec.Command("dpkg", "-L", "wine64").Output(); err != nil || !strings.Contains(string(out), "/wine64\n") {
			missing = "wine64 (apt: wine64)"
		}
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("no %s in CI: scripts/deps.sh installs it", missing)
	}
	t.Skipf("no %s: the tray app did not run under Wine", missing)
}

// buildWindowsTrayApp returns $MCPTRAY_WINDOWS_BIN/mcptray.exe, built by
// make build-windows, and skips t without it: the tray app's cgo build for
// Windows takes minutes cold, which make test does not wait for. make
// test-windows (part of CI) builds it and runs this test.
func buildWindowsTrayApp(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MCPTRAY_WINDOWS_BIN")
	if dir == "" {
		t.Skip("no MCPTRAY_WINDOWS_BIN: make test-windows builds the tray app for Windows (cgo) and runs this test")
	}
	return filepath.Join(dir, "mcptray.exe")
}

// xWindow is the X id of a window whose title matches the regular
// expression name, or "".
func xWindow(name string) string {
	return xSearch("--name", name)
}

// xSearch is the X id of the first window xdotool search finds with args,
// or "".
func xSearch(args ...string) string {
	o, _ := exec.Command("xdotool", append([]string{"search"}, args...)...).Output()
	id, _, _ := strings.Cut(strings.TrimSpace(string(o)), "\n")
	return id
}

// visibleWindows counts the mapped windows.
func visibleWindows() int {
	o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "").Output()
	return len(strings.Fields(string(o)))
}
