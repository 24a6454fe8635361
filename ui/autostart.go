package ui

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// autostart turns starting mcptray at login on and off: an XDG autostart
// file on Linux and the BSDs, a LaunchAgent on macOS, a Run key value on
// Windows (autostart_windows.go).
type autostart interface {
	// Enabled reports whether mcptray starts at login.
	Enabled() (bool, error)
	// SetEnabled makes mcptray start at login, or not.
	SetEnabled(on bool) error
	// Where names what SetEnabled writes, for the person.
	Where() string
}

// fileAutostart is an autostart that is one file: present means on.
type fileAutostart struct {
	path    string
	content []byte
}

func (f fileAutostart) Where() string { return f.path }

func (f fileAutostart) Enabled() (bool, error) {
	data, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", f.path, err)
	}
	return entryOn(data), nil
}

// entryOn reports whether a desktop entry is on: not one the person (or
// their desktop's settings) turned off.
func entryOn(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		switch strings.TrimSpace(line) {
		case "Hidden=true", "X-GNOME-Autostart-enabled=false":
			return false
		}
	}
	return true
}

func (f fileAutostart) SetEnabled(on bool) error {
	if !on {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", f.path, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(f.path), err)
	}
	tmp := f.path + ".tmp"
	if err := os.WriteFile(tmp, f.content, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

// xdgEntry is the XDG autostart entry of the person, over the entries of
// the same name in the system's folders ($XDG_CONFIG_DIRS, /etc/xdg: the
// .deb puts one there) that start mcptray for everyone at login. The
// person's entry wins (XDG Autostart Specification): turning autostart off
// while a system entry is on writes the person's entry with Hidden=true.
type xdgEntry struct {
	fileAutostart
	system []string // the system's entries, most important first
}

func (x xdgEntry) Enabled() (bool, error) {
	if _, err := os.Stat(x.path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return x.fileAutostart.Enabled()
	}
	return x.systemOn(), nil
}

// systemOn reports whether the most important system entry is on.
func (x xdgEntry) systemOn() bool {
	for _, p := range x.system {
		if data, err := os.ReadFile(p); err == nil {
			return entryOn(data)
		}
	}
	return false
}

func (x xdgEntry) SetEnabled(on bool) error {
	if on || !x.systemOn() {
		return x.fileAutostart.SetEnabled(on)
	}
	hidden := x.fileAutostart
	hidden.content = []byte("[Desktop Entry]\nType=Application\nName=mcptray\nHidden=true\n")
	return hidden.SetEnabled(true)
}

// xdgAutostart is the XDG autostart entry (configDir/autostart/AppID.desktop)
// that starts exe with no arguments (the tray app) at login, over the
// entries of the same name in systemDirs' autostart folders.
func xdgAutostart(configDir, exe string, systemDirs ...string) xdgEntry {
	entry := "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=mcptray\n" +
		"Comment=Supervises your MCP servers and asks you for their secrets\n" +
		"Exec=" + desktopExecQuote(exe) + "\n" +
		"Terminal=false\n" +
		"X-GNOME-Autostart-enabled=true\n"
	x := xdgEntry{fileAutostart: fileAutostart{
		path:    filepath.Join(configDir, "autostart", AppID+".desktop"),
		content: []byte(entry),
	}}
	for _, d := range systemDirs {
		x.system = append(x.system, filepath.Join(d, "autostart", AppID+".desktop"))
	}
	return x
}

// xdgConfigDirs is $XDG_CONFIG_DIRS, default /etc/xdg.
func xdgConfigDirs() []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("XDG_CONFIG_DIRS")) {
		if filepath.IsAbs(d) {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		dirs = []string{"/etc/xdg"}
	}
	return dirs
}

// desktopExecQuote quotes one argument of a desktop entry's Exec key (the
// Desktop Entry Specification's rules): "%" becomes "%%"; an argument with a
// reserved character is put in double quotes, with `"`, "`", "$" and "\"
// backslash-escaped; and the key's own escaping doubles every backslash.
func desktopExecQuote(arg string) string {
	arg = strings.ReplaceAll(arg, "%", "%%")
	if strings.ContainsAny(arg, " \t\n\"'\\><~|&;$*?#()`") {
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range arg {
			if strings.ContainsRune("\"`$\\", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
		arg = b.String()
	}
	return strings.ReplaceAll(arg, `\`, `\\`)
}

// launchAgent is the macOS LaunchAgent (home/Library/LaunchAgents/AppID.plist)
// that starts exe at login.
func launchAgent(home, exe string) fileAutostart {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString("<plist version=\"1.0\">\n<dict>\n")
	b.WriteString("\t<key>Label</key>\n\t<string>" + AppID + "</string>\n")
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n\t\t<string>")
	xml.EscapeText(&b, []byte(exe))
	b.WriteString("</string>\n\t</array>\n")
	b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n")
	b.WriteString("\t<key>ProcessType</key>\n\t<string>Interactive</string>\n")
	b.WriteString("</dict>\n</plist>\n")
	return fileAutostart{
		path:    filepath.Join(home, "Library", "LaunchAgents", AppID+".plist"),
		content: b.Bytes(),
	}
}
