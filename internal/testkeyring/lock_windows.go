package testkeyring

import (
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// lockEntry holds an exclusive LockFileEx lock on path until t ends
// (cleanups run last-registered first: after the entry is put back).
func lockEntry(t testing.TB, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("the keyring entry's test lock: %v", err)
	}
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &windows.Overlapped{}); err != nil {
		f.Close()
		t.Fatalf("the keyring entry's test lock: %v", err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}
