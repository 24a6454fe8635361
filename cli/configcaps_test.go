//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

// manyServers is one real server, "echo", and n-1 disabled entries.
func manyServers(t *testing.T, n int) map[string]any {
	servers := map[string]any{"echo": fakeEntry(t, "echo")}
	for i := 1; i < n; i++ {
		servers[fmt.Sprintf("off-%04d", i)] = map[string]any{"command": "x", "disabled": true}
	}
	return servers
}

// waitBrief is instance.waitFor with a one-line status on failure (not
// 1000 rows).
func waitBrief(in *instance, what string, cond func(statusJSON) bool) statusJSON {
	in.T.Helper()
	var st statusJSON
	if !testkit.Eventually(time.Minute, func() bool { st = in.Status(); return cond(st) }) {
		s, pid := state(st, "echo")
		in.T.Fatalf("timed out waiting for %s: %d servers, echo %s pid %d, configError %q", what, len(st.Servers), s, pid, st.ConfigError)
	}
	return st
}

// TestConfigCaps: a 1000-entry config loads and stops quickly; 1001 entries
// or a file over 4 MiB is refused with a reason in configError, and the
// last good config keeps running.
func TestConfigCaps(t *testing.T) {
	in := startDaemon(t, manyServers(t, 1000))
	st := waitBrief(in, "1000 entries up", func(st statusJSON) bool {
		if len(st.Servers) != 1000 {
			return false
		}
		for _, s := range st.Servers {
			if want := map[bool]string{true: "ready", false: "disabled"}[s.Name == "echo"]; s.State != want {
				return false
			}
		}
		return true
	})
	if st.ConfigError != "" {
		t.Fatalf("a 1000-entry config was refused: %s", st.ConfigError)
	}
	_, pid := state(st, "echo")

	keptRunning := func(st statusJSON) {
		t.Helper()
		if s, p := state(st, "echo"); s != "ready" || p != pid || len(st.Servers) != 1000 {
			t.Errorf("the last good config did not keep running: echo %s pid %d (was %d), %d servers", s, p, pid, len(st.Servers))
		}
	}

	// 1001 entries: refused.
	writeConfig(t, in.Config, manyServers(t, 1001))
	st = waitBrief(in, "1001 entries refused", func(st statusJSON) bool { return st.ConfigError != "" })
	if !strings.Contains(st.ConfigError, "1001 servers") || !strings.Contains(st.ConfigError, "at most 1000") {
		t.Errorf("configError for 1001 entries = %q; want it to say 1001 servers, at most 1000", st.ConfigError)
	}
	keptRunning(st)

	// A file over 4 MiB (a valid config padded with a comment): refused.
	big := fmt.Sprintf("{\"mcpServers\": {\"echo\": %s}}\n// %s\n", jsonOf(t, fakeEntry(t, "echo")), strings.Repeat("x", 4<<20))
	writeRaw(t, in.Config, big)
	st = waitBrief(in, "a 4 MiB+ file refused", func(st statusJSON) bool { return strings.Contains(st.ConfigError, "MiB") })
	if !strings.Contains(st.ConfigError, "at most 4 MiB") {
		t.Errorf("configError for a 4 MiB+ file = %q; want it to say at most 4 MiB", st.ConfigError)
	}
	keptRunning(st)

	// Back under the caps: applied, the error gone.
	writeConfig(t, in.Config, manyServers(t, 999))
	waitBrief(in, "999 entries applied", func(st statusJSON) bool { return st.ConfigError == "" && len(st.Servers) == 999 })

	// SIGTERM stops the 999 quickly (a generous bound: the probe's O(n²)
	// status broadcasts made this take minutes at scale).
	in.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.Exited:
	case <-time.After(60 * time.Second):
		t.Fatal("the daemon did not exit within 60 s of SIGTERM")
	}
	waitGone(t, pid, "echo")
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
