package app

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/mcptray/mcptray/app/control"
)

func TestControlAPI(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")))
	h.wait("ready", stateIs("a", control.StateReady))
	ctx := context.Background()
	cl, err := control.Dial(h.data)
	if err != nil {
		t.Fatal(err)
	}
	st, err := cl.Status(ctx)
	if err != nil || len(st.Servers) != 1 || st.Servers[0].Name != "a" {
		t.Fatalf("Status = %+v, %v", st, err)
	}
	if err := cl.Restart(ctx, "nope"); !errors.Is(err, ErrNoServer) {
		t.Errorf("Restart(nope) = %v, want ErrNoServer", err)
	}
	if err := cl.SetEnabled(ctx, "a", false); err != nil {
		t.Fatal(err)
	}
	h.wait("disabled", stateIs("a", control.StateDisabled))
	if err := cl.SetEnabled(ctx, "nope", false); err == nil {
		t.Error("SetEnabled(nope) succeeded")
	}
	fi, err := os.Stat(control.SocketPath(h.data))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}
