package cli

import (
	"testing"

	"github.com/mcptray/mcptray/app/control"
)

// TestStartedUp: start-up has settled once mcp.json's servers are there
// and none is starting or restarting, whatever else they are doing.
func TestStartedUp(t *testing.T) {
	status := func(states ...string) control.Status {
		var st control.Status
		for _, s := range states {
			st.Servers = append(st.Servers, control.ServerStatus{State: s})
		}
		return st
	}
	for _, c := range []struct {
		st   control.Status
		want bool
	}{
		{status(), false}, // mcp.json not applied yet
		{status(control.StateReady, control.StateStarting), false},
		{status(control.StateReady, control.StateRestarting), false},
		{status(control.StateReady, control.StateError, control.StateNeedsApproval, control.StateWaitingInput, control.StateDisabled), true},
	} {
		if got := startedUp(c.st); got != c.want {
			t.Errorf("startedUp(%+v) = %v; want %v", c.st.Servers, got, c.want)
		}
	}
}
