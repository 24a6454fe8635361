package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestXDGAutostart(t *testing.T) {
	dir := t.TempDir()
	a := xdgAutostart(dir, "/usr/local/bin/mcptray")
	if want := filepath.Join(dir, "autostart", AppID+".desktop"); a.Where() != want {
		t.Errorf("Where() = %q, want %q", a.Where(), want)
	}
	if on, err := a.Enabled(); on || err != nil {
		t.Fatalf("Enabled() = %v, %v before SetEnabled", on, err)
	}
	if err := a.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(a.Where())
	want := "[Desktop Entry]\nType=Application\nName=mcptray\n" +
		"Comment=Supervises your MCP servers and asks you for their secrets\n" +
		"Exec=/usr/local/bin/mcptray\nTerminal=false\nX-GNOME-Autostart-enabled=true\n"
	if string(data) != want {
		t.Errorf("autostart file:\n%s\nwant:\n%s", data, want)
	}
	if on, err := a.Enabled(); !on || err != nil {
		t.Errorf("Enabled() = %v, %v after SetEnabled(true)", on, err)
	}
	// Turned off in the desktop's own settings.
	os.WriteFile(a.Where(), []byte(strings.Replace(want, "enabled=true", "enabled=false", 1)), 0o644)
	if on, _ := a.Enabled(); on {
		t.Error("Enabled() with X-GNOME-Autostart-enabled=false")
	}
	if err := a.SetEnabled(false); err != nil {
		t.Fatal(err)
	}
	if err := a.SetEnabled(false); err != nil {
		t.Errorf("SetEnabled(false) twice: %v", err)
	}
	if _, err := os.Stat(a.Where()); !os.IsNotExist(err) {
		t.Errorf("file still there: %v", err)
	}
}

func TestXDGAutostartUnreadable(t *testing.T) {
	dir := t.TempDir()
	a := xdgAutostart(dir, "/bin/mcptray")
	os.MkdirAll(a.Where(), 0o755) // a folder: reading fails
	if _, err := a.Enabled(); err == nil || !strings.HasPrefix(err.Error(), "reading "+a.Where()+": ") {
		t.Errorf("Enabled() error = %v", err)
	}
}

func TestDesktopExecQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/mcptray":         "/usr/bin/mcptray",
		"/home/me/My Apps/mcptray": `"/home/me/My Apps/mcptray"`,
		`/odd/"$dir"/mcptray`:      `"/odd/\\"\\$dir\\"/mcptray"`,
		`/back\slash/mcptray`:      `"/back\\\\slash/mcptray"`,
		"/100%/mcptray":            "/100%%/mcptray",
	} {
		if got := desktopExecQuote(in); got != want {
			t.Errorf("desktopExecQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestLaunchAgent(t *testing.T) {
	home := t.TempDir()
	a := launchAgent(home, "/Applications/mcptray.app/Contents/MacOS/mcptray & <co>")
	if want := filepath.Join(home, "Library", "LaunchAgents", AppID+".plist"); a.Where() != want {
		t.Errorf("Where() = %q", a.Where())
	}
	if err := a.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(a.Where())
	for _, want := range []string{
		"<key>Label</key>\n\t<string>" + AppID + "</string>",
		"<string>/Applications/mcptray.app/Contents/MacOS/mcptray &amp; &lt;co&gt;</string>",
		"<key>RunAtLoad</key>\n\t<true/>",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("plist lacks %q:\n%s", want, data)
		}
	}
}

// The .deb's system-wide entry (/etc/xdg/autostart) starts mcptray for
// everyone; the person's own entry turns it off with Hidden=true.
func TestXDGAutostartSystemEntry(t *testing.T) {
	dir, sys := t.TempDir(), t.TempDir()
	a := xdgAutostart(dir, "/usr/bin/mcptray", filepath.Join(sys, "none"), sys)
	if on, err := a.Enabled(); on || err != nil {
		t.Fatalf("Enabled() = %v, %v with no entry at all", on, err)
	}
	os.MkdirAll(filepath.Join(sys, "autostart"), 0o755)
	system := filepath.Join(sys, "autostart", AppID+".desktop")
	os.WriteFile(system, []byte("[Desktop Entry]\nType=Application\nName=mcptray\nExec=/usr/bin/mcptray\n"), 0o644)
	if on, err := a.Enabled(); !on || err != nil {
		t.Fatalf("Enabled() = %v, %v with the system's entry", on, err)
	}
	if err := a.SetEnabled(false); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(a.Where())
	if !strings.Contains(string(data), "\nHidden=true\n") {
		t.Errorf("turning off over a system entry wrote:\n%s", data)
	}
	if on, _ := a.Enabled(); on {
		t.Error("Enabled() after SetEnabled(false) over a system entry")
	}
	if err := a.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	if on, _ := a.Enabled(); !on {
		t.Error("Enabled() false after SetEnabled(true)")
	}
	if data, _ := os.ReadFile(system); !strings.Contains(string(data), "Exec=/usr/bin/mcptray") {
		t.Error("the system's entry was changed")
	}
}

// The .deb's /etc/xdg/autostart entry (packaging/install.sh) is the one
// the Settings tab writes.
func TestAutostartEntryMatchesPackage(t *testing.T) {
	for _, exe := range []string{"/usr/bin/mcptray", "/home/me/My Apps/mcptray", `/odd/"$dir"/100%/back\slash`} {
		out, err := exec.Command("sh", "../packaging/install.sh", "autostart-entry", exe).Output()
		if err != nil {
			t.Fatalf("install.sh autostart-entry: %v", err)
		}
		if want := string(xdgAutostart(t.TempDir(), exe).content); string(out) != want {
			t.Errorf("install.sh autostart-entry %s:\n%s\nthe Settings tab's:\n%s", exe, out, want)
		}
	}
}
