package ui

import (
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/assets"
)

// fakeTrayHost records what the tray sets.
type fakeTrayHost struct {
	menus []trayMenu
	icons []fyne.Resource
}

func (h *fakeTrayHost) setMenu(m trayMenu)      { h.menus = append(h.menus, m) }
func (h *fakeTrayHost) setIcon(r fyne.Resource) { h.icons = append(h.icons, r) }

func (h *fakeTrayHost) last() trayMenu { return h.menus[len(h.menus)-1] }

// item finds the menu item whose label starts with prefix.
func item(t *testing.T, m trayMenu, prefix string) *fyne.MenuItem {
	t.Helper()
	for _, it := range m.Items {
		if strings.HasPrefix(it.Label, prefix) {
			return it
		}
	}
	t.Fatalf("no tray item starts with %q in\n%s", prefix, menuText(m))
	return nil
}

// fourServers: two running, one in error, one off.
func fourServers() control.Status {
	st := twoServers()
	st.Servers = append(st.Servers,
		control.ServerStatus{Name: "ssh", Enabled: true, State: control.StateReady, Tools: 16},
		control.ServerStatus{Name: "calendar", Enabled: true, State: control.StateCrashLoop,
			Error: "exited with code 3: panic: boom\ngoroutine 1 [running]:"})
	return st
}

func newTestTray(t *testing.T, c Core) (*tray, *fakeTrayHost, *[]string, *[]string) {
	t.Helper()
	failOnThreadErrors(t)
	test.NewTempApp(t)
	host := &fakeTrayHost{}
	var opened, errs []string
	tr := newTray(host, c, func(tab string) { opened = append(opened, tab) }, func() { opened = append(opened, "quit") },
		func(err error) { errs = append(errs, err.Error()) })
	return tr, host, &opened, &errs
}

func TestTrayMenu(t *testing.T) {
	tr, host, _, _ := newTestTray(t, &fakeCore{})
	tr.setStatus(fourServers())
	want := `(2 running · 1 error · 1 off)
---
[x] notes — ready
[ ] gmail — disabled
[x] ssh — ready
[x] calendar — crash-loop: exited with code 3: panic: boom …
---
Inbox (0)…
Events…
Open mcptray…
---
Quit
`
	if got := menuText(host.last()); got != want {
		t.Errorf("tray menu:\n%s\nwant:\n%s", got, want)
	}
	if q := host.last().Items[len(host.last().Items)-1]; !q.IsQuit {
		t.Error("the last item is not marked IsQuit: Fyne would add a second Quit")
	}
}

func TestTrayMenuCountsInboxAndEvents(t *testing.T) {
	tr, host, _, _ := newTestTray(t, &fakeCore{})
	tr.setStatus(fourServers())
	tr.setInbox(map[string]int{"notes": 2})
	tr.setUnread(3)
	m := host.last()
	for _, want := range []string{"1 running · 1 waiting for input · 1 error · 1 off", "notes — waiting for input", "Inbox (2)…", "Events (3 new)…"} {
		if !strings.Contains(menuText(m), want) {
			t.Errorf("tray menu lacks %q:\n%s", want, menuText(m))
		}
	}
}

func TestTrayWaitingInputState(t *testing.T) {
	st := twoServers()
	st.Servers[1].Enabled, st.Servers[1].State = true, control.StateWaitingInput
	if got := serverLabel(st.Servers[1], 0); got != "gmail — waiting for input" {
		t.Errorf("label %q", got)
	}
	if got := summary(st, nil); got != "1 running · 1 waiting for input" {
		t.Errorf("summary %q", got)
	}
}

func TestTraySummary(t *testing.T) {
	st := control.Status{ConfigError: "mcp.json:1:1: bad"}
	if got := summary(st, nil); got != "No servers · config error" {
		t.Errorf("summary = %q", got)
	}
	if got := summary(control.Status{}, nil); got != "No servers configured" {
		t.Errorf("summary = %q", got)
	}
	st = fourServers()
	st.Servers[2].State = control.StateError
	st.Servers[0].State = control.StateStarting
	st.ConfigError = "bad"
	if got, want := summary(st, nil), "0 running · 1 starting · 2 errors · 1 off · config error"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}

func TestTrayClickTogglesServer(t *testing.T) {
	var calls []call
	c := &fakeCore{setEnabled: func(name string, on bool) error {
		calls = append(calls, call{name, on})
		if name == "gmail" {
			return errors.New("writing mcp.json: read-only file system")
		}
		return nil
	}}
	tr, host, _, errs := newTestTray(t, c)
	tr.setStatus(fourServers())
	item(t, host.last(), "notes —").Action()
	item(t, host.last(), "gmail —").Action()
	if len(calls) != 2 || calls[0] != (call{"notes", false}) || calls[1] != (call{"gmail", true}) {
		t.Errorf("SetEnabled calls = %v, want notes off then gmail on", calls)
	}
	want := "turning gmail on: writing mcp.json: read-only file system"
	if len(*errs) != 1 || (*errs)[0] != want {
		t.Errorf("errors shown = %q, want [%q]", *errs, want)
	}
}

func TestTrayItemsOpenTheWindow(t *testing.T) {
	tr, host, opened, _ := newTestTray(t, &fakeCore{})
	tr.setStatus(twoServers())
	for _, prefix := range []string{"Inbox", "Events", "Open mcptray", "Quit"} {
		item(t, host.last(), prefix).Action()
	}
	if got := strings.Join(*opened, ","); got != "Inbox,Events,Servers,quit" {
		t.Errorf("opened %s, want Inbox,Events,Servers,quit", got)
	}
}

func TestTrayIconStates(t *testing.T) {
	tr, host, _, _ := newTestTray(t, &fakeCore{})
	tr.setStatus(twoServers())
	tr.setStatus(twoServers()) // unchanged: nothing set again
	if len(host.menus) != 1 || len(host.icons) != 1 || host.icons[0] != assets.Icon {
		t.Fatalf("after two equal statuses: %d menus, icons %v; want 1 menu and the normal icon", len(host.menus), host.icons)
	}
	tr.setStatus(fourServers())
	if got := host.icons[len(host.icons)-1]; got != assets.IconError {
		t.Errorf("icon with a crash-looping server = %s, want %s", got.Name(), assets.IconError.Name())
	}
	tr.setInbox(map[string]int{"ssh": 1})
	if got := host.icons[len(host.icons)-1]; got != assets.IconAttention {
		t.Errorf("icon with a pending request = %s, want %s", got.Name(), assets.IconAttention.Name())
	}
	tr.setInbox(nil)
	bad := twoServers()
	bad.ConfigError = "mcp.json:2:1: bad"
	tr.setStatus(bad)
	if got := host.icons[len(host.icons)-1]; got != assets.IconError {
		t.Errorf("icon with a config error = %s, want %s", got.Name(), assets.IconError.Name())
	}
	off := fourServers()
	off.Servers[3].Enabled, off.Servers[3].State = false, control.StateDisabled
	tr.setStatus(off)
	if got := host.icons[len(host.icons)-1]; got != assets.Icon {
		t.Errorf("icon once the failing server is off = %s, want %s", got.Name(), assets.Icon.Name())
	}
	off.Servers = append(off.Servers, control.ServerStatus{Name: "new", Enabled: true, State: control.StateNeedsApproval})
	tr.setStatus(off)
	if got := host.icons[len(host.icons)-1]; got != assets.IconAttention {
		t.Errorf("icon with an entry waiting for approval = %s, want %s", got.Name(), assets.IconAttention.Name())
	}
	if m := menuText(host.last()); !strings.Contains(m, "1 waiting for your approval") || !strings.Contains(m, "new — waiting for your approval") {
		t.Errorf("menu:\n%s", m)
	}
}

func TestShorten(t *testing.T) {
	for in, want := range map[string]string{
		"short":                 "short",
		"two\nlines":            "two …",
		strings.Repeat("é", 70): strings.Repeat("é", 59) + "…",
	} {
		if got := shorten(in, 60); got != want {
			t.Errorf("shorten(%q) = %q, want %q", in, got, want)
		}
	}
}
