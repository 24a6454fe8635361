package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/trust"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/store"
)

// sameInstall restarts on h's config and data dir with its install marker.
func sameInstall(h *harness, marks SecretStore) func(*Options) {
	return func(o *Options) { o.ConfigPath, o.DataDir, o.InstallMarks = h.cfgPath, h.data, marks }
}

// movedAside lists data's files named mcptray.db.WHY-*.
func movedAside(t *testing.T, data, why string) []string {
	t.Helper()
	m, err := filepath.Glob(dbPath(data) + "." + why + "-*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range m {
		if !strings.HasSuffix(p, "-wal") && !strings.HasSuffix(p, "-shm") {
			out = append(out, p)
		}
	}
	return out
}

// Issue 34: a mcptray.db SQLite cannot open does not stop the start: it is
// moved aside (mcptray.db.broken-TIME), mcptray starts with fresh records
// under the reset rule (every entry waits, one request), and says so.
func TestBrokenDatabaseMovedAside(t *testing.T) {
	marks := &memSecrets{m: map[string]string{}}
	h := startCore(t, servers("a", fake(t, "echo")), askEdits, func(o *Options) { o.InstallMarks = marks })
	h.wait("a ready", stateIs("a", control.StateReady))
	h.stop()
	garbage := bytes.Repeat([]byte("this is not a database\n"), 400)
	if err := os.WriteFile(dbPath(h.data), garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(dbPath(h.data) + "-wal")
	os.Remove(dbPath(h.data) + "-shm")

	h2 := startCore(t, "", askEdits, sameInstall(h, marks))
	req := nextRequest(t, h2, inbox.KindLaunchReset)
	h2.wait("a waits", stateIs("a", control.StateNeedsApproval))
	if req.Reset == nil || req.Reset.Why != trust.WhyReset {
		t.Errorf("reset request %+v", req)
	}
	moved := movedAside(t, h.data, "broken")
	if len(moved) != 1 {
		t.Fatalf("moved aside: %v", moved)
	}
	if b, _ := os.ReadFile(moved[0]); !bytes.Equal(b, garbage) {
		t.Error("the broken file was not kept as it was")
	}
	evs := h2.waitEvents(1, events.Filter{Server: noticeServer})
	if title, body := evs[0].Summary(); title != "mcptray.db could not be opened" || !strings.Contains(body, filepath.Base(moved[0])) || !strings.Contains(body, "not an SQLite database") {
		t.Errorf("notice %q %q", title, body)
	}
}

// Issue 34: a database deleted or replaced while mcptray runs is noticed,
// said, and reopened; a file put in its place is moved aside, so an
// approval forged in it does not count; what this process approved is
// kept, so the next start is no reset.
func TestDatabaseReplacedWhileRunning(t *testing.T) {
	marks := &memSecrets{m: map[string]string{}}
	a := fake(t, "echo")
	h := startCore(t, servers("a", a), askEdits, func(o *Options) { o.InstallMarks = marks })
	h.wait("a ready", stateIs("a", control.StateReady))
	// waitNotice waits for a notice whose body has substr (the database
	// holding the earlier ones is gone).
	waitNotice := func(substr string) {
		t.Helper()
		var evs []events.Event
		if !testkit.Eventually(testkit.Deadline, func() bool {
			evs, _ = h.core.Events(events.Filter{Server: noticeServer, All: true})
			return slices.ContainsFunc(evs, func(e events.Event) bool {
				title, body := e.Summary()
				return title == "mcptray.db was deleted or replaced" && strings.Contains(body, substr)
			})
		}) {
			t.Fatalf("no notice saying %q: %+v", substr, evs)
		}
	}

	// Deleted.
	for _, ext := range []string{"", "-wal", "-shm"} {
		os.Remove(dbPath(h.data) + ext)
	}
	waitNotice("Reopened")

	// Replaced by one that approves an entry the person never saw.
	evil := fake(t, "echo", "WHO", "evil")
	forged := filepath.Join(t.TempDir(), "forged.db")
	fs, err := store.Open(forged)
	if err != nil {
		t.Fatal(err)
	}
	fs.ApproveLaunch(context.Background(), store.LaunchApproval{Server: "evil", Fingerprint: "forged", Command: "x", Approved: time.Now(), How: store.ApprovedByPerson})
	fs.Close()
	if err := os.Rename(forged, dbPath(h.data)); err != nil {
		t.Fatal(err)
	}
	waitNotice("replaced-")
	if moved := movedAside(t, h.data, "replaced"); len(moved) != 1 {
		t.Errorf("moved aside: %v", moved)
	}
	h.stop()

	st, err := store.Open(dbPath(h.data))
	if err != nil {
		t.Fatal(err)
	}
	approved, err := st.LaunchApprovals(context.Background())
	st.Close()
	if err != nil || approved["a"].Fingerprint == "" || approved["evil"].Fingerprint != "" {
		t.Errorf("approvals after the reopen: %+v %v", approved, err)
	}
	h.write(servers("a", a, "evil", evil))
	h2 := startCore(t, "", askEdits, sameInstall(h, marks))
	h2.wait("a ready, evil waits on its own", stateIs("a", control.StateReady, "evil", control.StateNeedsApproval))
	for _, r := range h2.core.Inbox() {
		if r.Kind == inbox.KindLaunchReset {
			t.Errorf("a reset request after a reopen: %+v", r)
		}
	}
}
