package loginenv

import (
	"strings"
	"testing"
)

// TestWindowsNoLoginShell: Windows reads no login shell, even when
// MCPTRAY_LOGIN_SHELL asks for it, and says why.
func TestWindowsNoLoginShell(t *testing.T) {
	env := map[string]string{"SHELL": "/usr/bin/bash", OverrideEnv: "on"}
	d := Wanted(func(k string) string { return env[k] })
	if d.Shell != "" || !strings.HasPrefix(d.Why, "Windows: ") {
		t.Errorf("Wanted = %+v, want no shell and a reason naming Windows", d)
	}
}
