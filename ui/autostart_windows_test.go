package ui

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/windows/registry"
)

// TestRunKeyAutostartWindows turns autostart on and off in the real Run
// key of the current user (under Wine, the prefix's), with a value of the
// test's own: on writes the quoted command, off deletes the value, and
// off twice is no error.
func TestRunKeyAutostartWindows(t *testing.T) {
	exe := `C:\Users\Zoë Test\AppData\Local\Programs\mcptray\mcptray.exe`
	a := runKeyAutostart{value: fmt.Sprintf("mcptray-test-%d", os.Getpid()), command: `"` + exe + `"`}
	t.Cleanup(func() { a.SetEnabled(false) })
	if want := `HKEY_CURRENT_USER\Software\Microsoft\Windows\CurrentVersion\Run\` + a.value; a.Where() != want {
		t.Errorf("Where() = %q, want %q", a.Where(), want)
	}
	if on, err := a.Enabled(); on || err != nil {
		t.Fatalf("Enabled() = %v, %v before SetEnabled", on, err)
	}
	if err := a.SetEnabled(true); err != nil {
		t.Fatal(err)
	}
	if on, err := a.Enabled(); !on || err != nil {
		t.Errorf("Enabled() = %v, %v after SetEnabled(true)", on, err)
	}
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if got, typ, err := k.GetStringValue(a.value); got != `"`+exe+`"` || typ != registry.SZ || err != nil {
		t.Errorf("Run value = %q (type %d), %v; want %q as REG_SZ", got, typ, err, `"`+exe+`"`)
	}
	if err := a.SetEnabled(false); err != nil {
		t.Fatal(err)
	}
	if on, err := a.Enabled(); on || err != nil {
		t.Errorf("Enabled() = %v, %v after SetEnabled(false)", on, err)
	}
	if _, _, err := k.GetStringValue(a.value); err != registry.ErrNotExist {
		t.Errorf("Run value after SetEnabled(false): %v, want ErrNotExist", err)
	}
	if err := a.SetEnabled(false); err != nil {
		t.Errorf("SetEnabled(false) twice: %v", err)
	}
}

// TestDefaultAutostartWindows: the Settings switch writes the "mcptray"
// value, the executable's path in quotes (spaces in a path are common).
func TestDefaultAutostartWindows(t *testing.T) {
	a, err := defaultAutostart(`C:\Program Files\mcptray\mcptray.exe`)
	if err != nil {
		t.Fatal(err)
	}
	r := a.(runKeyAutostart)
	if r.value != "mcptray" || r.command != `"C:\Program Files\mcptray\mcptray.exe"` {
		t.Errorf("defaultAutostart = %+v", r)
	}
}
