package remote_test

import (
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkit"
)

func TestHoldWindow(t *testing.T) {
	d := newDirs(t, servers())
	in := start(t, d)
	c := dial(t, d)
	if in.core.RaiseWindow(control.WindowPopup, "") {
		t.Fatal("RaiseWindow(popup) with none open = true")
	}
	raise, cancel := c.HoldWindow(control.WindowPopup)
	if !in.core.RaiseWindow(control.WindowPopup, "") {
		t.Fatal("RaiseWindow(popup) with one open = false")
	}
	receive(t, raise, "the raise")
	if in.core.RaiseWindow(control.WindowMain, "") {
		t.Error("RaiseWindow(main) with only a popup = true")
	}
	cancel()
	if _, ok := <-raise; ok {
		t.Error("raise is open after cancel")
	}
	testkit.WaitFor(t, "the popup unregistered", func() bool { return !in.core.RaiseWindow(control.WindowPopup, "") })

	bad, cancel := c.HoldWindow("sidebar")
	defer cancel()
	if _, ok := <-bad; ok {
		t.Error("HoldWindow(sidebar) gave a channel that is open")
	}
}
