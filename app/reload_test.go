package app

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/control"
)

func TestReloadRestartsOnlyChangedServers(t *testing.T) {
	h := startCore(t, servers(
		"same", fake(t, "echo"),
		"changed", fake(t, "echo", "MCPTRAY_FAKE_MARK", "v1"),
		"removed", fake(t, "echo"),
	))
	before := h.wait("ready", stateIs("same", control.StateReady, "changed", control.StateReady, "removed", control.StateReady))
	pid := func(st control.Status, name string) int { s, _ := find(st, name); return s.PID }

	h.write(servers(
		"same", fake(t, "echo"),
		"changed", fake(t, "echo", "MCPTRAY_FAKE_MARK", "v2"),
		"added", fake(t, "echo"),
	))
	after := h.wait("reloaded", func(st control.Status) bool {
		_, gone := find(st, "removed")
		return !gone && stateIs("added", control.StateReady)(st) &&
			stateIs("changed", control.StateReady)(st) && pid(st, "changed") != pid(before, "changed")
	})
	if pid(after, "same") != pid(before, "same") {
		t.Errorf("unchanged server restarted: pid %d → %d", pid(before, "same"), pid(after, "same"))
	}
	waitGone(t, pid(before, "removed"), "removed server")
	waitGone(t, pid(before, "changed"), "old process of the changed server")
	h.waitLog("changed", "[stderr] mark: v2")
}

func TestMalformedConfigKeepsLastGoodConfig(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")))
	before := h.wait("ready", stateIs("a", control.StateReady))
	h.write("{\n  \"mcpServers\": {\n    \"a\": {\"command\": }\n  }\n}\n")
	st := h.wait("config error", func(st control.Status) bool { return st.ConfigError != "" })
	if !strings.Contains(st.ConfigError, "3:") {
		t.Errorf("config error %q should give line 3 and a column", st.ConfigError)
	}
	if s, _ := find(st, "a"); s.PID != before.Servers[0].PID || s.State != control.StateReady {
		t.Errorf("server changed on a bad file: %+v", s)
	}
	h.write(servers("a", fake(t, "echo")))
	h.wait("error cleared", func(st control.Status) bool { return st.ConfigError == "" })
}

func TestConfigDeletedAndRecreated(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")))
	pid := h.wait("ready", stateIs("a", control.StateReady)).Servers[0].PID
	os.Remove(h.cfgPath)
	st := h.wait("missing file reported", func(st control.Status) bool { return strings.Contains(st.ConfigError, "does not exist") })
	if st.Servers[0].PID != pid {
		t.Error("server restarted when the file vanished")
	}
	h.write(servers("a", fake(t, "echo"), "b", fake(t, "echo")))
	h.wait("recreated file applied", func(st control.Status) bool { return st.ConfigError == "" && stateIs("b", control.StateReady)(st) })
}

func TestConfigDirRemovedAndRecreated(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")))
	h.wait("ready", stateIs("a", control.StateReady))
	dir := h.cfgPath[:strings.LastIndexByte(h.cfgPath, '/')]
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	h.wait("missing reported", func(st control.Status) bool { return st.ConfigError != "" })
	os.MkdirAll(dir, 0o700)
	h.write(servers("b", fake(t, "echo")))
	h.wait("recreated dir applied", func(st control.Status) bool {
		_, hasA := find(st, "a")
		return !hasA && st.ConfigError == "" && stateIs("b", control.StateReady)(st)
	})
}

func TestMissingConfigDirGetsTheDefaultConfig(t *testing.T) {
	h := startCore(t, "")
	if _, err := os.Stat(h.cfgPath); err != nil {
		t.Fatalf("default config not created: %v", err)
	}
	st := h.wait("default servers", func(st control.Status) bool {
		return stateIs("ssh", control.StateReady, "gmail", control.StateDisabled, "gcal", control.StateDisabled)(st)
	})
	if len(st.Servers) != 3 {
		t.Errorf("default config has %d servers, want 3", len(st.Servers))
	}
}

func TestToggleRewritesOnlyThatEntry(t *testing.T) {
	cfg := servers("a", fake(t, "echo"), "b", fake(t, "echo"))
	h := startCore(t, cfg)
	st := h.wait("ready", stateIs("a", control.StateReady, "b", control.StateReady))
	pidA, _ := find(st, "a")
	pidB, _ := find(st, "b")
	if err := h.core.SetEnabled("a", false); err != nil {
		t.Fatal(err)
	}
	h.wait("a disabled", stateIs("a", control.StateDisabled))
	waitGone(t, pidA.PID, "disabled server")
	if s := h.server("b"); s.PID != pidB.PID {
		t.Error("toggling a restarted b")
	}
	b, _ := os.ReadFile(h.cfgPath)
	if !disabledTrue.Match(b) {
		t.Errorf("file has no disabled key:\n%s", b)
	}
	if err := h.core.SetEnabled("a", true); err != nil {
		t.Fatal(err)
	}
	h.wait("a back", stateIs("a", control.StateReady))
	if got, _ := os.ReadFile(h.cfgPath); disabledTrue.Match(got) {
		t.Errorf("file still disabled:\n%s", got)
	}
	if err := h.core.SetEnabled("nobody", false); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Errorf("SetEnabled(nobody) = %v", err)
	}
}

var disabledTrue = regexp.MustCompile(`"disabled":\s*true`)
