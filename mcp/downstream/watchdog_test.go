//go:build linux

package downstream

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
)

// TestWatchdogKillsGroupsWhenMcptrayDies plays mcptray in a child process
// (runTestParent): it starts a watchdog, a server with a grandchild and a
// server whose descendant left the group (setsid) as an orphan, then gets
// SIGKILL. The server, the grandchild, the escapee and the watchdog must go.
func TestWatchdogKillsGroupsWhenMcptrayDies(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "grandchild.pid")
	parent := exec.Command(os.Args[0])
	parent.Env = append(mcptest.Env(""), testParentEnv+"=1", testPidFileEnv+"="+pidfile)
	parent.Env = removeEnv(parent.Env, mcptest.ModeEnv)
	parent.Stderr = os.Stderr
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		parent.Process.Kill()
		parent.Wait()
		t.Fatalf("reading pids from the parent: %v", err)
	}
	var server, grandchild, watchdog, escapee int
	fields := strings.Fields(line)
	if len(fields) != 4 {
		t.Fatalf("parent printed %q", line)
	}
	server, grandchild, watchdog, escapee = atoi(t, fields[0]), atoi(t, fields[1]), atoi(t, fields[2]), atoi(t, fields[3])
	t.Cleanup(func() { // if the test fails, leave nothing behind
		for _, pid := range []int{server, grandchild, watchdog, escapee} {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	for _, pid := range []int{server, grandchild, watchdog, escapee} {
		if processGone(pid) {
			t.Fatalf("pid %d not running before the kill", pid)
		}
	}

	parent.Process.Signal(syscall.SIGKILL)
	parent.Wait()

	waitGone(t, "grandchild", grandchild)
	waitGone(t, "escapee", escapee)
	waitGone(t, "server", server)
	waitGone(t, "watchdog", watchdog)
}

func TestWatchdogCloseKillsOnlyTracked(t *testing.T) {
	wd, err := StartWatchdog()
	if err != nil {
		t.Fatal(err)
	}
	tracked, untracked, forgotten := startSleeperGroup(t), startSleeperGroup(t), startSleeperGroup(t)
	wd.track(tracked.Process.Pid, "")
	wd.track(forgotten.Process.Pid, "")
	wd.untrack(forgotten.Process.Pid)
	if err := wd.Err(); err != nil {
		t.Fatal(err)
	}
	if err := wd.Close(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- tracked.Wait() }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("tracked group survived the watchdog's Close")
	}
	if !processGone(wd.PID()) {
		t.Error("watchdog still runs after Close")
	}
	for _, c := range []*exec.Cmd{untracked, forgotten} {
		if processGone(c.Process.Pid) {
			t.Errorf("untracked group %d was killed", c.Process.Pid)
		}
	}
}

// startSleeperGroup starts a fake sleeper as the leader of a new group.
func startSleeperGroup(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = mcptest.Env("sleeper")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

func removeEnv(env []string, key string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}
