//go:build linux

package ui

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

// reportDozing makes the app (the test child) print "dozing=true" or
// "dozing=false" on SIGUSR1: whether Fyne's loop is asleep in a doze.
func reportDozing() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for range ch {
			sleeping := false
			if z := loopDozer.Load(); z != nil {
				z.mu.Lock()
				sleeping = z.sleeping
				z.mu.Unlock()
			}
			fmt.Printf("dozing=%v\n", sleeping)
		}
	}()
}

// dozing asks the app whether Fyne's loop dozes now.
func (a *realApp) dozing() bool {
	a.t.Helper()
	before := strings.Count(a.out.String(), "dozing=")
	if err := a.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		a.t.Fatal(err)
	}
	var out string
	testkit.WaitForWithin(a.t, 10*time.Second, "the app to say whether it dozes", func() bool {
		out = a.out.String()
		return strings.Count(out, "dozing=") > before
	})
	last := out[strings.LastIndex(out, "dozing="):]
	return strings.HasPrefix(last, "dozing=true")
}

// waitDozing waits up to 30 s for the app's loop to doze; if it does not,
// the test fails naming the windows shown and with the app's goroutines in
// its output.
func (a *realApp) waitDozing(when string) {
	a.t.Helper()
	if !testkit.Eventually(30*time.Second, a.dozing) {
		shown, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", ".").Output()
		var names []string
		for _, id := range strings.Fields(string(shown)) {
			name, _ := exec.Command("xdotool", "getwindowname", id).Output()
			names = append(names, strings.TrimSpace(string(name)))
		}
		a.cmd.Process.Signal(syscall.SIGQUIT) // its goroutines' stacks go to its output
		a.t.Fatalf("the loop did not doze %s within 30s (visible windows: %q)", when, names)
	}
}

// TestDozesWhileHidden: the tray app keeps Fyne's loop asleep (doze.go)
// instead of letting it poll and redraw 60 times a second — also while
// the window and the popup are open, which are processes of their own
// (children.go); whatever needs the loop wakes it at once. The app's doze
// lasts an hour here (runChild), so every step below would hang on a
// wake-up that does not happen: the tray's Open, an inbox request, its
// popup's answer, the tray's Quit.
func TestDozesWhileHidden(t *testing.T) {
	needSession(t)
	startTrayHost(t)
	conn := sessionBus(t)
	a := startApp(t, map[string]any{"ssh": fakeServer("asker")})
	waitRegistered(t, a, conn)
	waitMenu(t, a, conn, "ssh ready", func(items []menuItem) bool { return hasItem(items, "ssh — ready") })
	a.waitDozing("with no window shown")

	clickTrayItem(t, a, conn, "Open mcptray…")
	win := findWindow(t, a, "mcptray")
	a.waitDozing("while the window (another process) is open")
	closeWindow(t, win)
	windowGone(t, a, "mcptray")
	a.waitDozing("once the window is closed")

	// A request for the person while the loop dozes: its popup opens (a
	// process of its own) and is answered there.
	call := callTool(t, a, "ssh__login", map[string]any{"user": "root"})
	popup := findWindow(t, a, "ssh")
	a.waitDozing("while the popup is open")
	xdo(t, "windowfocus", "--sync", popup)
	xdo(t, "key", "--window", popup, "Escape") // cancels the request
	windowGone(t, a, "ssh")
	call.wait(t)
	a.waitDozing("again once the popup is gone")

	clickTrayItem(t, a, conn, "Quit")
	a.waitExit(30 * time.Second)
}
