package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/config"
)

// The Servers tab's Add server… and Edit form: an entry of mcp.json as
// `mcptray add` writes it, without JSON. A command (stdio: command,
// arguments one per line, working directory, environment) or a URL
// (http: URL, headers). Each variable or header has a Secret check: its
// value is then typed masked and kept in the keyring as
// ${keyring:NAME-KEY}. Editing shows a ${keyring:…} value as "(secret in
// keyring)", never the secret, and keeps it unless something is typed in
// its place. The core checks the entry as loading would and writes it;
// a refusal is shown under its field, or under the form, and nothing is
// written. Main goroutine only.

// Kinds of entry, as the form's choice names them.
const (
	kindStdio = "Command (stdio)"
	kindHTTP  = "URL (http)"
)

// keyringPlaceholder is what a value kept in the keyring shows instead.
const keyringPlaceholder = "(secret in keyring)"

// serverForm is the form's widgets.
type serverForm struct {
	editing bool // Edit: the name is fixed, the entry is replaced in place

	name     *widget.Entry
	kind     *widget.RadioGroup
	command  *widget.Entry
	args     *argsEntry // multi-line: one argument per line
	cwd      *widget.Entry
	env      *varList
	url      *widget.Entry
	headers  *varList
	disabled *widget.Check // Add only: add it turned off
	kept     *widget.Label // Edit: the keys of the entry the form does not show, kept

	errs    map[string]*widget.Label // under each field: name, command, args, cwd, env, url, headers
	formErr *widget.Label            // under the form: what belongs to no field
	stdio   cells                    // the stdio fields' labels and cells
	http    cells                    // the http fields' labels and cells
	root    fyne.CanvasObject
}

// newServerForm builds the form, empty (Add) or filled with e as written
// in mcp.json (Edit); submit is Enter in a one-line field.
func newServerForm(e *config.Entry, submit func()) *serverForm {
	f := &serverForm{
		name: widget.NewEntry(), command: widget.NewEntry(), args: newArgsEntry(), cwd: widget.NewEntry(), url: widget.NewEntry(),
		env: newVarList("Add variable", submit), headers: newVarList("Add header", submit),
		disabled: widget.NewCheck("Add it turned off", nil),
		kept:     widget.NewLabel(""),
		errs:     map[string]*widget.Label{},
		formErr:  errorLabel(),
	}
	for _, e := range []*widget.Entry{f.name, f.command, f.cwd, f.url} {
		e.OnSubmitted = func(string) { submit() }
	}
	f.name.SetPlaceHolder("letters, digits, _ and -")
	f.command.SetPlaceHolder("npx, uvx, /path/to/server …")
	f.args.SetPlaceHolder("one argument per line")
	f.args.SetMinRowsVisible(3)
	f.cwd.SetPlaceHolder("optional; ~ is your home")
	f.url.SetPlaceHolder("https://example.com/mcp")
	f.kept.Wrapping = fyne.TextWrapWord
	f.kept.Hide()
	f.kind = widget.NewRadioGroup([]string{kindStdio, kindHTTP}, f.showKind)
	f.kind.Horizontal = true
	f.kind.Required = true

	field := func(key, label string, w fyne.CanvasObject) []fyne.CanvasObject {
		l := errorLabel()
		f.errs[key] = l
		return []fyne.CanvasObject{widget.NewLabel(label), container.NewVBox(w, l)}
	}
	// One grid, so that every label takes the same column; the kind not
	// chosen is hidden (the form layout skips hidden rows).
	f.stdio = slices.Concat(field("command", "Command", f.command), field("args", "Arguments", f.args),
		field("cwd", "Working directory", f.cwd), field("env", "Environment", f.env.root))
	f.http = slices.Concat(field("url", "URL", f.url), field("headers", "Headers", f.headers.root))
	grid := container.New(layout.NewFormLayout(), slices.Concat(field("name", "Name", f.name),
		[]fyne.CanvasObject{widget.NewLabel("Runs"), f.kind}, f.stdio, f.http)...)
	intro := widget.NewLabel("Written into mcp.json as a minimal edit (comments and the other entries kept); the running mcptray applies it. " +
		"A Secret value goes to the keyring as ${keyring:NAME-KEY}, never into the file.")
	intro.Wrapping = fyne.TextWrapWord
	f.root = container.NewVBox(intro, grid, f.disabled, f.kept, f.formErr)
	f.env.changed, f.headers.changed = f.root.Refresh, f.root.Refresh

	f.kind.SetSelected(kindStdio)
	if e == nil {
		return f
	}
	f.editing = true
	f.name.SetText(e.Name)
	f.name.Disable()
	f.disabled.Hide() // the toggle turns it on and off
	if e.IsHTTP() {
		f.kind.SetSelected(kindHTTP)
	}
	f.command.SetText(e.Command)
	f.args.SetText(strings.Join(e.Args, "\n"))
	f.cwd.SetText(e.Cwd)
	f.url.SetText(e.URL)
	for _, v := range e.Env {
		f.env.add(v)
	}
	for _, v := range e.Headers {
		f.headers.add(v)
	}
	if len(e.Kept) > 0 {
		f.kept.SetText("Kept as they are in mcp.json: " + strings.Join(e.Kept, ", ") + ".")
		f.kept.Show()
	}
	return f
}

func errorLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Importance = widget.DangerImportance
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return l
}

// cells are the labels and cells of some of the form's rows.
type cells []fyne.CanvasObject

func (c cells) show(on bool) {
	for _, o := range c {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
}

// Visible reports whether the rows are shown.
func (c cells) Visible() bool { return len(c) > 0 && c[0].Visible() }

// showKind shows the fields of the kind chosen.
func (f *serverForm) showKind(kind string) {
	f.stdio.show(kind != kindHTTP)
	f.http.show(kind == kindHTTP)
	if f.root != nil {
		f.root.Refresh()
	}
}

// entry reads the form: the entry to write, or the first thing the form
// itself can tell is wrong (as an *config.EntryError naming its field).
func (f *serverForm) entry() (config.Entry, error) {
	e := config.Entry{Name: strings.TrimSpace(f.name.Text), Disabled: !f.editing && f.disabled.Checked}
	var err error
	if f.kind.Selected == kindHTTP {
		e.URL = strings.TrimSpace(f.url.Text)
		if e.URL == "" {
			return e, &config.EntryError{Field: "url", Reason: "the URL is empty"}
		}
		e.Headers, err = f.headers.vars("headers", "a header")
	} else {
		e.Command = strings.TrimSpace(f.command.Text)
		if e.Command == "" {
			return e, &config.EntryError{Field: "command", Reason: "the command is empty"}
		}
		e.Args = splitArgs(f.args.Text)
		e.Cwd = strings.TrimSpace(f.cwd.Text)
		e.Env, err = f.env.vars("env", "a variable")
	}
	return e, err
}

// argsEntry is the Arguments field: a multi-line entry that Tab leaves,
// as it leaves every other field, instead of typing a tab into it.
type argsEntry struct{ widget.Entry }

func newArgsEntry() *argsEntry {
	e := &argsEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapOff
	e.ExtendBaseWidget(e)
	return e
}

// AcceptsTab is false: Tab moves to the next field.
func (e *argsEntry) AcceptsTab() bool { return false }

// splitArgs is the Arguments field: one argument per line, as typed
// (spaces and quotes are part of it); empty lines are left out.
func splitArgs(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSuffix(l, "\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// showError shows err under its field (an *config.EntryError's Field; env.KEY
// and headers.KEY under the list), else under the form.
func (f *serverForm) showError(err error) {
	f.clearErrors()
	var ee *config.EntryError
	field := ""
	if errors.As(err, &ee) {
		field, _, _ = strings.Cut(ee.Field, ".")
	}
	text := err.Error()
	l, ok := f.errs[field]
	if ok {
		// Under its field the entry's name is no news.
		text = strings.TrimPrefix(text, strings.TrimSpace(f.name.Text)+": ")
	} else {
		l = f.formErr
	}
	l.SetText(text)
	l.Show()
	f.root.Refresh() // lay the rows out again around the message
}

func (f *serverForm) clearErrors() {
	for _, l := range f.errs {
		l.Hide()
	}
	f.formErr.Hide()
	f.root.Refresh()
}

// varList is the rows of env variables or headers: name, value (masked
// when Secret), Secret, and a button taking the row out.
type varList struct {
	submit  func() // Enter in a row
	rows    []*varRow
	list    *fyne.Container
	root    fyne.CanvasObject
	changed func() // a row came or went: the form lays itself out again
}

// varRow is one variable. kept is the ${keyring:…} reference of a value
// read from the file, kept while nothing is typed in its place.
type varRow struct {
	key    *widget.Entry
	value  *widget.Entry
	secret *widget.Check
	kept   string
	submit func()          // Enter in the value
	cell   *fyne.Container // holds value; Secret swaps it for a masked entry
	root   *fyne.Container
}

func newVarList(addText string, submit func()) *varList {
	l := &varList{list: container.NewVBox(), submit: submit}
	add := widget.NewButtonWithIcon(addText, theme.ContentAddIcon(), func() {
		r := l.add(config.Var{})
		if c := fyne.CurrentApp().Driver().CanvasForObject(l.root); c != nil {
			c.Focus(r.key) // type the name right away
		}
	})
	l.root = container.NewVBox(l.list, container.NewHBox(add))
	return l
}

// add appends a row showing v; a value that is a ${keyring:…} reference
// shows as a secret kept in the keyring.
func (l *varList) add(v config.Var) *varRow {
	r := &varRow{key: widget.NewEntry(), cell: container.NewStack(), submit: l.submit}
	r.key.OnSubmitted = func(string) { l.submit() }
	r.key.SetPlaceHolder("NAME")
	r.key.SetText(v.Key)
	switch {
	case config.IsKeyringRef(v.Value):
		r.kept = v.Value
		r.setValue(widget.NewPasswordEntry(), "")
	case v.Secret:
		r.setValue(widget.NewPasswordEntry(), v.Value)
	default:
		r.setValue(widget.NewEntry(), v.Value)
	}
	r.secret = widget.NewCheck("Secret", nil)
	r.secret.SetChecked(v.Secret || r.kept != "")
	r.secret.OnChanged = func(on bool) {
		if on {
			r.setValue(widget.NewPasswordEntry(), r.value.Text)
		} else {
			r.setValue(widget.NewEntry(), r.value.Text)
		}
	}
	remove := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { l.remove(r) })
	r.root = container.NewBorder(nil, nil, nil, container.NewHBox(r.secret, remove),
		container.NewGridWithColumns(2, r.key, r.cell))
	l.rows = append(l.rows, r)
	l.list.Add(r.root)
	if l.changed != nil {
		l.changed()
	}
	return r
}

// setValue puts entry, showing text, in the value's place.
func (r *varRow) setValue(entry *widget.Entry, text string) {
	entry.SetText(text)
	if r.kept != "" && entry.Password {
		entry.SetPlaceHolder(keyringPlaceholder)
	} else {
		entry.SetPlaceHolder("value")
	}
	entry.OnSubmitted = func(string) { r.submit() }
	r.value = entry
	r.cell.Objects = []fyne.CanvasObject{entry}
	r.cell.Refresh()
}

func (l *varList) remove(r *varRow) {
	for i, x := range l.rows {
		if x == r {
			l.rows = append(l.rows[:i], l.rows[i+1:]...)
			break
		}
	}
	l.list.Remove(r.root)
	if l.changed != nil {
		l.changed()
	}
}

// vars reads the rows, in order: a secret typed is a Var to store; one
// kept in the keyring, with nothing typed, keeps its reference. Rows left
// empty are skipped.
func (l *varList) vars(field, what string) ([]config.Var, error) {
	var out []config.Var
	for _, r := range l.rows {
		key, value := strings.TrimSpace(r.key.Text), r.value.Text
		switch {
		case key == "" && value == "" && r.kept == "":
			continue
		case key == "":
			return nil, &config.EntryError{Field: field, Reason: fmt.Sprintf("%s has a value but no name", what)}
		case r.secret.Checked && value == "" && r.kept != "":
			out = append(out, config.Var{Key: key, Value: r.kept})
		case r.secret.Checked && value == "":
			return nil, &config.EntryError{Field: field + "." + key, Reason: fmt.Sprintf("the secret %s has no value", key)}
		default:
			out = append(out, config.Var{Key: key, Value: value, Secret: r.secret.Checked})
		}
	}
	return out, nil
}

// clearSecrets empties the masked values, once the core has them.
func (f *serverForm) clearSecrets() {
	for _, l := range []*varList{f.env, f.headers} {
		for _, r := range l.rows {
			if r.secret.Checked {
				r.value.SetText("")
			}
		}
	}
}
