//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// execProcess runs bin (argv args) on this process's stdin, stdout and
// stderr, where there is no exec: it returns when bin exits, and ends this
// process with bin's exit code.
func execProcess(bin string, args []string) error {
	cmd := exec.Command(bin, args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
