package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// fakeSSH is an in-memory SSHAliases.
type fakeSSH struct {
	list    []SSHAlias
	removed []string
	listErr error
}

func (f *fakeSSH) List() ([]SSHAlias, error) { return slices.Clone(f.list), f.listErr }

func (f *fakeSSH) Add(a SSHAlias, replace bool) (string, error) {
	if i := slices.IndexFunc(f.list, func(b SSHAlias) bool { return b.Name == a.Name }); i >= 0 {
		if !replace {
			return "", errors.New(`alias "` + a.Name + `" exists`)
		}
		f.list[i] = a
		return "", nil
	}
	f.list = append(f.list, a)
	return "the host's key is not in known_hosts yet", nil
}

func (f *fakeSSH) Remove(name string) error {
	f.removed = append(f.removed, name)
	f.list = slices.DeleteFunc(f.list, func(a SSHAlias) bool { return a.Name == name })
	return nil
}

func (f *fakeSSH) Test(_ context.Context, name string, _ func(context.Context, string) (string, error)) (string, error) {
	return "alias " + name + ": connected to deploy@prod.example.com:22 (SSH-2.0-OpenSSH_9.2)\n  login:    key\n", nil
}

func prodAlias() SSHAlias {
	return SSHAlias{Name: "prod", Host: "prod.example.com", Port: 22, User: "deploy", Auth: "key", KeyPath: "~/.ssh/id_prod", Sudo: "prompt"}
}

// TestGoldenSSH: the SSH tab lists the aliases with Test and Remove.
func TestGoldenSSH(t *testing.T) {
	failOnThreadErrors(t)
	a := test.NewTempApp(t)
	env, _ := testEnv(t, a, &fakeCore{})
	env.autostart = &fixedAutostart{on: true}
	env.ssh = &fakeSSH{list: []SSHAlias{prodAlias(), {Name: "db", Host: "10.0.0.5", Port: 2222, User: "admin", Auth: "password", Sudo: "nopasswd", Jump: "prod", AcceptNewHostKey: true}}}
	m := newMainScreen(env, "")
	t.Cleanup(m.close)
	m.apply(twoServers())
	w := test.NewTempWindow(t, m.root)
	w.Resize(fyne.NewSize(900, 560))
	m.show(tabSSH)
	assertMarkup(t, "ssh.xml", w.Canvas())
}

// TestSSHScreen: the form's alias is added (a note shown), a bad port or a
// missing host is refused with a reason and nothing is added, a test's
// report is shown, and an alias list that cannot be read says why.
func TestSSHScreen(t *testing.T) {
	failOnThreadErrors(t)
	a := test.NewTempApp(t)
	env, rec := testEnv(t, a, &fakeCore{})
	fake := &fakeSSH{list: []SSHAlias{prodAlias()}}
	env.ssh = fake
	s := newSSHScreen(env.ssh, func() fyne.Window { return nil }, env.onError)
	s.background = func(f func()) { f() } // the test driver runs fyne.Do inline
	if got := rowTexts(s); !strings.Contains(got, "prod") || !strings.Contains(got, "deploy@prod.example.com:22 · login key ~/.ssh/id_prod · sudo prompt") {
		t.Errorf("rows: %s", got)
	}

	f := newSSHForm()
	f.name.SetText("db")
	f.host.SetText("10.0.0.5")
	f.user.SetText("admin")
	// refused adds the form and wants exactly one more error, want, and
	// nothing added.
	refused := func(what, want string) {
		t.Helper()
		n := len(rec.errors)
		s.add(f)
		if len(rec.errors) != n+1 || rec.errors[n] != want || len(fake.list) != 1 {
			t.Errorf("%s: %q %v", what, rec.errors, fake.list)
		}
	}
	f.port.SetText("22x")
	refused("bad port", `adding alias: port "22x" is not a port number (1–65535)`)
	f.port.SetText("2222")
	f.host.SetText(" ")
	refused("no host", "adding alias: the alias needs a host")
	f.host.SetText("10.0.0.5")
	f.key.SetText("~/.ssh/id_db")
	f.auth.SetSelected("password")
	refused("key with password login", "adding alias: a key file goes with login by key")
	f.key.SetText("")
	f.sudo.SetSelected("nopasswd")
	f.jump.SetText("prod")
	s.add(f)
	want := SSHAlias{Name: "db", Host: "10.0.0.5", Port: 2222, User: "admin", Auth: "password", Sudo: "nopasswd", Jump: "prod"}
	if len(rec.errors) != 3 || len(fake.list) != 2 || fake.list[1] != want {
		t.Errorf("added: %q %+v", rec.errors, fake.list)
	}
	if !strings.Contains(s.report.Text, "Alias db added") || !strings.Contains(s.report.Text, "Note: the host's key is not in known_hosts yet") {
		t.Errorf("report after add: %q", s.report.Text)
	}
	if got := rowTexts(s); !strings.Contains(got, "admin@10.0.0.5:2222 · login password · sudo nopasswd · through prod") {
		t.Errorf("rows after add: %s", got)
	}
	s.add(f) // the same name again, without Replace
	if len(rec.errors) != 4 || rec.errors[3] != `adding alias: alias "db" exists` {
		t.Errorf("duplicate: %q", rec.errors)
	}

	s.test("prod")
	if !strings.Contains(s.report.Text, "connected to deploy@prod.example.com:22") {
		t.Errorf("test report: %q", s.report.Text)
	}

	fake.listErr = errors.New("no Secret Service on the session bus")
	s.refresh()
	if got := rowTexts(s); got != "Cannot read the aliases: no Secret Service on the session bus" {
		t.Errorf("unreadable list: %s", got)
	}
}

// rowTexts is the text of the alias rows' labels, one row per line.
func rowTexts(s *sshScreen) string {
	var lines []string
	for _, o := range s.rows.Objects {
		var parts []string
		var walk func(o fyne.CanvasObject)
		walk = func(o fyne.CanvasObject) {
			switch w := o.(type) {
			case *widget.Label:
				parts = append(parts, w.Text)
			case *fyne.Container:
				for _, c := range w.Objects {
					walk(c)
				}
			}
		}
		walk(o)
		lines = append(lines, strings.Join(parts, " | "))
	}
	return strings.Join(lines, "\n")
}
