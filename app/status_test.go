package app

import (
	"fmt"
	"testing"

	"github.com/mcptray/mcptray/app/control"
)

// TestMassApplyBroadcastsFewSnapshots: starting, changing and stopping 1000
// entries does not take a full status snapshot per server change (the
// probe's 400 000 entries made that O(n²) and SIGTERM wait minutes);
// changes that come together share one.
func TestMassApplyBroadcastsFewSnapshots(t *testing.T) {
	const n = 1000
	entries := func(entry string) string {
		pairs := []string{"echo", fake(t, "echo")}
		for i := 1; i < n; i++ {
			pairs = append(pairs, fmt.Sprintf("e%04d", i), entry)
		}
		return servers(pairs...)
	}
	all := func(cond func(control.ServerStatus) bool) func(control.Status) bool {
		return func(st control.Status) bool {
			if len(st.Servers) != n {
				return false
			}
			for _, s := range st.Servers {
				if s.Name == "echo" && s.State != control.StateReady || s.Name != "echo" && !cond(s) {
					return false
				}
			}
			return true
		}
	}
	// Each entry changes its status at least twice in each phase (type,
	// then state; starting, then error; stopping, then stopped): one
	// snapshot per change would be ≥ 2n.
	const bound = n / 2
	h := startCore(t, entries(`{"command": "x", "disabled": true}`))
	phase := func(what string, from int64) int64 {
		t.Helper()
		now := h.core.snapshots.Load()
		t.Logf("%s: %d snapshots", what, now-from)
		if got := now - from; got > bound {
			t.Errorf("%d status snapshots to %s %d entries, want ≤ %d", got, what, n, bound)
		}
		return now
	}
	h.wait("all disabled", all(func(s control.ServerStatus) bool { return s.State == control.StateDisabled }))
	mark := phase("start", 0)

	// Every entry enabled, each failing to connect (nothing listens on
	// port 1): starting → error.
	h.write(entries(`{"type": "http", "url": "http://127.0.0.1:1/mcp"}`))
	h.wait("all failing", all(func(s control.ServerStatus) bool {
		return s.Type == "http" && (s.State == control.StateError || s.State == control.StateCrashLoop)
	}))
	mark = phase("enable", mark)

	h.stop() // each in its backoff: stopped
	phase("stop", mark)
}
