package app

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
)

func TestStartsEveryServerWithItsTools(t *testing.T) {
	h := startCore(t, servers(
		"a", fake(t, "echo"),
		"b", fake(t, "echo", "MCPTRAY_FAKE_TOOL_COUNT", "250"),
	))
	st := h.wait("both ready", stateIs("a", control.StateReady, "b", control.StateReady))
	a, _ := find(st, "a")
	b, _ := find(st, "b")
	if a.Tools != 2 || b.Tools != 252 {
		t.Errorf("tools: a=%d b=%d, want 2 and 252 (all pages)", a.Tools, b.Tools)
	}
	if a.PID == 0 || a.PID == b.PID {
		t.Errorf("pids: a=%d b=%d", a.PID, b.PID)
	}
	if got := []string{st.Servers[0].Name, st.Servers[1].Name}; got[0] != "a" || got[1] != "b" {
		t.Errorf("order = %v, want file order", got)
	}
}

func TestLogFormatAndLifecycle(t *testing.T) {
	h := startCore(t, servers("s", fake(t, "stderr-log")))
	h.wait("ready", stateIs("s", control.StateReady))
	text := h.waitLog("s", "[lifecycle] ready")
	line := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[[a-z]+\] .*$`)
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		if !line.MatchString(l) {
			t.Errorf("log line %q does not match the DESIGN.md §5 format", l)
		}
	}
}

func TestBannersOnStdoutAreLoggedNotFatal(t *testing.T) {
	h := startCore(t, servers("b", fake(t, "banner")))
	h.wait("ready", stateIs("b", control.StateReady))
	h.waitLog("b", "[stdout] ")
}

func TestCrashingServerBacksOffAndReportsWhy(t *testing.T) {
	h := startCore(t, servers("crash", fake(t, "crash"), "ok", fake(t, "echo")))
	st := h.wait("crash reported with its stderr", func(st control.Status) bool {
		s, _ := find(st, "crash")
		return s.State == control.StateError && strings.Contains(s.Error, "boom")
	})
	if s, _ := find(st, "crash"); !strings.Contains(s.Error, "3") {
		t.Errorf("error %q should name the exit code 3", s.Error)
	}
	h.wait("a restart", func(st control.Status) bool { s, _ := find(st, "crash"); return s.Restarts >= 1 })
	h.wait("ok still ready", stateIs("ok", control.StateReady))
	h.waitLog("crash", "next start in 2s")
}

func TestCommandNotFound(t *testing.T) {
	h := startCore(t, servers("nope", `{"command": "mcptray-no-such-command"}`, "ok", fake(t, "echo")))
	h.wait("refusal", func(st control.Status) bool {
		s, _ := find(st, "nope")
		return s.State == control.StateError && strings.Contains(s.Error, `"mcptray-no-such-command" not found`)
	})
	h.wait("ok ready", stateIs("ok", control.StateReady))
	h.waitLog("nope", "not found")
}

func TestServerThatNeverAnswersTimesOut(t *testing.T) {
	h := startCore(t, servers("silent", fake(t, "silent"), "ok", fake(t, "echo")), func(o *Options) {
		o.StartTimeout = 1 * time.Second
	})
	st := h.wait("timeout", func(st control.Status) bool {
		s, _ := find(st, "silent")
		return s.State == control.StateError && s.Error != ""
	})
	s, _ := find(st, "silent")
	if !strings.Contains(s.Error, "initialize") {
		t.Errorf("error %q should say initialize got no answer", s.Error)
	}
	h.wait("ok ready", stateIs("ok", control.StateReady))
}

func TestServerThatIgnoresSIGTERMIsKilled(t *testing.T) {
	h := startCore(t, servers("stubborn", fake(t, "ignore-term")))
	pid := h.wait("ready", stateIs("stubborn", control.StateReady)).Servers[0].PID
	if err := h.core.SetEnabled("stubborn", false); err != nil {
		t.Fatal(err)
	}
	h.wait("disabled", stateIs("stubborn", control.StateDisabled))
	waitGone(t, pid, "server ignoring SIGTERM")
}

func TestGrandchildrenDieWithTheirServer(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "grandchild.pid")
	h := startCore(t, servers("gc", fake(t, "grandchild", "MCPTRAY_FAKE_PIDFILE", pidfile)))
	h.wait("ready", stateIs("gc", control.StateReady))
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	gpid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if !alive(gpid) {
		t.Fatalf("grandchild %d not running", gpid)
	}
	h.stop()
	waitGone(t, gpid, "grandchild")
}

func TestExitedServerRestarts(t *testing.T) {
	h := startCore(t, servers("short", fake(t, "exit-after", "MCPTRAY_FAKE_EXIT_AFTER", "300ms")))
	first := h.wait("ready", stateIs("short", control.StateReady)).Servers[0].PID
	h.wait("restarted with a new pid", func(st control.Status) bool {
		s, _ := find(st, "short")
		return s.State == control.StateReady && s.PID != first && s.Restarts >= 1
	})
	h.waitLog("short", "exited with code 4")
}

func TestManualRestart(t *testing.T) {
	h := startCore(t, servers("r", fake(t, "echo")))
	first := h.wait("ready", stateIs("r", control.StateReady)).Servers[0].PID
	if err := h.core.Restart("r"); err != nil {
		t.Fatal(err)
	}
	h.wait("new pid", func(st control.Status) bool {
		s, _ := find(st, "r")
		return s.State == control.StateReady && s.PID != first
	})
	waitGone(t, first, "old process")
	if err := h.core.Restart("missing"); err == nil || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("Restart(missing) = %v", err)
	}
}

func TestSecondInstanceOnSameDataDirIsRefused(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")))
	_, err := New(Options{ConfigPath: h.cfgPath, DataDir: h.data})
	if err == nil {
		t.Fatal("second New succeeded")
	}
	want := "mcptray is already running (pid " + strconv.Itoa(os.Getpid())
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), h.data) {
		t.Errorf("error %q should say %q and name the data dir", err, want)
	}
}

func TestStopLeavesNoProcess(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo"), "b", fake(t, "ignore-term")))
	st := h.wait("ready", stateIs("a", control.StateReady, "b", control.StateReady))
	h.stop()
	for _, s := range st.Servers {
		waitGone(t, s.PID, s.Name)
	}
	if _, err := os.Stat(control.SocketPath(h.data)); err == nil {
		t.Error("socket left behind after Run returned")
	}
}
