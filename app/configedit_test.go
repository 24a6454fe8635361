package app

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
)

// The core's AddServer and RemoveServer edit its file; its watcher starts
// and stops the server.
func TestCoreAddRemoveServer(t *testing.T) {
	// With approvals on: the Servers tab's Add is mcptray's own edit.
	h := startCore(t, servers("a", fake(t, "echo")), askEdits)
	h.wait("a ready", stateIs("a", control.StateReady))
	e := config.Entry{Name: "b", Command: testBin(t), Env: []config.Var{{Key: "MCPTRAY_FAKE_SERVER", Value: "echo"}, {Key: "GORACE", Value: "atexit_sleep_ms=0"}}}
	if _, err := h.core.AddServer(e, false); err != nil {
		t.Fatal(err)
	}
	h.wait("b ready", stateIs("a", control.StateReady, "b", control.StateReady))
	got, err := h.core.ServerEntry("b")
	if err != nil || !entriesEqual(got, e) {
		t.Errorf("ServerEntry: %+v %v", got, err)
	}
	if secrets, err := h.core.RemoveServer("b"); err != nil || len(secrets) != 0 {
		t.Fatal(secrets, err)
	}
	h.wait("b gone", func(st control.Status) bool { _, ok := find(st, "b"); return !ok })
	if _, err := h.core.RemoveServer("b"); !errors.Is(err, ErrNoServer) {
		t.Errorf("second remove: %v", err)
	}
}

func entriesEqual(a, b config.Entry) bool {
	return a.Name == b.Name && a.Command == b.Command && slices.Equal(a.Args, b.Args) && slices.Equal(a.Env, b.Env) &&
		a.Cwd == b.Cwd && a.URL == b.URL && slices.Equal(a.Headers, b.Headers) && a.Disabled == b.Disabled && slices.Equal(a.Kept, b.Kept)
}
