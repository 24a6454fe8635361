package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/assets"
)

// A remote server that waits for a sign-in: its tray item says "Sign
// in…" and a click asks in the inbox (never a toggle); the header counts
// it and the icon asks for attention.
func TestTraySignIn(t *testing.T) {
	var asked []string
	toggled := 0
	c := &fakeCore{
		askSignIn:  func(name string) error { asked = append(asked, name); return nil },
		setEnabled: func(string, bool) error { toggled++; return nil },
	}
	tr, host, _, errs := newTestTray(t, c)
	st := twoServers()
	st.Servers = append(st.Servers, control.ServerStatus{Name: "linear", Type: "http", Enabled: true, State: control.StateNeedsSignIn,
		SignIn: &control.SignInStatus{IssuerHost: "mcp.linear.app"}})
	tr.setStatus(st)
	m := menuText(host.last())
	if !strings.Contains(m, "linear — Sign in…") || !strings.Contains(m, "1 waiting for you to sign in") {
		t.Errorf("menu:\n%s", m)
	}
	if got := host.icons[len(host.icons)-1]; got != assets.IconAttention {
		t.Errorf("icon = %s, want %s", got.Name(), assets.IconAttention.Name())
	}
	item(t, host.last(), "linear —").Action()
	if len(asked) != 1 || asked[0] != "linear" || toggled != 0 || len(*errs) != 0 {
		t.Errorf("asked %v, toggled %d, errors %v", asked, toggled, *errs)
	}
}

// The Servers tab shows Sign in… for a selected server that waits for a
// sign-in, and only then; a tap asks in the inbox.
func TestServersSignInButton(t *testing.T) {
	var asked []string
	c := &fakeCore{askSignIn: func(name string) error { asked = append(asked, name); return nil }}
	st := twoServers()
	st.Servers[1].Type, st.Servers[1].State = "http", control.StateNeedsSignIn
	st.Servers[1].SignIn = &control.SignInStatus{IssuerHost: "mcp.linear.app"}
	m, _, _ := showMain(t, c, st)
	if m.servers.signIn.Visible() {
		t.Errorf("Sign in… shows for %s (%s)", m.servers.selected, st.Servers[0].State)
	}
	m.servers.list.Select(1)
	if !m.servers.signIn.Visible() {
		t.Fatalf("no Sign in… for %s", m.servers.selected)
	}
	test.Tap(m.servers.signIn)
	if len(asked) != 1 || asked[0] != st.Servers[1].Name {
		t.Errorf("asked %v", asked)
	}
}
