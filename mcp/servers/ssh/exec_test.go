//go:build unix

package ssh

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

func TestExec(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)

	var out execOut
	e.ok("exec", map[string]any{"alias": "box", "command": "echo hello; echo oops >&2; exit 3"}, &out)
	if out.ExitCode != 3 || out.Stdout != "hello\n" || out.Stderr != "oops\n" {
		t.Errorf("exec = %+v", out)
	}

	// cwd, stdin, bash features.
	dir := t.TempDir()
	e.ok("exec", map[string]any{"alias": "box", "command": "pwd; cat; echo ${BASH_VERSION:+bash}", "cwd": dir, "stdin": "line 1\nline 2\n"}, &out)
	if want := dir + "\nline 1\nline 2\nbash\n"; out.Stdout != want || out.ExitCode != 0 {
		t.Errorf("stdout = %q, want %q (%+v)", out.Stdout, want, out)
	}

	// A command with quotes of every kind reaches the shell intact.
	e.ok("exec", map[string]any{"alias": "box", "command": `printf '%s|' "a b" 'c'\''d' "$(echo e)"`}, &out)
	if out.Stdout != "a b|c'd|e|" {
		t.Errorf("quoting: stdout = %q", out.Stdout)
	}

	if msg := e.fail("exec", map[string]any{"alias": "box", "command": "true", "cwd": "/no/such/dir"}); !strings.Contains(msg, "cannot change to directory /no/such/dir") {
		t.Errorf("bad cwd: %s", msg)
	}
	if msg := e.fail("exec", map[string]any{"alias": "nope", "command": "true"}); !strings.Contains(msg, `no such SSH alias "nope"`) {
		t.Errorf("unknown alias: %s", msg)
	}
	if msg := e.fail("exec", map[string]any{"alias": "box", "command": "  "}); !strings.Contains(msg, "command is empty") {
		t.Errorf("empty command: %s", msg)
	}
	if msg := e.fail("exec", map[string]any{"alias": "box", "command": "id", "sudo_user": "bad user"}); !strings.Contains(msg, "not a user name") {
		t.Errorf("bad sudo_user: %s", msg)
	}
}

func TestExecCapsOutput(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	var out execOut
	e.ok("exec", map[string]any{"alias": "box", "command": "head -c 100000 /dev/zero | tr '\\0' a; head -c 70000 /dev/zero | tr '\\0' b >&2"}, &out)
	if len(out.Stdout) != maxOutput || out.StdoutBytes != 100000 || !out.StdoutTruncated {
		t.Errorf("stdout: %d bytes kept of %d, truncated %v", len(out.Stdout), out.StdoutBytes, out.StdoutTruncated)
	}
	if len(out.Stderr) != maxOutput || out.StderrBytes != 70000 || !out.StderrTruncated {
		t.Errorf("stderr: %d bytes kept of %d, truncated %v", len(out.Stderr), out.StderrBytes, out.StderrTruncated)
	}
	if !strings.Contains(out.Note, "stdout truncated: the first 65536 of 100000 bytes") || !strings.Contains(out.Note, "stderr truncated") {
		t.Errorf("note = %q", out.Note)
	}
}

// A command past its timeout is killed with its whole process group, even
// a child that ignores SIGTERM.
func TestExecTimeoutKillsRemoteProcess(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	var out execOut
	start := time.Now()
	res := e.call("exec", map[string]any{"alias": "box", "command": "echo $$; trap '' TERM; sleep 30 & sleep 30; wait", "timeout_s": 1}, &out)
	if !res.IsError || !out.TimedOut || !strings.Contains(out.Note, "timed out after 1s: the remote process group was killed") {
		t.Fatalf("timed-out exec: isError %v, %+v", res.IsError, out)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %s", d)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(out.Stdout))
	if err != nil {
		t.Fatalf("stdout %q: %v", out.Stdout, err)
	}
	testkit.WaitForWithin(t, 10*time.Second, "the process group to be gone", func() bool {
		return syscall.Kill(-pgid, 0) == syscall.ESRCH
	})
	// The connection still works.
	e.ok("exec", map[string]any{"alias": "box", "command": "true"}, &out)
}
