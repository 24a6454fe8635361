//go:build linux

package loginenv

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

// bashShell writes a bash script standing in for $SHELL (bash, as the
// person's: it runs EXIT traps on SIGTERM).
func bashShell(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fakebash")
	if err := os.WriteFile(path, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A login shell still in its rc files at the timeout gets SIGTERM first,
// so their EXIT traps run: pyenv rehash removes its lock file in one, and
// a lock left behind makes every later shell of the person wait 60 s.
func TestReadTimeoutRunsTraps(t *testing.T) {
	lock := filepath.Join(t.TempDir(), ".pyenv-shim")
	sh := bashShell(t, `: > '`+lock+`'
trap "rm -f '`+lock+`'" EXIT
sleep 60
`)
	_, err := Read(context.Background(), sh, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not print its environment") {
		t.Fatalf("error %v, want a timeout", err)
	}
	testkit.WaitFor(t, "the shell's EXIT trap to remove its lock", func() bool {
		_, err := os.Stat(lock)
		return os.IsNotExist(err)
	})
}

// A group that ignores SIGTERM is killed all the same, children too.
func TestReadTimeoutKillsWhatIgnoresTerm(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	sh := bashShell(t, `trap '' TERM
sleep 60 &
echo $! > '`+pidFile+`'
exec sleep 60
`)
	_, err := Read(context.Background(), sh, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not print its environment") {
		t.Fatalf("error %v, want a timeout", err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the child that ignores SIGTERM to be killed", func() bool {
		// Killed, it is a zombie until its parent (the shell, killed
		// too) is gone and init reaps it: either way not running.
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		return err != nil || strings.Contains(string(st), ") Z ") || syscall.Kill(pid, 0) != nil
	})
}
