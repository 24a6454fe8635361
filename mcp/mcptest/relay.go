package mcptest

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

// runRelay is the "relay" mode: the smallest stdio relay in Go, in front
// of an echo fake — io.Copy both ways between our stdio and the child's.
// The gateway benchmark measures it to show what one more Go process in
// between costs on this machine, whatever it does with the bytes.
func runRelay() int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 1
	}
	cmd := exec.Command(exe)
	cmd.Env = Env("echo")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 1
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 1
	}
	go func() {
		io.Copy(in, os.Stdin)
		in.Close()
	}()
	io.Copy(os.Stdout, out)
	cmd.Wait()
	return 0
}
