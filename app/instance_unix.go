//go:build unix

package app

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, or fails at once when another
// process holds it.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
