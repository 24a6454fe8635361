//go:build linux

package ui

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkit"
)

// TestRealSIGTERMWhileStarting: a SIGTERM that comes while the app is
// still starting — the core is up, the Fyne loop (and Fyne's own signal
// handler) maybe not yet — ends the app as cleanly as Quit. (It used to
// stop the core and leave the window's loop running.)
func TestRealSIGTERMWhileStarting(t *testing.T) {
	needSession(t)
	a := startApp(t, map[string]any{"e": fakeServer("echo")})
	testkit.WaitFor(t, "the core's control socket", func() bool {
		a.alive()
		return len(a.status().Servers) > 0
	})
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a.waitExit(30 * time.Second)
}

// TestRealQuitWhileUpdating: SIGINT with the window shown (no tray: Fyne's
// loop is awake, so Fyne's own signal handler can end it at once) while
// the core stops its servers, each stop a status update for the window,
// and four goroutines of the app queue for the main goroutine without
// pause (childBusyEnv) — nothing may be sent to Fyne's queue as its loop ends
// and closes it (the loop gate, mainthread.go; the race detector once saw
// a status update do it, fyne-io/fyne#5748). Three rounds, a new app each.
func TestRealQuitWhileUpdating(t *testing.T) {
	needSession(t)
	servers := map[string]any{}
	for i := range 6 {
		servers[fmt.Sprintf("s%d", i)] = fakeServer("echo")
	}
	for round := range 3 {
		t.Run(fmt.Sprintf("round-%d", round+1), func(t *testing.T) {
			// No session bus is no keyring: a first start cannot be told
			// from a reset of mcptray's records and would ask before
			// anything runs (README, "Nothing new runs without a yes").
			// This test is about quitting: its entries are trusted.
			cfg := map[string]any{"mcpServers": servers, "x-mcptray": map[string]any{"trustConfigEdits": true}}
			a := startAppConfig(t, cfg, "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus",
				childBusyEnv+"=1", "GOMAXPROCS=4") // four Ps: the floods really run beside the loop
			findWindow(t, a, "mcptray")
			testkit.WaitFor(t, "every server ready", func() bool {
				a.alive()
				n := 0
				for _, s := range a.status().Servers {
					if s.State == control.StateReady {
						n++
					}
				}
				return n == len(servers)
			})
			if err := a.cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			a.waitExit(30 * time.Second)
		})
	}
}
