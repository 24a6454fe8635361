package app

import (
	"os"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/loginenv"
)

// TestWindowsLoginShellStatus: on Windows the status says the login shell
// is off, and why, in the shape it has everywhere.
func TestWindowsLoginShellStatus(t *testing.T) {
	l := newLoginShell(loginenv.Wanted(os.Getenv), 0)
	vars, st := l.result(false)
	if vars != nil || st.State != control.LoginShellOff || st.Shell != "" || !strings.HasPrefix(st.Detail, "Windows: ") {
		t.Errorf("login shell = %v, %+v; want off, with a detail naming Windows", vars, st)
	}
}
