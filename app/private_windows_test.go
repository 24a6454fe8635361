package app

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/internal/testkit"
)

// TestWindowsDataDirACL: the data dir's DACL, read back, grants the
// current user alone, and endpoint.json (written as the core writes it)
// and a file that was there before inherit it. Wine 8 keeps no DACL of a
// file or folder (it reads back one made from the unix mode, and enforces
// none): there only the call's success is checked, and the read-back
// needs real Windows.
func TestWindowsDataDirACL(t *testing.T) {
	data := filepath.Join(testkit.TempDir(t), "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	before := filepath.Join(data, "mcptray.log")
	os.WriteFile(before, []byte("from connect\n"), 0o600)
	if err := makePrivate(data); err != nil {
		t.Fatal(err)
	}
	if err := config.WriteAtomic(endpointPath(data), []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil {
		t.Log("under Wine: makePrivate succeeded; Wine keeps no file DACL to read back")
		return
	}
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		t.Fatal(err)
	}
	sid := tu.User.Sid.String()
	for path, want := range map[string]string{
		data:               "D:P(A;OICI;FA;;;" + sid + ")",
		endpointPath(data): "D:(A;ID;FA;;;" + sid + ")",
		before:             "D:(A;ID;FA;;;" + sid + ")",
	} {
		sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
		if err != nil {
			t.Fatal(err)
		}
		if sd.String() != want {
			t.Errorf("%s: DACL %s, want %s", filepath.Base(path), sd, want)
		}
	}
}
