//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// escapee is a server's descendant that left its process group (setsid),
// known by pid and start time so a later process with the same pid is
// not mistaken for it.
type escapee struct {
	what  string
	pid   int
	start string // /proc/PID/stat starttime
}

// readEscapee reads the pid an escaper fake wrote, and kills that process
// when the test ends if it is still there (a failing test leaves nothing).
func readEscapee(t *testing.T, what, pidfile string) escapee {
	t.Helper()
	var pid int
	waitFor(t, what+"'s pid file", func() bool {
		b, err := os.ReadFile(pidfile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	f := procStatFields(pid)
	if len(f) < 20 {
		t.Fatalf("%s (pid %d) is not running", what, pid)
	}
	e := escapee{what: what, pid: pid, start: f[19]}
	t.Cleanup(func() {
		if f := procStatFields(pid); len(f) >= 20 && f[19] == e.start {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return e
}

// state is the process's state letter and parent, or "" once it is gone
// (or its pid belongs to another process).
func (e escapee) state() (state string, ppid int) {
	f := procStatFields(e.pid)
	if len(f) < 20 || f[19] != e.start {
		return "", 0
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0], ppid
}

// waitReaped waits until e is gone and, if daemon > 0, not left a zombie
// of the daemon either: a subreaper must reap the orphans it adopts.
func (e escapee) waitReaped(t *testing.T, daemon int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, ppid := e.state()
		if st == "" || (st == "Z" && (daemon == 0 || ppid != daemon)) {
			return
		}
		if time.Now().After(deadline) {
			if st == "Z" {
				t.Fatalf("%s (pid %d) is a zombie the daemon never reaped", e.what, e.pid)
			}
			t.Fatalf("%s (pid %d) still runs (state %s, parent %d)", e.what, e.pid, st, ppid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStopKillsSetsidDescendants: a server's descendant that called
// setsid() — still the server's grandchild, or already an orphan of a
// double fork — dies when the server is turned off and when the daemon
// stops, and leaves no zombie. The daemon, a child subreaper, adopts the
// orphan; the exit status of its own children still reaches them.
func TestStopKillsSetsidDescendants(t *testing.T) {
	dir := t.TempDir()
	treeFile, orphanFile := filepath.Join(dir, "tree.pid"), filepath.Join(dir, "orphan.pid")
	in := startDaemon(t, map[string]any{
		"tree":   fakeEntry(t, "escaper", "MCPTRAY_FAKE_PIDFILE", treeFile),
		"orphan": fakeEntry(t, "escaper", "MCPTRAY_FAKE_PIDFILE", orphanFile, "MCPTRAY_FAKE_ORPHAN", "1"),
		"crash":  fakeEntry(t, "crash"),
	})
	daemon := in.Cmd.Process.Pid
	in.WaitFor("tree and orphan ready, crash failing", func(st statusJSON) bool {
		s, _ := state(st, "crash")
		return states("tree", "ready", "orphan", "ready")(st) && (s == "error" || s == "crash-loop")
	})
	tree, orphan := readEscapee(t, "setsid'd grandchild", treeFile), readEscapee(t, "setsid'd orphan", orphanFile)
	if _, ppid := orphan.state(); ppid != daemon {
		t.Errorf("the orphan's parent is %d, want the daemon (%d), a child subreaper", ppid, daemon)
	}
	// The reaper took no exit status from the daemon's own children.
	for _, s := range in.Status().Servers {
		if s.Name == "crash" && !strings.Contains(s.Error, "exited with code 3") {
			t.Errorf("crash's error is %q, want its exit code 3", s.Error)
		}
	}

	for _, e := range []struct {
		name string
		e    escapee
	}{{"tree", tree}, {"orphan", orphan}} {
		if code, _, errs := in.Run("toggle", e.name, "off"); code != 0 {
			t.Fatalf("toggle %s off: exit %d: %s", e.name, code, errs)
		}
		in.WaitFor(e.name+" disabled", states(e.name, "disabled"))
		e.e.waitReaped(t, daemon)
	}

	// Turned on again, both work as before; the daemon's SIGTERM takes
	// their new escapees along.
	os.Remove(treeFile)
	os.Remove(orphanFile)
	in.Run("toggle", "tree", "on")
	in.Run("toggle", "orphan", "on")
	in.WaitFor("both back", states("tree", "ready", "orphan", "ready"))
	tree, orphan = readEscapee(t, "second grandchild", treeFile), readEscapee(t, "second orphan", orphanFile)
	in.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.Exited:
	case <-time.After(60 * time.Second):
		t.Fatal("daemon did not exit within 60 s of SIGTERM")
	}
	tree.waitReaped(t, 0)
	orphan.waitReaped(t, 0)
}

// TestNextStartReapsStraysTheWatchdogMissed: when the watchdog dies with
// mcptray (both killed -9), a server's descendant that left its group
// (setsid, then orphaned) outlives them; the next start on the same data
// dir finds it by the dead instance's marker and kills it.
func TestNextStartReapsStraysTheWatchdogMissed(t *testing.T) {
	dir := t.TempDir()
	orphanFile := filepath.Join(dir, "orphan.pid")
	in := startDaemon(t, map[string]any{
		"orphan": fakeEntry(t, "escaper", "MCPTRAY_FAKE_PIDFILE", orphanFile, "MCPTRAY_FAKE_ORPHAN", "1"),
	})
	in.WaitFor("ready", states("orphan", "ready"))
	orphan := readEscapee(t, "setsid'd orphan", orphanFile)
	wd := watchdogPID(in.Cmd.Process.Pid)
	if wd == 0 {
		t.Fatal("no watchdog found")
	}
	syscall.Kill(wd, syscall.SIGKILL)
	waitGone(t, wd, "watchdog")
	in.Cmd.Process.Signal(syscall.SIGKILL)
	<-in.Exited
	if st, _ := orphan.state(); st == "" || st == "Z" {
		t.Fatalf("the orphan died with mcptray and its watchdog (state %q): nothing left for the next start to test", st)
	}

	os.Remove(orphanFile)
	in.Start() // the same config and data dir
	orphan.waitReaped(t, 0)
	in.WaitFor("ready again", states("orphan", "ready"))
}
