package app

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes an exclusive LockFileEx lock on f, or fails at once when
// another process holds it. The locked byte lies far past the pid that
// the holder writes at the start: a locked range cannot be read on
// Windows, and a second instance reads the pid for its error.
func lockFile(f *os.File) error {
	ol := &windows.Overlapped{OffsetHigh: 1} // the byte at 4 GiB
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
}
