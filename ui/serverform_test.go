package ui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
)

// addCalls records a fake core's AddServer calls and answers each with
// refuse (nil: written).
type addCalls struct {
	entries []config.Entry
	replace []bool
	refuse  error
	tried   int // calls, refused ones included
}

func (a *addCalls) add(e config.Entry, replace bool) (config.AddResult, error) {
	a.tried++
	if a.refuse != nil {
		return config.AddResult{}, a.refuse
	}
	a.entries = append(a.entries, e)
	a.replace = append(a.replace, replace)
	return config.AddResult{}, nil
}

// serversWithForm is a main screen on c whose Servers tab opens its
// dialogs over the test window.
func serversWithForm(t *testing.T, c *fakeCore) (*serversScreen, fyne.Window, *recorded) {
	t.Helper()
	m, w, rec := showMain(t, c, twoServers())
	m.servers.win = func() fyne.Window { return w }
	return m.servers, w, rec
}

func entryEqual(a, b config.Entry) bool {
	return a.Name == b.Name && a.Command == b.Command && slices.Equal(a.Args, b.Args) && slices.Equal(a.Env, b.Env) &&
		a.Cwd == b.Cwd && a.URL == b.URL && slices.Equal(a.Headers, b.Headers) && a.Disabled == b.Disabled
}

// Add server…: the form's entry goes to the core (arguments one per
// line, a secret variable marked so), the dialog closes and the typed
// secret is gone from the form; the new server is selected when its row
// comes.
func TestServerFormAdd(t *testing.T) {
	calls := &addCalls{}
	s, w, rec := serversWithForm(t, &fakeCore{addServer: calls.add})
	test.Tap(button(t, s.root, "Add server…"))
	f, top := s.form, w.Canvas().Overlays().Top()
	if f == nil || top == nil {
		t.Fatal("Add server… opened no form")
	}
	if f.http.Visible() || !f.stdio.Visible() || f.kind.Selected != kindStdio {
		t.Error("the form does not start on a command (stdio)")
	}
	if w.Canvas().Focused() != f.name || f.args.AcceptsTab() {
		t.Error("the name does not have the focus, or Tab does not leave the arguments")
	}
	test.Type(f.name, "github")
	test.Type(f.command, "npx")
	f.args.SetText("-y\n@modelcontextprotocol/server-github\n\n--title=My Repos\n")
	test.Type(f.cwd, "~/src")
	test.Tap(button(t, f.root, "Add variable"))
	test.Tap(button(t, f.root, "Add variable"))
	test.Tap(button(t, f.root, "Add variable")) // left empty: skipped
	token, host := f.env.rows[0], f.env.rows[1]
	test.Type(token.key, "GITHUB_TOKEN")
	test.Tap(token.secret)
	if !token.value.Password {
		t.Error("a Secret value is not masked")
	}
	test.Type(token.value, "ghp_typed")
	test.Type(host.key, "GITHUB_HOST")
	test.Type(host.value, "github.example.com")
	test.Tap(f.disabled)
	test.Tap(button(t, top, "Add"))

	want := config.Entry{Name: "github", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github", "--title=My Repos"}, Cwd: "~/src",
		Env: []config.Var{{Key: "GITHUB_TOKEN", Value: "ghp_typed", Secret: true}, {Key: "GITHUB_HOST", Value: "github.example.com"}}, Disabled: true}
	if len(calls.entries) != 1 || !entryEqual(calls.entries[0], want) || calls.replace[0] {
		t.Fatalf("the core got %+v (replace %v), want %+v", calls.entries, calls.replace, want)
	}
	if w.Canvas().Overlays().Top() != nil || s.form != nil {
		t.Error("the form stays open after Add")
	}
	if token.value.Text != "" {
		t.Error("the secret typed is still in the form")
	}
	if len(rec.errors) != 0 {
		t.Errorf("errors: %q", rec.errors)
	}
	st := twoServers()
	st.Servers = append(st.Servers, control.ServerStatus{Name: "github", State: control.StateDisabled})
	s.setServers(st.Servers)
	if s.selected != "github" {
		t.Errorf("selected %q after the new server came, want github", s.selected)
	}
}

// A refused entry keeps the form open, shows the reason under its field
// (or under the form), and the core wrote nothing; what the form itself
// can tell is wrong never reaches the core.
func TestServerFormRefusals(t *testing.T) {
	calls := &addCalls{}
	s, w, _ := serversWithForm(t, &fakeCore{addServer: calls.add})
	test.Tap(button(t, s.root, "Add server…"))
	f, top := s.form, w.Canvas().Overlays().Top()
	save := button(t, top, "Add")
	shown := func(key string) string {
		t.Helper()
		l := f.formErr
		if key != "" {
			l = f.errs[key]
		}
		if !l.Visible() {
			return ""
		}
		return l.Text
	}

	test.Tap(save)
	if got := shown("command"); got != "the command is empty" || calls.tried != 0 {
		t.Errorf("empty form: %q under the command, %d calls", got, calls.tried)
	}

	test.Type(f.name, "web")
	f.kind.SetSelected(kindHTTP)
	if !f.http.Visible() || f.stdio.Visible() {
		t.Error("URL (http) does not show the http fields")
	}
	test.Type(f.url, "ftp://files.example.com/mcp")
	test.Tap(button(t, f.root, "Add header"))
	test.Type(f.headers.rows[0].value, "orphan")
	test.Tap(save)
	if got := shown("headers"); got != "a header has a value but no name" || calls.tried != 0 || shown("command") != "" {
		t.Errorf("a header without a name: %q, %d calls", got, calls.tried)
	}
	test.Type(f.headers.rows[0].key, "X-Team")

	calls.refuse = &config.EntryError{Field: "url", Reason: `web: "url" must start with http:// or https://`}
	test.Tap(save)
	if got := shown("url"); got != `"url" must start with http:// or https://` || shown("headers") != "" {
		t.Errorf("refused URL: %q under the URL", got)
	}
	calls.refuse = &config.EntryError{Field: "headers.X-Team", Reason: "web: headers.X-Team contains a line break or a NUL byte"}
	test.Tap(save)
	if got := shown("headers"); got != "headers.X-Team contains a line break or a NUL byte" || shown("url") != "" {
		t.Errorf("refused header: %q under the headers", got)
	}
	calls.refuse = &config.EntryError{Field: "name", Reason: "web: a server of that name exists"}
	test.Tap(save)
	if got := shown("name"); got != "a server of that name exists" {
		t.Errorf("a taken name: %q under the name", got)
	}
	calls.refuse = errors.New("writing mcp.json: permission denied")
	test.Tap(save)
	if got := shown(""); got != calls.refuse.Error() {
		t.Errorf("a write failure: %q under the form", got)
	}
	if len(calls.entries) != 0 || w.Canvas().Overlays().Top() != top {
		t.Errorf("after refusals: %d written, the form open: %v", len(calls.entries), w.Canvas().Overlays().Top() == top)
	}
	calls.refuse = nil
	f.url.SetText("https://mcp.example.com/mcp")
	test.Tap(save)
	want := config.Entry{Name: "web", URL: "https://mcp.example.com/mcp", Headers: []config.Var{{Key: "X-Team", Value: "orphan"}}}
	if len(calls.entries) != 1 || !entryEqual(calls.entries[0], want) {
		t.Errorf("the core got %+v, want %+v", calls.entries, want)
	}
}

// notesEntry is an entry as written, with a secret in the keyring and a
// key the form does not show.
func notesEntry() config.Entry {
	return config.Entry{Name: "notes", Command: "uvx", Args: []string{"notes-mcp", "--dir", "/my notes"}, Cwd: "~/notes",
		Env:  []config.Var{{Key: "TOKEN", Value: "${keyring:notes-TOKEN}"}, {Key: "LEVEL", Value: "debug"}},
		Kept: []string{"envFile", "x-mcptray"}}
}

// Edit: the form shows the entry as written, a ${keyring:…} value as a
// secret in the keyring (never its value), and keeps it unless a new
// value is typed; the name is fixed and the entry replaced in place.
func TestServerFormEdit(t *testing.T) {
	calls := &addCalls{}
	s, w, rec := serversWithForm(t, &fakeCore{addServer: calls.add, serverEntry: func(name string) (config.Entry, error) {
		if name != "notes" {
			return config.Entry{}, errors.New("no such server")
		}
		return notesEntry(), nil
	}})
	if s.selected != "notes" {
		t.Fatalf("selected %q", s.selected)
	}
	test.Tap(button(t, s.root, "Edit"))
	f, top := s.form, w.Canvas().Overlays().Top()
	if f == nil || top == nil {
		t.Fatal("Edit opened no form")
	}
	token := f.env.rows[0]
	switch {
	case f.name.Text != "notes" || !f.name.Disabled():
		t.Errorf("name %q, disabled %v", f.name.Text, f.name.Disabled())
	case f.command.Text != "uvx" || f.args.Text != "notes-mcp\n--dir\n/my notes" || f.cwd.Text != "~/notes":
		t.Errorf("command %q, args %q, cwd %q", f.command.Text, f.args.Text, f.cwd.Text)
	case !token.secret.Checked || token.value.Text != "" || !token.value.Password || token.value.PlaceHolder != keyringPlaceholder:
		t.Errorf("the kept secret shows as %q (placeholder %q, secret %v)", token.value.Text, token.value.PlaceHolder, token.secret.Checked)
	case f.env.rows[1].value.Text != "debug" || f.env.rows[1].secret.Checked:
		t.Errorf("LEVEL shows as %q", f.env.rows[1].value.Text)
	case f.kept.Text != "Kept as they are in mcp.json: envFile, x-mcptray." || !f.kept.Visible() || f.disabled.Visible():
		t.Errorf("kept %q", f.kept.Text)
	}
	assertMarkup(t, "server-form-edit.xml", w.Canvas())

	test.Tap(button(t, top, "Save"))
	want := notesEntry()
	if len(calls.entries) != 1 || !entryEqual(calls.entries[0], want) || !calls.replace[0] {
		t.Fatalf("unchanged save: the core got %+v (replace %v), want %+v", calls.entries, calls.replace, want)
	}

	// A value typed in its place replaces the secret.
	test.Tap(button(t, s.root, "Edit"))
	f, top = s.form, w.Canvas().Overlays().Top()
	test.Type(f.env.rows[0].value, "new-token")
	f.env.remove(f.env.rows[1])
	test.Tap(button(t, top, "Save"))
	want.Env = []config.Var{{Key: "TOKEN", Value: "new-token", Secret: true}}
	if len(calls.entries) != 2 || !entryEqual(calls.entries[1], want) {
		t.Errorf("replaced secret: the core got %+v, want %+v", calls.entries[1:], want)
	}

	// An entry the form cannot show says why.
	s.show("gmail")
	test.Tap(button(t, s.root, "Edit"))
	if len(rec.errors) != 1 || rec.errors[0] != "editing gmail: no such server" {
		t.Errorf("errors %q", rec.errors)
	}
}

// Remove asks first, then takes the entry out and names the secrets it
// used, which stay in the keyring; a failure is shown.
func TestServersRemove(t *testing.T) {
	var removed []string
	fail := error(nil)
	s, w, rec := serversWithForm(t, &fakeCore{removeServer: func(name string) ([]string, error) {
		if fail != nil {
			return nil, fail
		}
		removed = append(removed, name)
		return []string{"notes-TOKEN"}, nil
	}})
	test.Tap(button(t, s.root, "Remove"))
	top := w.Canvas().Overlays().Top()
	if top == nil || len(removed) != 0 {
		t.Fatalf("Remove asked nothing (removed %q)", removed)
	}
	test.Tap(button(t, top, "No"))
	if len(removed) != 0 {
		t.Fatal("No removed it")
	}
	test.Tap(button(t, s.root, "Remove"))
	test.Tap(button(t, w.Canvas().Overlays().Top(), "Remove"))
	if !slices.Equal(removed, []string{"notes"}) {
		t.Fatalf("removed %q", removed)
	}
	info := w.Canvas().Overlays().Top()
	if info == nil || !strings.Contains(labelsText(info), "It used ${keyring:notes-TOKEN}, which stays in the keyring") {
		t.Errorf("after Remove: %v", info)
	}
	fail = errors.New("no such server")
	s.removeServer("notes")
	if len(rec.errors) != 1 || rec.errors[0] != "removing notes: no such server" {
		t.Errorf("errors %q", rec.errors)
	}
}

// The Add form, golden: every field, a kept secret and a typed one.
func TestGoldenServerForm(t *testing.T) {
	s, w, _ := serversWithForm(t, &fakeCore{})
	test.Tap(button(t, s.root, "Add server…"))
	f := s.form
	test.Type(f.name, "github")
	test.Type(f.command, "npx")
	f.args.SetText("-y\n@modelcontextprotocol/server-github")
	f.env.add(config.Var{Key: "GITHUB_TOKEN", Value: "typed", Secret: true})
	f.env.add(config.Var{Key: "GITHUB_HOST", Value: "github.example.com"})
	assertMarkup(t, "server-form.xml", w.Canvas())
}

// labelsText is the text of every label under o.
func labelsText(o fyne.CanvasObject) string {
	var parts []string
	for _, x := range test.LaidOutObjects(o) {
		if l, ok := x.(*widget.Label); ok {
			parts = append(parts, l.Text)
		}
	}
	return strings.Join(parts, "\n")
}
