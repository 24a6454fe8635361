package ui

import (
	"errors"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app"
)

// showMain puts a main screen for c, showing st, in a test window.
func showMain(t *testing.T, c Core, st app.Status, onError func(error)) (*mainScreen, fyne.Window) {
	t.Helper()
	failOnThreadErrors(t)
	test.NewTempApp(t)
	m := newMainScreen(c, onError)
	m.apply(st)
	w := test.NewTempWindow(t, m.root)
	w.Resize(fyne.NewSize(800, 400))
	return m, w
}

// row finds the list row showing server name.
func row(t *testing.T, w fyne.Window, name string) *fyne.Container {
	t.Helper()
	for _, o := range test.LaidOutObjects(w.Canvas().Content()) {
		c, ok := o.(*fyne.Container)
		if !ok || len(c.Objects) != colError+1 {
			continue
		}
		if l, ok := c.Objects[colName].(*widget.Label); ok && l.Text == name {
			return c
		}
	}
	t.Fatalf("no row shows server %q", name)
	return nil
}

func cell(r *fyne.Container, col int) string {
	return r.Objects[col].(*widget.Label).Text
}

func TestServersListShowsServers(t *testing.T) {
	st := twoServers()
	st.Servers = append(st.Servers, app.ServerStatus{
		Name: "broken", Enabled: true, State: app.StateError,
		Error: `unset variable ${env:NOTES_KEY}`,
	})
	_, w := showMain(t, &fakeCore{}, st, func(error) {})

	for _, want := range []struct {
		name, state, pid, tools, err string
		enabled                      bool
	}{
		{"notes", "ready", "4242", "7", "", true},
		{"gmail", "disabled", "", "", "", false},
		{"broken", "error", "", "", "unset variable ${env:NOTES_KEY}", true},
	} {
		r := row(t, w, want.name)
		got := struct{ state, pid, tools, err string }{
			cell(r, colState), cell(r, colPID), cell(r, colTools), cell(r, colError)}
		if got.state != want.state || got.pid != want.pid || got.tools != want.tools || got.err != want.err {
			t.Errorf("%s row = %+v, want state %q pid %q tools %q error %q",
				want.name, got, want.state, want.pid, want.tools, want.err)
		}
		if c := r.Objects[colEnabled].(*widget.Check); c.Checked != want.enabled {
			t.Errorf("%s check = %v, want %v", want.name, c.Checked, want.enabled)
		}
	}
}

func TestServersListFollowsStatus(t *testing.T) {
	m, w := showMain(t, &fakeCore{}, twoServers(), func(error) {})
	st := twoServers()
	st.Servers[1].Enabled = true
	st.Servers[1].State = app.StateStarting
	st.Servers[1].PID = 99
	m.apply(st)
	r := row(t, w, "gmail")
	if cell(r, colState) != "starting" || cell(r, colPID) != "99" || !r.Objects[colEnabled].(*widget.Check).Checked {
		t.Errorf("gmail row after update: state %q pid %q", cell(r, colState), cell(r, colPID))
	}
}

type call struct {
	name    string
	enabled bool
}

func TestTapCheckCallsSetEnabled(t *testing.T) {
	var calls []call
	c := &fakeCore{setEnabled: func(name string, enabled bool) error {
		calls = append(calls, call{name, enabled})
		return nil
	}}
	_, w := showMain(t, c, twoServers(), func(err error) { t.Errorf("unexpected error shown: %v", err) })

	test.Tap(row(t, w, "notes").Objects[colEnabled].(*widget.Check))
	test.Tap(row(t, w, "gmail").Objects[colEnabled].(*widget.Check))

	want := []call{{"notes", false}, {"gmail", true}}
	if len(calls) != len(want) || calls[0] != want[0] || calls[1] != want[1] {
		t.Errorf("SetEnabled calls = %v, want %v", calls, want)
	}
}

func TestStatusUpdateDoesNotCallSetEnabled(t *testing.T) {
	c := &fakeCore{setEnabled: func(name string, enabled bool) error {
		t.Errorf("SetEnabled(%q, %v) called by a status update", name, enabled)
		return nil
	}}
	m, _ := showMain(t, c, twoServers(), func(error) {})
	st := twoServers()
	st.Servers[0].Enabled = false
	st.Servers[1].Enabled = true
	m.apply(st)
	m.apply(twoServers())
}

func TestSetEnabledErrorIsShownAndCheckReverts(t *testing.T) {
	c := &fakeCore{setEnabled: func(string, bool) error {
		return errors.New("writing mcp.json: permission denied")
	}}
	var shown []string
	_, w := showMain(t, c, twoServers(), func(err error) { shown = append(shown, err.Error()) })

	check := row(t, w, "notes").Objects[colEnabled].(*widget.Check)
	test.Tap(check)

	want := "turning notes off: writing mcp.json: permission denied"
	if len(shown) != 1 || shown[0] != want {
		t.Errorf("errors shown = %q, want [%q]", shown, want)
	}
	if !row(t, w, "notes").Objects[colEnabled].(*widget.Check).Checked {
		t.Error("notes check stays off after SetEnabled failed; want it back on")
	}
}
