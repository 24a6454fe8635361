package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/control"
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
	st.Servers = append(st.Servers, control.ServerStatus{
		Name: "broken", Enabled: true, State: control.StateError, Restarts: 5,
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
	st.Servers[1].State = control.StateStarting
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
	if got := m.servers.title.Text; got != "notes" {
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

// listRow is a row of the servers list as laid out: the list's item (the
// tappable row with its highlight) and the server it shows.
type listRow struct {
	item      fyne.Tappable
	highlight *canvas.Rectangle
	name      string
}

// shownObjects is o and what it holds, parents first, through the
// renderers the canvas uses (test.LaidOutObjects makes new ones).
func shownObjects(o fyne.CanvasObject) []fyne.CanvasObject {
	out := []fyne.CanvasObject{o}
	var kids []fyne.CanvasObject
	switch o := o.(type) {
	case fyne.Widget:
		kids = test.WidgetRenderer(o).Objects()
	case *fyne.Container:
		kids = o.Objects
	}
	for _, k := range kids {
		out = append(out, shownObjects(k)...)
	}
	return out
}

// listRows finds the rows of the servers list that are shown.
func listRows(s *serversScreen) []listRow {
	var rows []listRow
	var cur listRow
	for _, o := range shownObjects(s.list) {
		switch o := o.(type) {
		case *canvas.Rectangle:
			if cur.item != nil && cur.highlight == nil {
				cur.highlight = o
			}
		case *fyne.Container:
			if cur.item != nil && len(o.Objects) == colError+1 {
				cur.name = o.Objects[colName].(*widget.Label).Text
				rows = append(rows, cur)
				cur = listRow{}
			}
		case fyne.Tappable:
			if fmt.Sprintf("%T", o) == "*widget.listItem" {
				cur = listRow{item: o}
			}
		}
	}
	return rows
}

// TestSelectionFollowsTheServer: entries added above the selected server
// (and one removed) leave the highlight on its row and the log on it, and
// a click on the row that now holds its old place selects that row's
// server; when the selected server is gone the first is selected.
func TestSelectionFollowsTheServer(t *testing.T) {
	follows := make(chan string, 10)
	c := &fakeCore{followLog: func(ctx context.Context, name string, w io.Writer) error {
		follows <- name
		<-ctx.Done()
		return nil
	}}
	m, _, _ := showMain(t, c, twoServers())
	s := m.servers
	selection := theme.Current().Color(theme.ColorNameSelection, fyne.CurrentApp().Settings().ThemeVariant())
	find := func(name string) listRow {
		t.Helper()
		for _, r := range listRows(s) {
			if r.name == name {
				return r
			}
		}
		t.Fatalf("no row of %q laid out", name)
		return listRow{}
	}
	check := func(want string) {
		t.Helper()
		var lit []string
		for _, r := range listRows(s) {
			if r.highlight.Visible() && r.highlight.FillColor == selection {
				lit = append(lit, r.name)
			}
		}
		if len(lit) != 1 || lit[0] != want {
			t.Errorf("rows highlighted %q, want [%q]", lit, want)
		}
		if got := s.title.Text; got != want || s.tools.server != want {
			t.Errorf("detail of %q (tools of %q), want %q", got, s.tools.server, want)
		}
	}
	test.Tap(find("gmail").item)
	check("gmail")

	st := twoServers()
	st.Servers = append([]control.ServerStatus{
		{Name: "alpha", Enabled: true, State: control.StateReady},
		{Name: "beta", Enabled: true, State: control.StateStarting},
	}, st.Servers...)
	m.apply(st)
	check("gmail")
	test.Tap(find("beta").item) // the row where gmail was
	check("beta")

	st.Servers = st.Servers[1:] // alpha removed above beta
	m.apply(st)
	check("beta")
	test.Tap(find("notes").item)
	check("notes")
	st.Servers = slices.DeleteFunc(st.Servers, func(x control.ServerStatus) bool { return x.Name == "notes" })
	m.apply(st)
	check("beta") // notes gone: the first

	want := []string{"notes", "gmail", "beta", "notes", "beta"}
	var seen []string
	for range want {
		select {
		case f := <-follows:
			seen = append(seen, f)
		case <-time.After(10 * time.Second):
			t.Fatalf("logs followed %q; want %q", seen, want)
		}
	}
	if !slices.Equal(seen, want) {
		t.Errorf("logs followed %q, want %q", seen, want)
	}
}

// TestWholeErrorOfTheSelectedServer: the row cuts a long error to its
// first line and the column; selecting the server shows all of it,
// wrapped, above its log — and follows the status.
func TestWholeErrorOfTheSelectedServer(t *testing.T) {
	long := "exited with code 1 before initialize: Error: Cannot find module '/home/me/.npm/_npx/3f2a/node_modules/@acme/notes-mcp/dist/index.js' imported from /home/me/notes/run.js"
	st := twoServers()
	st.Servers = append(st.Servers, control.ServerStatus{Name: "broken", Enabled: true, State: control.StateError,
		Error: long + "\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)"})
	m, w, _ := showMain(t, &fakeCore{}, st)
	s := m.servers
	if s.errText.Visible() {
		t.Errorf("an error shown for notes, which has none: %q", s.errText.Text)
	}
	r := row(t, w, "broken")
	if got := cell(r, colError); got != long {
		t.Errorf("the row's error %q, want its first line", got)
	}
	if l := r.Objects[colError].(*widget.Label); l.Truncation != fyne.TextTruncateEllipsis {
		t.Error("the row's error is not cut to its column")
	}
	for _, r := range listRows(s) {
		if r.name == "broken" {
			test.Tap(r.item)
		}
	}
	want := strings.TrimSpace(st.Servers[2].Error)
	if !s.errText.Visible() || s.errText.Text != want || s.errText.Wrapping != fyne.TextWrapWord {
		t.Errorf("selected: error shown %v, %q (wrapping %v); want all of it, wrapped", s.errText.Visible(), s.errText.Text, s.errText.Wrapping)
	}
	if got := s.errText.Size().Width; got > w.Canvas().Size().Width {
		t.Errorf("the whole error is %v wide, wider than the window (%v)", got, w.Canvas().Size().Width)
	}

	// A failed start's stderr lines show under its error.
	st.Servers[2].StderrTail = []string{"Error: Cannot find module 'x'", "    at Module._load (node:internal/modules/cjs/loader:1038:27)", "Node.js v20.20.2"}
	m.apply(st)
	if want := want + "\n\nIts last words on stderr:\n" + strings.Join(st.Servers[2].StderrTail, "\n"); s.errText.Text != want {
		t.Errorf("with stderrTail the error shown is %q, want %q", s.errText.Text, want)
	}
	st.Servers[2].StderrTail = nil
	st.Servers[2].Error = "exited with code 2"
	m.apply(st)
	if s.errText.Text != "exited with code 2" {
		t.Errorf("after a new status the error shown is %q", s.errText.Text)
	}
	st.Servers[2].Error, st.Servers[2].State = "", control.StateReady
	m.apply(st)
	if s.errText.Visible() {
		t.Errorf("the error still shown once it is gone: %q", s.errText.Text)
	}
}

// TestLogPaneShowsALongLineWhole: a long log line is cut in its row; a
// click on it shows it whole, wrapped and selectable, until closed or
// another server's log is shown.
func TestLogPaneShowsALongLineWhole(t *testing.T) {
	m, w, _ := showMain(t, &fakeCore{}, twoServers())
	p := m.servers.log
	long := "2026-07-03T09:55:00.000Z [stderr] " + strings.Repeat("a very long line of a server's stderr ", 8) + "END"
	p.append("short\n" + long + "\n")
	if p.wholeBx.Visible() {
		t.Fatal("a whole line shown before any click")
	}
	p.list.Select(1)
	if !p.wholeBx.Visible() || p.whole.Text != long || p.whole.Wrapping != fyne.TextWrapBreak || !p.whole.Selectable {
		t.Fatalf("after a click: shown %v, %q; want the whole line, wrapped and selectable", p.wholeBx.Visible(), p.whole.Text)
	}
	if got := p.whole.Size().Width; got > w.Canvas().Size().Width {
		t.Errorf("the whole line is %v wide, wider than the window (%v)", got, w.Canvas().Size().Width)
	}
	test.Tap(button(t, p.wholeBx, ""))
	if p.wholeBx.Visible() {
		t.Error("the whole line still shown after its close button")
	}
	p.list.Select(0)
	if p.whole.Text != "short" {
		t.Errorf("whole line %q after clicking the first", p.whole.Text)
	}
	m.servers.list.Select(1)
	if p.wholeBx.Visible() {
		t.Error("the whole line of notes' log still shown with gmail's log")
	}
}
