//go:build unix

package testkeyring

import (
	"os"
	"syscall"
	"testing"
)

// lockEntry holds an exclusive flock on path until t ends (cleanups run
// last-registered first: after the entry is put back).
func lockEntry(t testing.TB, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("the keyring entry's test lock: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("the keyring entry's test lock: %v", err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}
