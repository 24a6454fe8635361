package app

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/app/trust"
	"github.com/mcptray/mcptray/internal/testkeyring"
)

// nextRequest waits for an inbox request of kind.
func nextRequest(t *testing.T, h *harness, kind string) inbox.Request {
	t.Helper()
	ch, cancel := h.core.SubscribeInbox()
	defer cancel()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-ch:
			if ev.Kind == inbox.Added && ev.Request.Kind == kind {
				return ev.Request
			}
		case <-deadline:
			t.Fatalf("no %s request; inbox %+v", kind, h.core.Inbox())
		}
	}
}

// emptyDatabase does what `: > DATA/mcptray.db` does, with the instance
// stopped.
func emptyDatabase(t *testing.T, data string) {
	t.Helper()
	if err := os.Truncate(dbPath(data), 0); err != nil {
		t.Fatal(err)
	}
	os.Remove(dbPath(data) + "-wal")
	os.Remove(dbPath(data) + "-shm")
}

// Issue 34, item 3: losing mcptray.db approves nothing. The first start's
// marker is in the OS keyring, per data dir; a start that finds it with an
// empty database makes every entry wait — the one that was waiting before
// too — and asks once for them all.
func TestLostDatabaseApprovesNothing(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	testkeyring.Own(t, trust.InstallMarkName(data))
	osMarks := func(o *Options) { o.InstallMarks, o.DataDir = nil, data } // nil: the OS keyring
	a, b, c := fake(t, "echo"), fake(t, "echo", "WHO", "b"), fake(t, "echo", "WHO", "c")
	h := startCore(t, servers("a", a, "b", b), askEdits, osMarks)
	h.wait("a, b ready", stateIs("a", StateReady, "b", StateReady))
	if _, err := keyring.Get(trust.InstallMarkName(data)); err != nil {
		t.Fatalf("no install marker in the keyring: %v", err)
	}
	h.write(servers("a", a, "b", b, "c", c))
	h.wait("c needs approval", stateIs("c", StateNeedsApproval))
	h.stop()

	emptyDatabase(t, data)
	h2 := startCore(t, "", askEdits, osMarks, func(o *Options) { o.ConfigPath = h.cfgPath })
	req := nextRequest(t, h2, inbox.KindLaunchReset)
	st := h2.wait("every entry waits", stateIs("a", StateNeedsApproval, "b", StateNeedsApproval, "c", StateNeedsApproval))
	for _, s := range st.Servers {
		if s.PID != 0 {
			t.Errorf("%s runs", s.Name)
		}
	}
	if req.Reset == nil || len(req.Reset.Entries) != 3 || req.Reset.Why != trust.WhyReset || req.Reset.File != h.cfgPath {
		t.Fatalf("reset request %+v", req)
	}
	for _, r := range h2.core.Inbox() {
		if r.Kind == inbox.KindLaunch {
			t.Errorf("an entry asks on its own while the reset request is open: %+v", r)
		}
	}
	if err := h2.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept}); err != nil {
		t.Fatal(err)
	}
	h2.wait("all ready", stateIs("a", StateReady, "b", StateReady, "c", StateReady))
}

// unavailableKeyring is a keyring that cannot be reached (a headless
// session with no Secret Service).
type unavailableKeyring struct{}

func (unavailableKeyring) Get(string) (string, error) {
	return "", &keyring.UnavailableError{Reason: "no Secret Service", Err: errors.New("org.freedesktop.secrets was not provided")}
}
func (k unavailableKeyring) Set(string, string) error { _, err := k.Get(""); return err }
func (k unavailableKeyring) Delete(string) error      { _, err := k.Get(""); return err }

// Without a keyring a first start cannot be told from a reset: the
// entries wait, behind the one request; "choose one by one" makes each ask.
func TestFirstStartWithoutKeyringAsks(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")), askEdits, func(o *Options) { o.InstallMarks = unavailableKeyring{} })
	req := nextRequest(t, h, inbox.KindLaunchReset)
	h.wait("a waits", stateIs("a", StateNeedsApproval))
	if req.Reset == nil || req.Reset.Why != trust.WhyNoKeyring || len(req.Reset.Entries) != 1 {
		t.Fatalf("reset request %+v", req)
	}
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionDecline}); err != nil {
		t.Fatal(err)
	}
	one := nextLaunch(t, h, "a")
	if err := h.core.Answer(one.ID, inbox.Answer{Action: inbox.ActionAccept}); err != nil {
		t.Fatal(err)
	}
	h.wait("a ready", stateIs("a", StateReady))
}
