//go:build !linux

package testdaemon

import "os/exec"

// dieWithParent does nothing outside Linux (no Pdeathsig): the test's
// cleanup stops the daemon.
func dieWithParent(*exec.Cmd) {}
