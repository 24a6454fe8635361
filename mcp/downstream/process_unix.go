//go:build unix

package downstream

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// family is what a Unix server's family is found and stopped by: the
// process group (its id is the leader's pid) and the strays that left it.
type family struct {
	mu     sync.Mutex
	strays []stray // guarded by mu: descendants found outside the group
}

// startFamily has nothing to do: serverProcAttr made the process group.
func (p *process) startFamily() error { return nil }

// jobHandle is Windows' (liveServer.job): 0 here.
func (p *process) jobHandle() uintptr { return 0 }

// release has nothing to free: a process group ends with its processes.
func (p *process) release() {}

// askFamily asks the family to end: SIGTERM.
func (p *process) askFamily() { p.signalFamily(syscall.SIGTERM) }

// killOnce sends SIGKILL to the family.
func (p *process) killOnce() { p.signalFamily(syscall.SIGKILL) }

// collect looks for the family's strays again, adds them to those known
// and reports how many are alive.
func (p *process) collect() int {
	p.mu.Lock()
	known := slices.Clone(p.strays)
	p.mu.Unlock()
	found := scanStrays(p.pid, p.start, p.pid, p.marker, known)
	p.mu.Lock()
	for _, s := range found {
		if !slices.Contains(p.strays, s) {
			p.strays = append(p.strays, s)
		}
	}
	p.mu.Unlock()
	return len(found)
}

// signalFamily sends sig to every process in the group and to every
// known stray.
func (p *process) signalFamily(sig syscall.Signal) {
	if p.pid > 1 { // never kill(-1, …): that is every process we may signal
		syscall.Kill(-p.pid, sig)
	}
	p.mu.Lock()
	strays := slices.Clone(p.strays)
	p.mu.Unlock()
	for _, s := range strays {
		signalStray(s, sig)
	}
}

// familyGone reports whether no process of the group, no known stray and
// no newly found one is alive.
func (p *process) familyGone() bool {
	if !groupGone(p.pid) {
		return false
	}
	p.mu.Lock()
	strays := slices.Clone(p.strays)
	p.mu.Unlock()
	for _, s := range strays {
		if strayAlive(s) {
			return false
		}
	}
	return p.collect() == 0
}

// describeExit is the one-line reason and the exit code (-1 for a signal).
func describeExit(st *os.ProcessState) (string, int) {
	if st == nil {
		return "exited", -1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("killed by signal %d", int(ws.Signal())), -1
	}
	return fmt.Sprintf("exited with code %d", st.ExitCode()), st.ExitCode()
}

// hasDir reports a command given with a directory, not looked up in PATH.
func hasDir(command string) bool { return strings.Contains(command, "/") }

// findExecutable returns path if it is an executable file.
func findExecutable(path string) (string, error) {
	if err := checkExecutable(path); err != nil {
		return "", err
	}
	return path, nil
}

func checkExecutable(path string) error {
	fi, err := statFile(path)
	if err != nil {
		return err
	}
	if fi.Mode()&0o111 == 0 {
		return errors.New("not executable")
	}
	return nil
}

// whichCommand is what prints a command's path in a terminal.
const whichCommand = "command -v"

// sameEnvKey: environment names are case-sensitive.
func sameEnvKey(a, b string) bool { return a == b }
