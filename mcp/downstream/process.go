package downstream

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp/exitwait"
)

// process is one server child: on Unix the leader of its own process
// group, on Windows the first process of its own Job Object. family
// (process_unix.go, process_windows.go) holds what finds and stops the
// rest of its descendants.
type process struct {
	cmd      *exec.Cmd
	pid      int    // also the process group id (Unix)
	start    uint64 // the leader's start time (0: unknown), see ProcStart
	marker   []byte // serverEnv=… in its environment: this start's alone
	watchdog *Watchdog
	family

	exited chan struct{}    // closed once the leader is reaped and its family is gone
	state  *os.ProcessState // the leader's exit; set before exited closes
}

// startProcess starts path in a family of its own (a new process group, a
// Job Object) with the given pipe ends as its stdio, and reaps it in the
// background.
func startProcess(spec StdioSpec, path string, stdin, stdout, stderr *os.File) (*process, error) {
	env, marker := markServer(spec.Env)
	cmd := &exec.Cmd{
		Path:        path,
		Args:        append([]string{spec.Command}, spec.Args...),
		Env:         env,
		Dir:         spec.Dir,
		Stdin:       stdin,
		Stdout:      stdout,
		Stderr:      stderr,
		SysProcAttr: serverProcAttr(),
	}
	if err := startOwned(cmd); err != nil {
		return nil, startError(spec, err)
	}
	p := &process{cmd: cmd, pid: cmd.Process.Pid, marker: []byte(marker), watchdog: spec.Watchdog, exited: make(chan struct{})}
	if err := p.startFamily(); err != nil {
		cmd.Process.Kill()
		exitwait.Wait(cmd)
		disown(p.pid)
		return nil, startError(spec, err)
	}
	p.start = procStart(p.pid)
	addLive(liveServer{name: spec.Name, pid: p.pid, start: p.start, marker: p.marker, job: p.jobHandle()})
	if p.watchdog != nil {
		p.watchdog.track(p.pid, marker)
	}
	go p.reap(termGraceOf(spec))
	return p, nil
}

// markServer returns env (nil: ours) with serverEnv set to a value of its
// own, and that KEY=VALUE entry. A marker inherited from elsewhere is
// dropped, so each process carries one server's marker at most.
func markServer(env []string) ([]string, string) {
	if env == nil {
		env = os.Environ()
	}
	var id [16]byte
	rand.Read(id[:])
	marker := serverEnv + "=" + hex.EncodeToString(id[:])
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, serverEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, marker), marker
}

// owned are the children this package started and waits for itself (the
// servers and the watchdog): the subreaper's reaper leaves them alone.
var owned = struct {
	mu   sync.Mutex   // held across Start, so no owned child is seen unregistered
	pids map[int]bool // guarded by mu
}{pids: map[int]bool{}}

// startOwned starts cmd and registers it as owned until disown.
func startOwned(cmd *exec.Cmd) error {
	owned.mu.Lock()
	defer owned.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	owned.pids[cmd.Process.Pid] = true
	return nil
}

// disown forgets pid once it has been reaped.
func disown(pid int) {
	owned.mu.Lock()
	defer owned.mu.Unlock()
	delete(owned.pids, pid)
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

// reap waits for the leader, then stops whatever is left of its family
// (askFamily, up to grace, killFamily), so a server's descendants never
// outlive it.
func (p *process) reap(grace time.Duration) {
	exitwait.Wait(p.cmd) // the exit status is in ProcessState; Wait's error adds nothing
	p.state = p.cmd.ProcessState
	disown(p.pid)
	if !p.familyGone() {
		p.askFamily()
		if !p.waitFamilyGone(grace) {
			p.killFamily(time.Second)
		}
	}
	if p.watchdog != nil {
		p.watchdog.untrack(p.pid)
	}
	removeLive(p.pid)
	p.release()
	close(p.exited)
}

// waitFamilyGone polls until the family is gone, for up to d.
func (p *process) waitFamilyGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if p.familyGone() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// killFamily kills the family until it is gone (a stray found late, or
// forked meanwhile, gets its own kill), for up to d.
func (p *process) killFamily(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		p.killOnce()
		if p.familyGone() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitExit reports whether the family is gone within d.
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

// stop escalates: closeStdin, wait up to stopGrace, askFamily (SIGTERM;
// nothing on Windows), wait up to termGrace, killFamily, wait for the
// exit. It reports whether more than closing stdin was needed. The strays
// are looked for first, while the leader runs and its descendants are
// still linked to it.
func (p *process) stop(closeStdin func(), stopGrace, termGrace time.Duration) (signaled bool) {
	p.collect()
	closeStdin()
	if p.waitExit(stopGrace) {
		return false
	}
	p.askFamily()
	if p.waitExit(termGrace) {
		return true
	}
	p.kill()
	return true
}

// kill kills the family and waits until it is gone.
func (p *process) kill() {
	p.killOnce()
	<-p.exited
}

// lookCommand resolves a configured command like a shell would, but with
// the PATH from the child's environment when it has one.
func lookCommand(command string, env []string, dir string) (string, error) {
	if command == "" {
		return "", errors.New("no command")
	}
	if hasDir(command) {
		path := command
		if !filepath.IsAbs(path) && dir != "" {
			path = filepath.Join(dir, path)
		}
		path, err := findExecutable(path)
		if err != nil {
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
		if path, err := findExecutable(filepath.Join(d, command)); err == nil {
			return path, nil
		}
	}
	return "", &CommandNotFoundError{Command: command, Path: pathVar}
}

// CommandNotFoundError is a bare command name that no directory of the
// server's PATH holds. Its message names that PATH (never another
// variable) and how to avoid depending on it.
type CommandNotFoundError struct {
	Command string
	Path    string // the PATH searched
}

func (e *CommandNotFoundError) Error() string {
	path := e.Path
	if path == "" {
		path = "(empty)"
	}
	return fmt.Sprintf("command %q not found in PATH %s; give its absolute path in mcp.json, as `mcptray setup` does "+
		"(`%s %s` in a terminal prints it), or see the servers' PATH in `mcptray status --json`", e.Command, path, whichCommand, e.Command)
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

// lookupEnv finds key in a KEY=VALUE list (names compared as the system
// does: sameEnvKey); the last one wins, as in exec.
func lookupEnv(env []string, key string) (string, bool) {
	if env == nil {
		return "", false
	}
	val, found := "", false
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && sameEnvKey(k, key) {
			val, found = v, true
		}
	}
	return val, found
}

// statFile stats path, a file a command may name, and says in a few words
// why it is none: "no such file", "is a directory".
func statFile(path string) (fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("no such file")
		}
		return nil, err
	}
	if fi.IsDir() {
		return nil, errors.New("is a directory")
	}
	return fi, nil
}
