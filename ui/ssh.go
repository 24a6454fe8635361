package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// SSHAliases is what the SSH tab needs: the built-in SSH server's aliases
// (kept in the OS keyring, never with a password). main backs it with
// mcp/servers/ssh, as `mcptray ssh alias` does; nil leaves the tab saying
// the SSH server is not available.
type SSHAliases interface {
	List() ([]SSHAlias, error)
	// Add saves a; note, when not empty, is worth telling the person.
	Add(a SSHAlias, replace bool) (note string, err error)
	Remove(name string) error
	// Test connects with the alias and reports, as text, the login, the
	// host key and what sudo needs, without running anything as root; ask
	// asks the person for a password or passphrase when one is needed.
	Test(ctx context.Context, name string, ask func(ctx context.Context, message string) (string, error)) (report string, err error)
}

// SSHAlias is one alias, as the SSH tab shows and edits it.
type SSHAlias struct {
	Name, Host       string
	Port             int
	User             string
	Auth             string // key, password or agent
	KeyPath          string // with auth key; empty: the usual ~/.ssh keys
	Sudo             string // nopasswd, prompt or none
	AcceptNewHostKey bool
	Jump             string // an alias to connect through
}

// describe is an alias's line in the list.
func (a SSHAlias) describe() string {
	auth := a.Auth
	if a.KeyPath != "" {
		auth += " " + a.KeyPath
	}
	parts := []string{fmt.Sprintf("%s@%s:%d", a.User, a.Host, a.Port), "login " + auth, "sudo " + a.Sudo}
	if a.Jump != "" {
		parts = append(parts, "through "+a.Jump)
	}
	if a.AcceptNewHostKey {
		parts = append(parts, "new host keys accepted")
	}
	return strings.Join(parts, " · ")
}

// sshScreen lists the aliases with Test and Remove, adds one with a form,
// and shows the last test's report. Main goroutine only; a test runs on a
// goroutine of its own and comes back through onMain.
type sshScreen struct {
	aliases SSHAliases
	onError func(error)
	win     func() fyne.Window // the window dialogs open over

	rows   *fyne.Container
	report *widget.Label
	root   fyne.CanvasObject

	background func(func()) // runs a test off the main goroutine; tests run it inline
}

func newSSHScreen(aliases SSHAliases, win func() fyne.Window, onError func(error)) *sshScreen {
	s := &sshScreen{aliases: aliases, onError: onError, win: win, rows: container.NewVBox(), report: widget.NewLabel(""),
		background: func(f func()) { go f() }}
	s.report.Wrapping = fyne.TextWrapWord
	s.report.TextStyle = fyne.TextStyle{Monospace: true}
	intro := widget.NewLabel("Hosts the built-in SSH server (ssh__* tools) may reach. Kept in the OS keyring, never with a password: " +
		"passwords, passphrases and sudo are asked in mcptray when needed.")
	intro.Wrapping = fyne.TextWrapWord
	add := widget.NewButtonWithIcon("Add alias…", theme.ContentAddIcon(), s.showAdd)
	if aliases == nil {
		intro.SetText("The built-in SSH server is not available in this build.")
		add.Disable()
	}
	s.root = container.NewBorder(container.NewVBox(intro, container.NewHBox(add)), nil, nil, nil,
		container.NewVScroll(container.NewVBox(s.rows, widget.NewSeparator(), s.report)))
	s.refresh()
	return s
}

// refresh lists the aliases again.
func (s *sshScreen) refresh() {
	s.rows.RemoveAll()
	if s.aliases == nil {
		return
	}
	list, err := s.aliases.List()
	if err != nil {
		l := widget.NewLabel("Cannot read the aliases: " + err.Error())
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		s.rows.Add(l)
		return
	}
	if len(list) == 0 {
		s.rows.Add(widget.NewLabel("No aliases yet."))
		return
	}
	for _, a := range list {
		name := a.Name
		title := widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		line := widget.NewLabel(a.describe())
		line.Wrapping = fyne.TextWrapWord
		test := widget.NewButtonWithIcon("Test", theme.MediaPlayIcon(), func() { s.test(name) })
		remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { s.confirmRemove(name) })
		s.rows.Add(container.NewBorder(nil, nil, title, container.NewHBox(test, remove), line))
	}
}

func (s *sshScreen) confirmRemove(name string) {
	dialog.ShowConfirm("Remove "+name+"?", "The SSH server will no longer reach this host as "+name+".", func(ok bool) {
		if !ok {
			return
		}
		if err := s.aliases.Remove(name); err != nil {
			s.onError(fmt.Errorf("removing %s: %w", name, err))
		}
		s.refresh()
	}, s.win())
}

// test connects with alias name off the main goroutine and shows the
// report.
func (s *sshScreen) test(name string) {
	s.report.SetText("Testing " + name + "…")
	ask := func(ctx context.Context, message string) (string, error) { return s.askSecret(ctx, message) }
	s.background(func() {
		report, err := s.aliases.Test(context.Background(), name, ask)
		onMain(func() {
			if err != nil && report == "" {
				report = err.Error()
			} else if err != nil {
				report += "\n" + err.Error()
			}
			s.report.SetText(report)
		})
	})
}

// askSecret asks the person for a password or passphrase in a masked
// field; it is called off the main goroutine and waits for the answer.
// Nothing typed is kept after it returns.
func (s *sshScreen) askSecret(ctx context.Context, message string) (string, error) {
	type reply struct {
		secret string
		sent   bool // false: cancelled
	}
	answer := make(chan reply, 1)
	onMain(func() {
		entry := widget.NewPasswordEntry()
		msg := widget.NewLabel(message)
		msg.Wrapping = fyne.TextWrapWord
		d := dialog.NewForm("SSH needs a secret", "Send", "Cancel",
			[]*widget.FormItem{widget.NewFormItem("", msg), widget.NewFormItem("Secret", entry)},
			func(ok bool) {
				r := reply{sent: ok}
				if ok {
					r.secret = entry.Text
				}
				entry.SetText("")
				answer <- r
			}, s.win())
		d.Resize(fyne.NewSize(420, 200))
		d.Show()
		s.win().Canvas().Focus(entry)
	})
	select {
	case r := <-answer:
		if !r.sent {
			return "", errors.New("cancelled")
		}
		return r.secret, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// sshForm is the Add form's fields.
type sshForm struct {
	name, host, port, user, key, jump *widget.Entry
	auth, sudo                        *widget.Select
	acceptNew, replace                *widget.Check
}

func newSSHForm() *sshForm {
	f := &sshForm{
		name: widget.NewEntry(), host: widget.NewEntry(), port: widget.NewEntry(), user: widget.NewEntry(),
		key: widget.NewEntry(), jump: widget.NewEntry(),
		auth:      widget.NewSelect([]string{"key", "password", "agent"}, nil),
		sudo:      widget.NewSelect([]string{"prompt", "nopasswd", "none"}, nil),
		acceptNew: widget.NewCheck("Add an unknown host's key to known_hosts", nil),
		replace:   widget.NewCheck("Replace an alias of that name", nil),
	}
	f.port.SetText("22")
	f.auth.SetSelected("key")
	f.sudo.SetSelected("prompt")
	f.key.SetPlaceHolder("~/.ssh/id_ed25519 (empty: the usual keys)")
	f.jump.SetPlaceHolder("another alias (optional)")
	return f
}

func (f *sshForm) items() []*widget.FormItem {
	return []*widget.FormItem{
		widget.NewFormItem("Name", f.name), widget.NewFormItem("Host", f.host), widget.NewFormItem("Port", f.port),
		widget.NewFormItem("User", f.user), widget.NewFormItem("Login", f.auth), widget.NewFormItem("Key file", f.key),
		widget.NewFormItem("Sudo", f.sudo), widget.NewFormItem("Jump host", f.jump),
		widget.NewFormItem("", f.acceptNew), widget.NewFormItem("", f.replace),
	}
}

// alias reads the form; a bad port or a missing field is an error naming it.
func (f *sshForm) alias() (SSHAlias, error) {
	a := SSHAlias{Name: strings.TrimSpace(f.name.Text), Host: strings.TrimSpace(f.host.Text), User: strings.TrimSpace(f.user.Text),
		Auth: f.auth.Selected, KeyPath: strings.TrimSpace(f.key.Text), Sudo: f.sudo.Selected,
		Jump: strings.TrimSpace(f.jump.Text), AcceptNewHostKey: f.acceptNew.Checked}
	for _, req := range []struct{ what, v string }{{"a name", a.Name}, {"a host", a.Host}, {"a user", a.User}} {
		if req.v == "" {
			return a, errors.New("the alias needs " + req.what)
		}
	}
	port, err := strconv.Atoi(strings.TrimSpace(f.port.Text))
	if err != nil || port < 1 || port > 65535 {
		return a, fmt.Errorf("port %q is not a port number (1–65535)", f.port.Text)
	}
	a.Port = port
	if a.KeyPath != "" && a.Auth != "key" {
		return a, errors.New("a key file goes with login by key")
	}
	return a, nil
}

func (s *sshScreen) showAdd() {
	f := newSSHForm()
	d := dialog.NewForm("Add an SSH alias", "Add", "Cancel", f.items(), func(ok bool) {
		if ok {
			s.add(f)
		}
	}, s.win())
	d.Resize(fyne.NewSize(520, 480))
	d.Show()
}

// add saves the form's alias, or shows why not.
func (s *sshScreen) add(f *sshForm) {
	a, err := f.alias()
	if err == nil {
		var note string
		note, err = s.aliases.Add(a, f.replace.Checked)
		if err == nil {
			s.report.SetText("Alias " + a.Name + " added: " + a.describe())
			if note != "" {
				s.report.SetText(s.report.Text + "\nNote: " + note)
			}
		}
	}
	if err != nil {
		s.onError(fmt.Errorf("adding alias: %w", err))
	}
	s.refresh()
}
