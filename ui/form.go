package ui

import (
	"errors"
	"strconv"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/inbox"
)

// requestForm is the form of an inbox request, built from its fields: per
// field a label (with * when required), an input, the field's description
// and a line for its validation error. Secret fields are masked entries
// with a reveal toggle. What the person types lives only in the widgets;
// clear empties them. Main goroutine only.
type requestForm struct {
	fields []inbox.Field
	inputs []fieldInput
	errs   []*widget.Label
	shown  bool // errors were shown once: re-check on every change
	root   *fyne.Container
}

// fieldInput is one field's input widget.
type fieldInput interface {
	// value is what the person gave, typed for inbox.Field.Parse; given is
	// false when the field is left empty.
	value() (v any, given bool)
	clear()
	focusable() fyne.Focusable // nil when the input takes no focus
	object() fyne.CanvasObject
}

// newRequestForm builds the form; submit is called on Enter in a text
// field, escape on Escape.
func newRequestForm(fields []inbox.Field, submit, escape func()) *requestForm {
	f := &requestForm{fields: fields, root: container.NewVBox()}
	for i, fl := range fields {
		in := newFieldInput(fl, submit, escape, func() {
			if f.shown {
				f.checkField(i)
			}
		})
		errLine := widget.NewLabel("")
		errLine.Importance = widget.DangerImportance
		errLine.Wrapping = fyne.TextWrapWord
		errLine.Hide()
		f.inputs = append(f.inputs, in)
		f.errs = append(f.errs, errLine)

		block := container.NewVBox()
		if fl.Type != "boolean" {
			label := fl.Label()
			if fl.Required {
				label += " *"
			}
			block.Add(widget.NewLabelWithStyle(label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		}
		block.Add(in.object())
		if fl.Description != "" {
			d := widget.NewLabel(fl.Description)
			d.Wrapping = fyne.TextWrapWord
			d.Importance = widget.LowImportance
			block.Add(d)
		}
		block.Add(errLine)
		f.root.Add(block)
	}
	return f
}

// first is the first input that takes focus, or nil.
func (f *requestForm) first() fyne.Focusable {
	for _, in := range f.inputs {
		if fo := in.focusable(); fo != nil {
			return fo
		}
	}
	return nil
}

// content checks every field and returns the answer's content (values
// typed by field: string, float64, int64, bool, []string; fields left
// empty are left out, so their defaults apply), or false after showing
// each field's problem under it.
func (f *requestForm) content() (map[string]any, bool) {
	f.shown = true
	out := map[string]any{}
	ok := true
	for i := range f.fields {
		v, given, good := f.checkField(i)
		ok = ok && good
		if given && good {
			out[f.fields[i].Name] = v
		}
	}
	return out, ok
}

// checkField checks field i, shows or hides its error line, and returns
// its parsed value.
func (f *requestForm) checkField(i int) (v any, given, ok bool) {
	fl := f.fields[i]
	raw, given := f.inputs[i].value()
	var problem string
	switch {
	case !given && fl.Required && !fl.HasDefault:
		problem = "Required."
	case given:
		var err error
		if v, err = fl.Parse(raw); err != nil {
			var inv *inbox.InvalidAnswerError
			if errors.As(err, &inv) {
				problem = sentence(inv.Reason)
			} else {
				problem = sentence(err.Error())
			}
		}
	}
	f.setError(i, problem)
	return v, given, problem == ""
}

// showError shows reason under the field called name (an answer the core
// refused); false if the form has no such field.
func (f *requestForm) showError(name, reason string) bool {
	for i, fl := range f.fields {
		if fl.Name == name {
			f.setError(i, sentence(reason))
			return true
		}
	}
	return false
}

func (f *requestForm) setError(i int, problem string) {
	f.errs[i].SetText(problem)
	if problem == "" {
		f.errs[i].Hide()
	} else {
		f.errs[i].Show()
	}
}

// clear empties every input, so nothing typed outlives the answer.
func (f *requestForm) clear() {
	for _, in := range f.inputs {
		in.clear()
	}
}

// sentence capitalises s and ends it with a full stop.
func sentence(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	s = string(r)
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// newFieldInput picks the input for a field's type: a (masked) entry for
// text and numbers, a check for a boolean, a select for a single choice, a
// check group for several. changed is called on every edit.
func newFieldInput(fl inbox.Field, submit, escape, changed func()) fieldInput {
	switch {
	case fl.Type == "boolean":
		c := widget.NewCheck(fl.Label(), func(bool) { changed() })
		if b, ok := fl.Default.(bool); ok && fl.HasDefault {
			c.SetChecked(b)
		}
		return checkInput{c}
	case fl.Type == "array":
		labels, values := optionLabels(fl.Options)
		g := widget.NewCheckGroup(labels, func([]string) { changed() })
		if d, ok := fl.Default.([]string); ok {
			for _, v := range d {
				for i, val := range values {
					if val == v {
						g.Selected = append(g.Selected, labels[i])
					}
				}
			}
			g.Refresh()
		}
		return multiInput{g, labels, values}
	case len(fl.Options) > 0:
		labels, values := optionLabels(fl.Options)
		s := widget.NewSelect(labels, func(string) { changed() })
		s.PlaceHolder = "Choose…"
		if d, ok := fl.Default.(string); ok {
			for i, v := range values {
				if v == d {
					s.SetSelectedIndex(i)
				}
			}
		}
		return selectInput{s, values}
	}
	e := newFormEntry(fl.Secret, escape)
	e.OnSubmitted = func(string) { submit() }
	e.OnChanged = func(string) { changed() }
	e.SetPlaceHolder(placeholder(fl))
	if fl.HasDefault {
		e.SetText(defaultText(fl.Default))
	}
	return entryInput{e}
}

func optionLabels(opts []inbox.Option) (labels, values []string) {
	for _, o := range opts {
		l := o.Title
		if l == "" {
			l = o.Value
		}
		labels = append(labels, l)
		values = append(values, o.Value)
	}
	return labels, values
}

// placeholder hints at what a text field takes.
func placeholder(fl inbox.Field) string {
	switch fl.Format {
	case "email":
		return "name@example.com"
	case "uri":
		return "https://example.com/page"
	case "date":
		return "2026-07-03"
	case "date-time":
		return "2026-07-03T14:30:00Z"
	}
	if fl.Type != "number" && fl.Type != "integer" {
		return ""
	}
	word := "A number"
	if fl.Type == "integer" {
		word = "A whole number"
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case fl.Minimum != nil && fl.Maximum != nil:
		return word + " from " + num(*fl.Minimum) + " to " + num(*fl.Maximum)
	case fl.Minimum != nil:
		return word + ", at least " + num(*fl.Minimum)
	case fl.Maximum != nil:
		return word + ", at most " + num(*fl.Maximum)
	}
	return word
}

func defaultText(v any) string {
	switch d := v.(type) {
	case string:
		return d
	case float64:
		return strconv.FormatFloat(d, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(d, 10)
	case int:
		return strconv.Itoa(d)
	}
	return ""
}

// formEntry is an entry that hands Escape to the form (an entry keeps
// every key it has focus for).
type formEntry struct {
	widget.Entry
	onEscape func()
}

func newFormEntry(password bool, onEscape func()) *formEntry {
	e := &formEntry{onEscape: onEscape}
	if password {
		e.Password = true // the entry adds its reveal toggle
		e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	}
	e.ExtendBaseWidget(e)
	return e
}

func (e *formEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}

type entryInput struct{ e *formEntry }

func (i entryInput) value() (any, bool)         { return i.e.Text, i.e.Text != "" }
func (i entryInput) clear()                     { i.e.SetText("") }
func (i entryInput) focusable() fyne.Focusable  { return i.e }
func (i entryInput) object() fyne.CanvasObject  { return i.e }
func (i checkInput) value() (any, bool)         { return i.c.Checked, true }
func (i checkInput) clear()                     { i.c.SetChecked(false) }
func (i checkInput) focusable() fyne.Focusable  { return i.c }
func (i checkInput) object() fyne.CanvasObject  { return i.c }
func (i selectInput) focusable() fyne.Focusable { return i.s }
func (i selectInput) object() fyne.CanvasObject { return i.s }
func (i selectInput) clear()                    { i.s.ClearSelected() }
func (i multiInput) focusable() fyne.Focusable  { return nil }
func (i multiInput) object() fyne.CanvasObject  { return i.g }
func (i multiInput) clear()                     { i.g.SetSelected(nil) }

type checkInput struct{ c *widget.Check }

type selectInput struct {
	s      *widget.Select
	values []string // option values, in the order of s.Options
}

func (i selectInput) value() (any, bool) {
	n := i.s.SelectedIndex()
	if n < 0 {
		return nil, false
	}
	return i.values[n], true
}

type multiInput struct {
	g              *widget.CheckGroup
	labels, values []string // in the order of g.Options
}

func (i multiInput) value() (any, bool) {
	var out []string
	for n, l := range i.labels {
		for _, sel := range i.g.Selected {
			if sel == l {
				out = append(out, i.values[n])
			}
		}
	}
	return out, len(out) > 0
}
