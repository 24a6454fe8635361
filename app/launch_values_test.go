package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/trust"
	"github.com/mcptray/mcptray/store"
)

// nextLaunch waits for an inbox request of kind launch for server.
func nextLaunch(t *testing.T, h *harness, server string) inbox.Request {
	t.Helper()
	ch, cancel := h.core.SubscribeInbox()
	defer cancel()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev := <-ch:
			if ev.Kind == inbox.Added && ev.Request.Kind == inbox.KindLaunch && ev.Request.Server == server {
				return ev.Request
			}
		case <-deadline:
			t.Fatalf("no launch request for %s; inbox %+v", server, h.core.Inbox())
		}
	}
}

// Issue 28, item 2: a new value of an entry's environment runs new code,
// so it waits for a yes like a new name. The request names each changed
// variable, shows the new value of one known to load code (NODE_OPTIONS)
// and only "value changed" for the others. A rotated ${keyring:…} secret
// restarts the server without a question.
func TestEnvValueChangeNeedsApproval(t *testing.T) {
	var ring atomic.Value
	ring.Store("ring-secret-1")
	keyringOpt := func(o *Options) {
		o.Keyring = func(string) (string, error) { return ring.Load().(string), nil }
	}
	entry := func(nodeOptions, apiKey string) string {
		return fake(t, "echo", "NODE_OPTIONS", nodeOptions, "API_KEY", apiKey, "RING", "${keyring:r}")
	}
	h := startCore(t, servers("a", entry("--no-warnings", "key-secret-1")), askEdits, keyringOpt)
	h.wait("a ready", stateIs("a", control.StateReady))

	h.write(servers("a", entry("--require /tmp/evil.js", "key-secret-2")))
	req := nextLaunch(t, h, "a")
	st := h.wait("a needs approval", stateIs("a", control.StateNeedsApproval))
	if s, _ := find(st, "a"); s.PID != 0 {
		t.Error("a runs before it is approved")
	}
	want := []string{"API_KEY: value changed", "NODE_OPTIONS: --require /tmp/evil.js", trust.RotationNote}
	if req.Launch == nil || !slices.Equal(req.Launch.Changes, want) {
		t.Errorf("changes %+v, want %q", req.Launch, want)
	}
	if !strings.Contains(req.Message, "environment or header values") {
		t.Errorf("message %q", req.Message)
	}
	b, _ := json.Marshal(req)
	if strings.Contains(string(b), "key-secret") || strings.Contains(string(b), "ring-secret") {
		t.Errorf("the request shows a secret: %s", b)
	}
	if err := h.core.ApproveServer("a"); err != nil {
		t.Fatal(err)
	}
	h.wait("a ready", stateIs("a", control.StateReady))
	pid := h.server("a").PID

	// A rotated keyring secret: a restart, no question.
	ring.Store("ring-secret-2")
	h.write(servers("a", entry("--require /tmp/evil.js", "key-secret-2")))
	h.wait("a restarted", func(st control.Status) bool {
		s, _ := find(st, "a")
		if s.State == control.StateNeedsApproval {
			t.Fatalf("a rotated keyring secret asks: %s", s.Error)
		}
		return s.State == control.StateReady && s.PID != pid && s.PID != 0
	})
	for _, r := range h.core.Inbox() {
		if r.Kind == inbox.KindLaunch {
			t.Errorf("a launch request after a rotated secret: %+v", r)
		}
	}
}

// Issue 28, item 4: a wrapper script the entry runs, changed at the same
// path, waits for a yes at the next restart (a crash will do), with the
// file's path and "contents changed since you approved it".
func TestChangedWrapperNeedsApprovalAtRestart(t *testing.T) {
	wrapper := filepath.Join(t.TempDir(), "wrapper.sh")
	script := fmt.Sprintf("#!/bin/sh\nexec %q\n", testBin(t))
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	entry, _ := json.Marshal(map[string]any{"command": "/bin/sh", "args": []string{wrapper},
		"env": map[string]string{"MCPTRAY_FAKE_SERVER": "echo", "GORACE": "atexit_sleep_ms=0"}})
	h := startCore(t, servers("a", string(entry)), askEdits)
	h.wait("a ready", stateIs("a", control.StateReady))
	pid := h.server("a").PID

	// Changed in place, then the server crashes.
	if err := os.WriteFile(wrapper, []byte(script+"# changed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
	req := nextLaunch(t, h, "a")
	st := h.wait("a needs approval", stateIs("a", control.StateNeedsApproval))
	s, _ := find(st, "a")
	line := wrapper + ": " + trust.FileChanged
	if !strings.Contains(s.Error, line) || s.PID != 0 {
		t.Errorf("status %+v, want it to say %q", s, line)
	}
	if req.Launch == nil || !slices.Contains(req.Launch.Changes, line) {
		t.Errorf("request %+v, want %q", req.Launch, line)
	}
	if err := h.core.ApproveServer("a"); err != nil {
		t.Fatal(err)
	}
	h.wait("a ready", stateIs("a", control.StateReady))
}

// The one-time migration carries an approval an earlier version recorded
// (fingerprint v1: no values, no files) over to today's values and files:
// an entry whose command line is unchanged runs without a question.
func TestV1ApprovalsCarriedOver(t *testing.T) {
	a := fake(t, "echo", "NODE_OPTIONS", "--no-warnings")
	h := startCore(t, servers("a", a), askEdits)
	h.wait("a ready", stateIs("a", control.StateReady))
	h.stop()
	ls, err := config.Launches([]byte(servers("a", a)), h.core.configEnv())
	if err != nil {
		t.Fatal(err)
	}
	ap := h.core.launches.Approved("a")
	ap.Fingerprint, ap.Values, ap.Files = ls["a"].FingerprintV1(), nil, nil
	st, err := store.Open(dbPath(h.data))
	if err != nil {
		t.Fatal(err)
	}
	err = st.ApproveLaunch(t.Context(), ap)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	h2 := startCore(t, "", askEdits, func(o *Options) { o.ConfigPath, o.DataDir = h.cfgPath, h.data })
	h2.wait("a ready", stateIs("a", control.StateReady))
	if got := h2.core.launches.Approved("a").Fingerprint; config.IsFingerprintV1(got) {
		t.Errorf("the approval was not carried over: %s", got)
	}
}
