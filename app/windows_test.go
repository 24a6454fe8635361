package app

import (
	"context"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkit"
)

// TestRaiseWindow: a window another process holds over the control socket
// is raised, and the tray starts none; once it closes, RaiseWindow says
// there is none.
func TestRaiseWindow(t *testing.T) {
	h := startCore(t, servers())
	if h.core.RaiseWindow(control.WindowMain, "") {
		t.Fatal("RaiseWindow(main) with no window = true")
	}
	var cl *control.Client
	testkit.WaitFor(t, "the control socket", func() bool {
		var err error
		cl, err = control.Dial(h.data)
		return err == nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	raise, err := cl.HoldWindow(ctx, control.WindowMain)
	if err != nil {
		t.Fatal(err)
	}
	if !h.core.RaiseWindow(control.WindowMain, "") {
		t.Fatal("RaiseWindow(main) with one open = false")
	}
	<-raise
	if h.core.RaiseWindow(control.WindowPopup, "") {
		t.Error("RaiseWindow(popup) with only a main window = true")
	}
	cancel()
	for range raise {
	}
	testkit.WaitFor(t, "the window unregistered", func() bool { return !h.core.RaiseWindow(control.WindowMain, "") })
}
