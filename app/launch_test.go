package app

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
)

func askEdits(o *Options) { o.TrustConfigEdits = false }

// mcptray's own edit of mcp.json runs what it adds without a question, but
// approves nothing it leaves as it was: an entry a plain write added keeps
// waiting. Approvals outlive the instance.
func TestOwnEditsNeedNoApproval(t *testing.T) {
	a := fake(t, "echo")
	h := startCore(t, servers("a", a), askEdits)
	h.wait("a ready", stateIs("a", control.StateReady))

	h.write(servers("a", a, "x", fake(t, "echo", "WHO", "x")))
	h.wait("x needs approval", stateIs("x", control.StateNeedsApproval))

	err := h.core.configFile.Edit(func([]byte) ([]byte, error) {
		return []byte(servers("a", a, "x", fake(t, "echo", "WHO", "x"), "b", fake(t, "echo", "WHO", "b"))), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h.wait("b ready, x still waiting", stateIs("b", control.StateReady, "x", control.StateNeedsApproval))
	if err := h.core.SetEnabled("a", false); err != nil {
		t.Fatal(err)
	}
	h.wait("a off", stateIs("a", control.StateDisabled, "x", control.StateNeedsApproval))

	if err := h.core.ApproveServer("x"); err != nil {
		t.Fatal(err)
	}
	h.wait("x ready", stateIs("x", control.StateReady))
	if err := h.core.ApproveServer("x"); err == nil || !strings.Contains(err.Error(), "does not wait") {
		t.Errorf("approving a running server: %v", err)
	}
	h.stop()

	// The next start remembers; an entry changed meanwhile asks.
	h.write(servers("a", a, "x", fake(t, "echo", "WHO", "x"), "b", fake(t, "echo", "WHO", "b", "MORE", "1")))
	h2 := startCore(t, "", askEdits, func(o *Options) { o.ConfigPath, o.DataDir = h.cfgPath, h.data })
	h2.wait("x ready, b waits", stateIs("x", control.StateReady, "b", control.StateNeedsApproval, "a", control.StateReady))
}

// The default config mcptray writes is its own: when it writes one into a
// data dir that knew another config, its entries run without a question.
func TestDefaultConfigNeedsNoApproval(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")), askEdits)
	h.wait("a ready", stateIs("a", control.StateReady))
	h.stop()
	os.Remove(h.cfgPath)
	h2 := startCore(t, "", askEdits, func(o *Options) { o.ConfigPath, o.DataDir = h.cfgPath, h.data })
	h2.wait("ssh ready", stateIs("ssh", control.StateReady))
}

// `mcptray add` and `import` write mcp.json themselves (OwnFile): through
// the running instance (control.Client.ReplaceConfig) or, with none, recording the
// approvals in the store (ownWriteFile). Either way what they add runs
// without a question.
func TestReplaceConfigAndOwnWriteFile(t *testing.T) {
	a := fake(t, "echo")
	h := startCore(t, servers("a", a), askEdits)
	h.wait("a ready", stateIs("a", control.StateReady))
	cl, err := control.Dial(h.data)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(h.cfgPath)
	withB := []byte(servers("a", a, "b", fake(t, "echo", "WHO", "b")))
	if err := cl.ReplaceConfig(context.Background(), []byte("stale"), withB); !errors.Is(err, config.ErrChanged) {
		t.Errorf("a stale old: %v", err)
	}
	if err := cl.ReplaceConfig(context.Background(), old, withB); err != nil {
		t.Fatal(err)
	}
	h.wait("b ready", stateIs("b", control.StateReady))
	// OwnFile's File with no instance, with an env whose self is not the
	// fake server's binary (the test binary: as self it would be left out
	// of the launch's files, which the core's self does not leave out).
	env := config.Env{Self: "x"}
	own := config.NewFile(h.cfgPath, func(old, new []byte) error { return ownWriteFile(h.cfgPath, h.data, env, old, new) })
	if err := own.Edit(func([]byte) ([]byte, error) { return withB, nil }); err != nil {
		t.Fatal(err) // unchanged: nothing to lock
	}
	for _, on := range []bool{false, true} {
		if err := own.SetEnabled("a", on); err != nil {
			t.Fatal(err) // no launch changed: nothing to lock
		}
	}
	withC := []byte(servers("a", a, "b", fake(t, "echo", "WHO", "b"), "c", fake(t, "echo", "WHO", "c")))
	if err := own.Edit(func([]byte) ([]byte, error) { return withC, nil }); err == nil {
		t.Error("ownWriteFile with an instance running: no error")
	}
	h.stop()
	if err := own.Edit(func([]byte) ([]byte, error) { return withC, nil }); err != nil {
		t.Fatal(err)
	}
	h2 := startCore(t, "", askEdits, func(o *Options) { o.ConfigPath, o.DataDir = h.cfgPath, h.data })
	h2.wait("c ready", stateIs("a", control.StateReady, "b", control.StateReady, "c", control.StateReady))
}
