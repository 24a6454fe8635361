//go:build unix

package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/mcp/exitwait"
)

// process is one server child, leader of its own process group.
type process struct {
	cmd      *exec.Cmd
	pid      int // also the process group id
	watchdog *Watchdog

	exited chan struct{}    // closed once the leader is reaped and its group is gone
	state  *os.ProcessState // the leader's exit; set before exited closes
}

// startProcess starts path in a new process group with the given pipe ends
// as its stdio, and reaps it in the background.
func startProcess(spec StdioSpec, path string, stdin, stdout, stderr *os.File) (*process, error) {
	cmd := &exec.Cmd{
		Path:        path,
		Args:        append([]string{spec.Command}, spec.Args...),
		Env:         spec.Env,
		Dir:         spec.Dir,
		Stdin:       stdin,
		Stdout:      stdout,
		Stderr:      stderr,
		SysProcAttr: serverProcAttr(),
	}
	if err := cmd.Start(); err != nil {
		return nil, startError(spec, err)
	}
	p := &process{cmd: cmd, pid: cmd.Process.Pid, watchdog: spec.Watchdog, exited: make(chan struct{})}
	if p.watchdog != nil {
		p.watchdog.Track(p.pid)
	}
	go p.reap(termGraceOf(spec))
	return p, nil
}

// startError makes exec's error readable: which directory or which file.
func startError(spec StdioSpec, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if pe.Op == "chdir" {
			return fmt.Errorf("working directory %q: %v", pe.Path, pe.Err)
		}
		return fmt.Errorf("running %q: %v", pe.Path, pe.Err)
	}
	return fmt.Errorf("running %q: %v", spec.Command, err)
}

// reap waits for the leader, then stops whatever is left of its group
// (SIGTERM, up to grace, SIGKILL), so a server's children never outlive it.
func (p *process) reap(grace time.Duration) {
	exitwait.Wait(p.cmd) // the exit status is in ProcessState; Wait's error adds nothing
	p.state = p.cmd.ProcessState
	if !groupGone(p.pid) {
		p.signalGroup(syscall.SIGTERM)
		if !waitGroupGone(p.pid, grace) {
			p.signalGroup(syscall.SIGKILL)
			waitGroupGone(p.pid, time.Second)
		}
	}
	if p.watchdog != nil {
		p.watchdog.Untrack(p.pid)
	}
	close(p.exited)
}

// signalGroup sends sig to every process in the group.
func (p *process) signalGroup(sig syscall.Signal) {
	if p.pid > 1 { // never kill(-1, …): that is every process we may signal
		syscall.Kill(-p.pid, sig)
	}
}

// waitExit reports whether the group is gone within d.
func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// stop escalates: closeStdin, wait up to stopGrace, SIGTERM to the group,
// wait up to termGrace, SIGKILL to the group, wait for the exit. It reports
// whether a signal was needed.
func (p *process) stop(closeStdin func(), stopGrace, termGrace time.Duration) (signaled bool) {
	closeStdin()
	if p.waitExit(stopGrace) {
		return false
	}
	p.signalGroup(syscall.SIGTERM)
	if p.waitExit(termGrace) {
		return true
	}
	p.kill()
	return true
}

// kill sends SIGKILL to the group and waits until it is gone.
func (p *process) kill() {
	p.signalGroup(syscall.SIGKILL)
	<-p.exited
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

// waitGroupGone polls until the group has no live process, for up to d.
func waitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if groupGone(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// lookCommand resolves a configured command like a shell would, but with
// the PATH from the child's environment when it has one.
func lookCommand(command string, env []string, dir string) (string, error) {
	if command == "" {
		return "", errors.New("no command")
	}
	if strings.Contains(command, "/") {
		path := command
		if !filepath.IsAbs(path) && dir != "" {
			path = filepath.Join(dir, path)
		}
		if err := checkExecutable(path); err != nil {
			return "", fmt.Errorf("command %q: %v", command, err)
		}
		return path, nil
	}
	pathVar, ok := lookupEnv(env, "PATH")
	if !ok {
		pathVar = os.Getenv("PATH")
	}
	for _, d := range filepath.SplitList(pathVar) {
		if !filepath.IsAbs(d) {
			continue // a relative PATH entry would depend on the working directory
		}
		path := filepath.Join(d, command)
		if checkExecutable(path) == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("command %q not found in PATH", command)
}

// checkDir reports a working directory that cannot be one, before exec
// would fail with an error naming the command instead.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("working directory %q: %v", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("working directory %q: not a directory", dir)
	}
	return nil
}

func checkExecutable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errors.New("no such file")
		}
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory")
	}
	if fi.Mode()&0o111 == 0 {
		return errors.New("not executable")
	}
	return nil
}

// lookupEnv finds key in a KEY=VALUE list; the last one wins, as in exec.
func lookupEnv(env []string, key string) (string, bool) {
	if env == nil {
		return "", false
	}
	val, found := "", false
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			val, found = v, true
		}
	}
	return val, found
}
