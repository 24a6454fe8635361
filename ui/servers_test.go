package ui

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app"
)

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
	if b, ok := r.Objects[col].(*stateBadge); ok {
		return b.State
	}
	return r.Objects[col].(*widget.Label).Text
}

func TestServersListShowsServers(t *testing.T) {
	st := twoServers()
	st.Servers = append(st.Servers, app.ServerStatus{
		Name: "broken", Enabled: true, State: app.StateError, Restarts: 5,
		Error: `unset variable ${env:NOTES_KEY}`,
	})
	_, w, _ := showMain(t, &fakeCore{}, st)

	for _, want := range []struct {
		name, state, pid, up, tools, restarts, err string
		enabled                                    bool
	}{
		{"notes", "ready", "4242", "2h 5m", "7", "1", "", true},
		{"gmail", "disabled", "", "", "", "0", "", false},
		{"broken", "error", "", "", "", "5", "unset variable ${env:NOTES_KEY}", true},
	} {
		r := row(t, w, want.name)
		got := [6]string{cell(r, colState), cell(r, colPID), cell(r, colUptime), cell(r, colTools), cell(r, colRestarts), cell(r, colError)}
		if got != [6]string{want.state, want.pid, want.up, want.tools, want.restarts, want.err} {
			t.Errorf("%s row = %q, want state %q pid %q uptime %q tools %q restarts %q error %q",
				want.name, got, want.state, want.pid, want.up, want.tools, want.restarts, want.err)
		}
		if c := r.Objects[colEnabled].(*widget.Check); c.Checked != want.enabled {
			t.Errorf("%s check = %v, want %v", want.name, c.Checked, want.enabled)
		}
	}
}

func TestUptime(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second:                   "0s",
		45 * time.Second:               "45s",
		12*time.Minute + 3*time.Second: "12m",
		3*time.Hour + 12*time.Minute:   "3h 12m",
		50 * time.Hour:                 "2d 2h",
	} {
		if got := uptime(d); got != want {
			t.Errorf("uptime(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestServersListFollowsStatus(t *testing.T) {
	m, w, _ := showMain(t, &fakeCore{}, twoServers())
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
	_, w, rec := showMain(t, c, twoServers())

	test.Tap(row(t, w, "notes").Objects[colEnabled].(*widget.Check))
	test.Tap(row(t, w, "gmail").Objects[colEnabled].(*widget.Check))

	want := []call{{"notes", false}, {"gmail", true}}
	if len(calls) != len(want) || calls[0] != want[0] || calls[1] != want[1] {
		t.Errorf("SetEnabled calls = %v, want %v", calls, want)
	}
	if len(rec.errors) > 0 {
		t.Errorf("errors shown: %q", rec.errors)
	}
}

func TestStatusUpdateDoesNotCallSetEnabled(t *testing.T) {
	c := &fakeCore{setEnabled: func(name string, enabled bool) error {
		t.Errorf("SetEnabled(%q, %v) called by a status update", name, enabled)
		return nil
	}}
	m, _, _ := showMain(t, c, twoServers())
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
	_, w, rec := showMain(t, c, twoServers())

	test.Tap(row(t, w, "notes").Objects[colEnabled].(*widget.Check))

	want := "turning notes off: writing mcp.json: permission denied"
	if len(rec.errors) != 1 || rec.errors[0] != want {
		t.Errorf("errors shown = %q, want [%q]", rec.errors, want)
	}
	if !row(t, w, "notes").Objects[colEnabled].(*widget.Check).Checked {
		t.Error("notes check stays off after SetEnabled failed; want it back on")
	}
}

func TestRestartRestartsTheSelectedServer(t *testing.T) {
	var restarted []string
	c := &fakeCore{restart: func(name string) error {
		restarted = append(restarted, name)
		if name == "gmail" {
			return errors.New(`no such server: "gmail"`)
		}
		return nil
	}}
	m, _, rec := showMain(t, c, twoServers())
	if m.servers.selected != "notes" {
		t.Fatalf("selected %q at start, want the first server, notes", m.servers.selected)
	}
	test.Tap(m.servers.restart)
	m.servers.list.Select(1)
	test.Tap(m.servers.restart)
	if strings.Join(restarted, ",") != "notes,gmail" {
		t.Errorf("Restart calls = %q, want notes then gmail", restarted)
	}
	want := `restarting gmail: no such server: "gmail"`
	if len(rec.errors) != 1 || rec.errors[0] != want {
		t.Errorf("errors shown = %q, want [%q]", rec.errors, want)
	}
}

// followed is one FollowLog call of a fake core.
type followed struct {
	name  string
	ended chan struct{} // closed when its ctx ended
}

func TestLogPaneFollowsTheSelectedServer(t *testing.T) {
	calls := make(chan followed, 10)
	c := &fakeCore{followLog: func(ctx context.Context, name string, w io.Writer) error {
		f := followed{name, make(chan struct{})}
		calls <- f
		<-ctx.Done()
		close(f.ended)
		return nil
	}}
	m, _, _ := showMain(t, c, twoServers())
	next := func(want string) followed {
		t.Helper()
		select {
		case f := <-calls:
			if f.name != want {
				t.Fatalf("FollowLog(%q), want %q", f.name, want)
			}
			return f
		case <-time.After(10 * time.Second):
			t.Fatalf("no FollowLog(%q) within 10s", want)
		}
		return followed{}
	}
	ended := func(f followed) {
		t.Helper()
		select {
		case <-f.ended:
		case <-time.After(10 * time.Second):
			t.Fatalf("FollowLog(%q) still runs", f.name)
		}
	}
	notes := next("notes")
	if got := m.servers.title.Text; got != "Log of notes" {
		t.Errorf("log title %q, want \"Log of notes\"", got)
	}
	m.servers.list.Select(1)
	gmail := next("gmail")
	ended(notes)
	m.servers.list.Select(1) // the same server again: no new follower
	m.close()
	ended(gmail)
	select {
	case f := <-calls:
		t.Errorf("unexpected FollowLog(%q)", f.name)
	default:
	}
}

func TestLogPaneAppend(t *testing.T) {
	test.NewTempApp(t)
	p := newLogPane(&fakeCore{})
	p.append("2026-07-03T12:00:00Z [lifecycle] starting\n2026-07-03T12:00:01Z [std")
	p.append("err] hello\r\nno newline yet")
	want := "2026-07-03T12:00:00Z [lifecycle] starting\n2026-07-03T12:00:01Z [stderr] hello\nno newline yet"
	if got := p.text(); got != want {
		t.Errorf("pane text = %q, want %q", got, want)
	}
	p.append(strings.Repeat("x\n", maxLogLines+10))
	if n := p.count(); n != maxLogLines || p.line(0) != "x" {
		t.Errorf("pane holds %d lines, first %q; want the last %d", n, p.line(0), maxLogLines)
	}
}
