package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/keyring"
)

// fakeSecrets is the core's ${keyring:NAME} secrets, in memory.
type fakeSecrets struct {
	values  map[string]string
	listErr error
	setErr  error
}

func (f *fakeCore) SecretNames() ([]string, error) {
	if f.secrets == nil {
		return nil, nil
	}
	if f.secrets.listErr != nil {
		return nil, f.secrets.listErr
	}
	var names []string
	for n := range f.secrets.values {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

func (f *fakeCore) SetSecret(name, value string) error {
	if f.secrets == nil {
		return errors.New("no keyring")
	}
	if f.secrets.setErr != nil {
		return f.secrets.setErr
	}
	if value == "" {
		return errors.New("the value is empty: nothing stored")
	}
	f.secrets.values[name] = value
	return nil
}

func (f *fakeCore) RemoveSecret(name string) error {
	if f.secrets == nil || f.secrets.values[name] == "" {
		return fmt.Errorf("%w: there is no ${keyring:%s} in the keyring", keyring.ErrNoSecret, name)
	}
	delete(f.secrets.values, name)
	return nil
}

// secretRows is the text of the secrets card's rows, one per line.
func secretRows(s *secretsCard) string {
	var lines []string
	for _, o := range s.rows.Objects {
		var parts []string
		for _, x := range test.LaidOutObjects(o) {
			if l, ok := x.(*widget.Label); ok {
				parts = append(parts, l.Text)
			}
		}
		lines = append(lines, strings.Join(parts, " "))
	}
	return strings.Join(lines, "\n")
}

func TestSettingsSecrets(t *testing.T) {
	const value = "hunter2-typed"
	secrets := &fakeSecrets{values: map[string]string{"notes-key": "old"}}
	m, w, rec := showMain(t, &fakeCore{secrets: secrets}, twoServers())
	s := m.settings.secrets
	s.win = func() fyne.Window { return w }
	if got := secretRows(s); got != "notes-key" {
		t.Errorf("rows: %q, want notes-key", got)
	}
	if !s.value.Password {
		t.Error("the value field is not masked")
	}

	// Set: the core gets the value, the field forgets it, the list grows.
	test.Type(s.name, " remote-token ")
	test.Type(s.value, value)
	test.Tap(s.set)
	if secrets.values["remote-token"] != value || len(rec.errors) != 0 {
		t.Fatalf("set: %d secrets, errors %q", len(secrets.values), rec.errors)
	}
	if s.value.Text != "" || s.name.Text != "" {
		t.Error("the fields are not cleared after Set")
	}
	if want := "Stored ${keyring:remote-token}; the servers using it restart with it."; s.note.Text != want {
		t.Errorf("note %q, want %q", s.note.Text, want)
	}
	if got := secretRows(s); got != "notes-key\nremote-token" {
		t.Errorf("rows after set: %q", got)
	}

	// A refusal is shown, and the typed value stays for another try.
	secrets.setErr = errors.New("a secret's name (what goes in ${keyring:NAME}) has letters, digits and . _ - / @ + : only")
	test.Type(s.name, "bad name")
	test.Type(s.value, value)
	test.Tap(s.set)
	if want := "setting ${keyring:bad name}: " + secrets.setErr.Error(); len(rec.errors) != 1 || rec.errors[0] != want {
		t.Errorf("errors %q, want [%q]", rec.errors, want)
	}
	if s.value.Text != value {
		t.Error("a refused Set cleared the value")
	}
	secrets.setErr = nil

	// Remove asks first, then removes.
	test.Tap(buttons(s.root, "Remove")[0])
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Remove asked nothing")
	}
	test.Tap(button(t, top, "Remove"))
	if _, ok := secrets.values["notes-key"]; ok {
		t.Error("notes-key is still there after Remove")
	}
	if got := secretRows(s); got != "remote-token" {
		t.Errorf("rows after remove: %q", got)
	}
	s.remove("notes-key") // gone meanwhile (`mcptray secret remove`)
	if len(rec.errors) != 2 || !strings.HasPrefix(rec.errors[1], "removing ${keyring:notes-key}: no such secret") {
		t.Errorf("errors %q", rec.errors)
	}

	// What `mcptray secret` did meanwhile shows when the tab is opened.
	secrets.values["from-cli"] = "x"
	m.show(tabServers)
	m.show(tabSettings)
	if got := secretRows(s); got != "from-cli\nremote-token" {
		t.Errorf("rows after reopening the tab: %q", got)
	}
	secrets.listErr = errors.New("no Secret Service on the session D-Bus: start gnome-keyring (or another Secret Service) and unlock it")
	s.refresh()
	if got := secretRows(s); got != "Cannot read the secrets: "+secrets.listErr.Error() {
		t.Errorf("unreadable list: %q", got)
	}

	for _, e := range rec.errors {
		if strings.Contains(e, value) {
			t.Error("an error shown holds the value")
		}
	}
}
