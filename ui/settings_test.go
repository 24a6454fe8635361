package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

func TestSettingsToolModeWritesThroughTheCore(t *testing.T) {
	mode := "live"
	var set []string
	c := &fakeCore{
		toolsMode: func() string { return mode },
		setToolsMode: func(m string) error {
			set = append(set, m)
			if m == "dynamic" {
				return errors.New("writing mcp.json: permission denied")
			}
			return nil
		},
	}
	m, _, rec := showMain(t, c, twoServers())
	s := m.settings
	if s.mode.Selected != "live" {
		t.Fatalf("mode shown %q, want live", s.mode.Selected)
	}
	s.mode.SetSelected("stable")
	if len(set) != 1 || set[0] != "stable" {
		t.Fatalf("SetToolsMode calls = %q, want [stable]", set)
	}
	if !strings.Contains(s.modeAbout.Text, "Claude Desktop") {
		t.Errorf("stable's description = %q", s.modeAbout.Text)
	}
	mode = "stable" // the core applied the file
	m.apply(twoServers())
	if len(set) != 1 {
		t.Errorf("a status update wrote the mode again: %q", set)
	}

	s.mode.SetSelected("dynamic")
	if s.mode.Selected != "stable" {
		t.Errorf("mode shown %q after a failed write, want stable back", s.mode.Selected)
	}
	want := "setting the tool list to dynamic: writing mcp.json: permission denied"
	if len(rec.errors) != 1 || rec.errors[0] != want {
		t.Errorf("errors shown = %q, want [%q]", rec.errors, want)
	}
}

func TestSettingsShowsConfigPathAndOpensIt(t *testing.T) {
	m, _, rec := showMain(t, &fakeCore{}, twoServers())
	if got := m.settings.path.Text; got != twoServers().ConfigPath {
		t.Errorf("config path shown %q", got)
	}
	test.Tap(button(t, m.settings.root, "Open config"))
	if len(rec.opened) != 1 || rec.opened[0] != twoServers().ConfigPath {
		t.Errorf("opened %q", rec.opened)
	}
}

func TestSettingsNotificationsPreference(t *testing.T) {
	m, _, _ := showMain(t, &fakeCore{}, twoServers())
	n := notifier{app: fyne.CurrentApp()}
	if !m.settings.notify.Checked || !n.enabled() {
		t.Fatal("notifications are off by default; want on")
	}
	if fyne.CurrentApp().Preferences().BoolWithFallback(prefNotifications, false) {
		t.Error("showing the settings wrote the notifications preference")
	}
	test.AssertNotificationSent(t, fyne.NewNotification("ssh needs your input", "sudo password"), func() {
		n.notify("ssh needs your input", "sudo password")
	})
	test.Tap(m.settings.notify)
	if n.enabled() {
		t.Error("notifications still on after unticking the check")
	}
	test.AssertNotificationSent(t, nil, func() { n.notify("x", "y") })
}

func TestSettingsStartAtLoginWritesTheAutostartFile(t *testing.T) {
	m, _, rec := showMain(t, &fakeCore{}, twoServers())
	s := m.settings
	path := s.auto.Where()
	if s.login.Checked {
		t.Fatal("start at login shown on with no autostart file")
	}
	test.Tap(s.login)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no autostart file after ticking start at login: %v", err)
	}
	if !strings.Contains(string(data), "Exec="+testExe+"\n") {
		t.Errorf("autostart file:\n%s", data)
	}
	if !s.login.Checked || s.loginNote.Text != path {
		t.Errorf("check %v, note %q; want on and the file's path", s.login.Checked, s.loginNote.Text)
	}
	test.Tap(s.login)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("autostart file still there after unticking: %v", err)
	}

	// A folder where the file should be: the error is shown, the check stays off.
	os.MkdirAll(filepath.Join(path, "x"), 0o755)
	test.Tap(s.login)
	if s.login.Checked {
		t.Error("start at login shown on although writing failed")
	}
	if len(rec.errors) != 1 || !strings.HasPrefix(rec.errors[0], "changing start at login: writing "+path) {
		t.Errorf("errors shown = %q", rec.errors)
	}
}
