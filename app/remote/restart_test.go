package remote_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/remote"
	"github.com/mcptray/mcptray/internal/testkit"
)

// TestInstanceRestart: the instance stops while the window is open: the
// status says so, calls fail saying so, and once another instance runs
// on the same data dir everything resumes with it, the window registered
// again.
func TestInstanceRestart(t *testing.T) {
	d := newDirs(t, servers("a", fake(t, "asker")))
	first := start(t, d)
	c := dial(t, d)
	updates, cancelStatus := c.Subscribe()
	defer cancelStatus()
	waitStatus(t, updates, "a ready", func(st control.Status) bool { return state(st, "a") == control.StateReady })
	evs, cancelInbox := c.SubscribeInbox()
	defer cancelInbox()
	changes, cancelEvents := c.SubscribeEvents()
	defer cancelEvents()
	raise, cancelWindow := c.HoldWindow(control.WindowMain)
	defer cancelWindow()

	s := openSession(t, d.data)
	s.send("tools/call", map[string]any{"name": "a__login", "arguments": map[string]any{"user": "root"}})
	asked := next(t, evs, inbox.Added)

	first.stop()
	st := waitStatus(t, updates, "the instance gone", func(st control.Status) bool { return st.Unreachable != "" })
	if st.Unreachable != remote.NotRunning || c.Status().Unreachable != remote.NotRunning {
		t.Errorf("Unreachable = %q, Status().Unreachable = %q", st.Unreachable, c.Status().Unreachable)
	}
	if len(st.Servers) == 0 {
		t.Error("the status while the instance is gone lost its servers")
	}
	err := c.Restart("a")
	if !errors.Is(err, control.ErrNotRunning) || err.Error() != remote.NotRunning {
		t.Errorf("Restart while the instance is gone = %v", err)
	}
	if _, err := c.SecretNames(); err == nil || err.Error() != remote.NotRunning {
		t.Errorf("SecretNames while the instance is gone = %v", err)
	}
	// Its request went with it: either it said so, or the window does.
	if closed := next(t, evs, inbox.Closed); closed.Request.ID != asked.Request.ID {
		t.Errorf("Closed %+v, want %s", closed, asked.Request.ID)
	}

	second := start(t, d)
	waitStatus(t, updates, "a ready again, from the new instance", func(st control.Status) bool {
		return st.Unreachable == "" && state(st, "a") == control.StateReady
	})
	testkit.WaitFor(t, "the main window registered again", func() bool { return second.core.RaiseWindow(control.WindowMain, "") })
	receive(t, raise, "the raise from the new instance")
	if ch := receive(t, changes, "the events' change after the restart"); !ch.Missed {
		t.Errorf("the first change after a restart = %+v, want Missed", ch)
	}
	if l, err := c.Tools("a"); err != nil || len(l.Tools) == 0 {
		t.Errorf("Tools once the instance is back = %+v, %v", l, err)
	}
	s = openSession(t, d.data)
	s.send("tools/call", map[string]any{"name": "a__login", "arguments": map[string]any{"user": "admin"}})
	if again := next(t, evs, inbox.Added); again.Request.ID == asked.Request.ID || again.Request.Message == "" {
		t.Errorf("the new instance's request: %+v", again.Request)
	}
}

// TestInstanceKilled: an instance that dies without a word (SIGKILL)
// closes nothing; once the next one runs, the window's inbox closes what
// it showed, outcome gone.
func TestInstanceKilled(t *testing.T) {
	d := newDirs(t, servers("a", fake(t, "asker")))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Its log goes to a file: a pipe would be held open by its servers
	// and watchdog, which outlive it a moment, and Wait would wait for
	// them.
	logPath := filepath.Join(testkit.TempDir(t), "instance.log")
	stderr, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), instanceEnv+"=1", configEnv+"="+d.cfg, dataEnv+"="+d.data)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	testkit.WaitFor(t, "the instance's control socket", func() bool {
		_, err := control.Dial(d.data)
		return err == nil
	})
	c := dial(t, d)
	updates, cancelStatus := c.Subscribe()
	defer cancelStatus()
	waitStatus(t, updates, "a ready", func(st control.Status) bool { return state(st, "a") == control.StateReady })
	evs, cancelInbox := c.SubscribeInbox()
	defer cancelInbox()
	s := openSession(t, d.data)
	s.send("tools/call", map[string]any{"name": "a__login", "arguments": map[string]any{"user": "root"}})
	asked := next(t, evs, inbox.Added)

	cmd.Process.Kill()
	receive(t, exited, "the killed instance's exit")
	waitStatus(t, updates, "the instance gone", func(st control.Status) bool { return st.Unreachable == remote.NotRunning })

	start(t, d)
	closed := next(t, evs, inbox.Closed)
	if closed.Request.ID != asked.Request.ID || closed.Outcome != remote.OutcomeGone {
		t.Errorf("Closed %+v, want %s gone", closed, asked.Request.ID)
	}
	waitStatus(t, updates, "a ready again", func(st control.Status) bool {
		return st.Unreachable == "" && state(st, "a") == control.StateReady
	})
	if t.Failed() {
		b, _ := os.ReadFile(logPath)
		t.Logf("the killed instance's log:\n%s", b)
	}
}
