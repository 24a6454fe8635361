package app

import (
	"os"

	"golang.org/x/sys/windows"
)

// openLog opens a log file for reading, sharing delete access (os.Open
// does not): Windows renames no file that someone has open otherwise, and
// a log followed in the tray or by `mcptray logs -f` must still rotate.
// The reader then keeps the renamed file, as on Unix.
func openLog(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
