package ui

import (
	"syscall"
	"testing"
	"time"
)

// TestRealSIGTERMWhileStarting: a SIGTERM that comes while the app is
// still starting — the core is up, the Fyne loop (and Fyne's own signal
// handler) maybe not yet — ends the app as cleanly as Quit. (It used to
// stop the core and leave the window's loop running.)
func TestRealSIGTERMWhileStarting(t *testing.T) {
	needSession(t)
	a := startApp(t, map[string]any{"e": fakeServer("echo")})
	waitFor(t, 30*time.Second, "the core's control socket", func() bool {
		a.alive()
		return len(a.status().Servers) > 0
	})
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a.waitExit(30 * time.Second)
}
