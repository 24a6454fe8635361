package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/store"
)

// probeSecret is an environment value of the server in TestProbeRemembered:
// the database must never hold it.
const probeSecret = "s3cret-probe-value-42"

// TestProbeRemembered: a server on 2026-07-28 only, which exits on
// initialize, is started again with server/discover; the next mcptray on
// the same data dir starts it straight that way; a changed launch is
// asked afresh. The database's stdio_probes holds the key (a hash) and
// the version; no file of the database holds an environment value.
func TestProbeRemembered(t *testing.T) {
	entry := func(value string) string {
		return servers("nw", fake(t, "new-strict", "PROBE_TEST_TOKEN", value))
	}
	h := startCore(t, entry(probeSecret))
	h.wait("ready", stateIs("nw", control.StateReady))
	h.waitLog("nw", "protocol 2026-07-28")
	if n := strings.Count(h.logText("nw"), "did not take initialize"); n != 1 {
		t.Fatalf("the first start asked initialize %d times:\n%s", n, h.logText("nw"))
	}
	marks := h.core.opts.InstallMarks
	h.stop()

	h2 := startCore(t, "", sameInstall(h, marks))
	h2.cfgPath, h2.data = h.cfgPath, h.data
	h2.wait("ready again", stateIs("nw", control.StateReady))
	text := h2.waitLog("nw", "protocol 2026-07-28, in")
	if strings.Count(text, "ready: ") != 2 || strings.Count(text, "did not take initialize") != 1 {
		t.Fatalf("the second mcptray did not go straight to server/discover:\n%s", text)
	}

	h2.write(entry("another-value"))
	h2.wait("restarted with the new launch", func(st control.Status) bool {
		s, _ := find(st, "nw")
		return s.State == control.StateReady && strings.Count(h2.logText("nw"), "ready: ") == 3
	})
	if n := strings.Count(h2.logText("nw"), "did not take initialize"); n != 2 {
		t.Errorf("a changed launch was not asked afresh (%d):\n%s", n, h2.logText("nw"))
	}
	h2.stop()

	st, err := store.Open(dbPath(h.data))
	if err != nil {
		t.Fatal(err)
	}
	probes, err := st.Probes(context.Background())
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 2 {
		t.Errorf("%d probes recorded, want 2: %v", len(probes), probes)
	}
	for _, v := range probes {
		if v != "2026-07-28" {
			t.Errorf("recorded %q", v)
		}
	}
	files, _ := filepath.Glob(dbPath(h.data) + "*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, leak := range []string{probeSecret, "another-value"} { // the command line is in launch_approvals, for the person
			if bytes.Contains(b, []byte(leak)) {
				t.Errorf("%s holds %q", filepath.Base(f), leak)
			}
		}
	}
}
