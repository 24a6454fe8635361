package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// secretsCard is the Settings tab's card for the ${keyring:NAME} secrets,
// as `mcptray secret` has them: a name, a masked value and Set (the core
// restarts the servers using it), and the names stored, each with Remove.
// Values are never shown or kept: the field is cleared once the core has
// the value. Main goroutine only.
type secretsCard struct {
	core    Core
	onError func(error)
	win     func() fyne.Window // the window the confirmation opens over

	name  *widget.Entry
	value *widget.Entry // a password entry: masked
	set   *widget.Button
	note  *widget.Label // what the last Set did
	rows  *fyne.Container
	root  fyne.CanvasObject
}

func newSecretsCard(c Core, win func() fyne.Window, onError func(error)) *secretsCard {
	s := &secretsCard{core: c, onError: onError, win: win, rows: container.NewVBox(), note: widget.NewLabel("")}
	s.name = widget.NewEntry()
	s.name.SetPlaceHolder("NAME")
	s.value = widget.NewPasswordEntry()
	s.value.SetPlaceHolder("value")
	s.value.OnSubmitted = func(string) { s.store() }
	s.set = widget.NewButtonWithIcon("Set", theme.ConfirmIcon(), s.store)
	s.note.Wrapping = fyne.TextWrapWord
	s.note.Hide() // until a Set says what it did
	form := container.NewBorder(nil, nil, nil, s.set, container.NewGridWithColumns(2, s.name, s.value))
	intro := widget.NewLabel("Values of ${keyring:NAME} in mcp.json, kept in the OS keyring (service mcptray, username keyring/NAME). " +
		"Setting one restarts the servers using it; `mcptray secret` does the same.")
	intro.Wrapping = fyne.TextWrapWord
	s.root = widget.NewCard("Secrets", "", container.NewVBox(intro, form, s.note, s.rows))
	s.refresh()
	return s
}

// refresh lists the names again (`mcptray secret` may have changed them).
func (s *secretsCard) refresh() {
	s.rows.RemoveAll()
	names, err := s.core.SecretNames()
	if err != nil {
		l := widget.NewLabel("Cannot read the secrets: " + err.Error())
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		s.rows.Add(l)
		return
	}
	if len(names) == 0 {
		s.rows.Add(widget.NewLabel("No secrets yet."))
		return
	}
	for _, name := range names {
		label := widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { s.confirmRemove(name) })
		s.rows.Add(container.NewBorder(nil, nil, nil, remove, label))
	}
}

// store is Set: the value goes to the core, and out of the field.
func (s *secretsCard) store() {
	name := strings.TrimSpace(s.name.Text)
	if err := s.core.SetSecret(name, s.value.Text); err != nil {
		s.onError(fmt.Errorf("setting ${keyring:%s}: %w", name, err))
		return
	}
	s.value.SetText("")
	s.name.SetText("")
	s.note.SetText(fmt.Sprintf("Stored ${keyring:%s}; the servers using it restart with it.", name))
	s.note.Show()
	s.refresh()
}

func (s *secretsCard) confirmRemove(name string) {
	d := dialog.NewConfirm("Remove ${keyring:"+name+"}?", "The servers using it are refused until it is set again.", func(ok bool) {
		if ok {
			s.remove(name)
		}
	}, s.win())
	d.SetConfirmText("Remove")
	d.Show()
}

func (s *secretsCard) remove(name string) {
	if err := s.core.RemoveSecret(name); err != nil {
		s.onError(fmt.Errorf("removing ${keyring:%s}: %w", name, err))
	}
	s.note.Hide()
	s.refresh()
}
