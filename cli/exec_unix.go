//go:build unix

package cli

import (
	"os"
	"syscall"
)

// execProcess replaces this process with bin (argv args, this
// environment); it returns only on failure.
func execProcess(bin string, args []string) error {
	return syscall.Exec(bin, args, os.Environ())
}
