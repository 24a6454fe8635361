package downstream

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
	"golang.org/x/sys/windows"
)

// The test binary is also every fake server (mcptest.Main) and, with
// MCPTRAY_TEST_PARENT=1, a stand-in for mcptray that a test kills.
func TestMain(m *testing.M) {
	mcptest.Main()
	if os.Getenv(testParentEnv) == "1" {
		os.Exit(runTestParent())
	}
	os.Exit(m.Run())
}

const (
	testParentEnv  = "MCPTRAY_TEST_PARENT"
	testPidFileEnv = "MCPTRAY_TEST_PIDFILE"
)

// runTestParent plays mcptray: one server whose child is a grandchild
// sleeper, one whose sleeper was started detached by a child that then
// exited (mode escaper, orphan). It prints "SERVER GRANDCHILD ESCAPEE"
// pids and waits to be killed.
func runTestParent() int {
	pidfile := os.Getenv(testPidFileEnv)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Start(ctx, StdioSpec{
		Command: os.Args[0],
		Env:     mcptest.Env("grandchild", mcptest.PidFileEnv+"="+pidfile),
	}, Hooks{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	escapeeFile := pidfile + ".escapee"
	if _, err := Start(ctx, StdioSpec{
		Command: os.Args[0],
		Env:     mcptest.Env("escaper", mcptest.PidFileEnv+"="+escapeeFile, mcptest.OrphanEnv+"=1"),
	}, Hooks{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	e, err := os.ReadFile(escapeeFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%d %s %s\n", s.PID(), b, e)
	time.Sleep(30 * time.Second) // the test kills us long before
	return 1
}

// fakeSpec is the spec for a fake server in mode.
func fakeSpec(mode string, extra ...string) StdioSpec {
	return StdioSpec{
		Name:      mode,
		Command:   os.Args[0],
		Env:       mcptest.Env(mode, extra...),
		StopGrace: 500 * time.Millisecond,
		TermGrace: 500 * time.Millisecond,
	}
}

// startFake starts spec and closes the session at cleanup.
func startFake(t *testing.T, spec StdioSpec) *Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, spec, Hooks{})
	if err != nil {
		t.Fatalf("starting %s: %v", spec.Name, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// processGone reports whether pid no longer runs.
func processGone(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return true
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == windows.WAIT_OBJECT_0
}

func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	if !testkit.Eventually(5*time.Second, func() bool { return processGone(pid) }) {
		t.Errorf("%s (pid %d) still runs", what, pid)
	}
}

// tempDir is t.TempDir, but emptied file by file: under Wine 8,
// os.RemoveAll fails ("unlinkat …: Invalid function") where os.Remove
// works.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "downstream-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			os.Remove(filepath.Join(dir, e.Name()))
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("removing %s: %v", dir, err)
		}
	})
	return dir
}

func readPidFile(t *testing.T, path string) int {
	t.Helper()
	var b []byte
	if !testkit.Eventually(5*time.Second, func() bool {
		var err error
		b, err = os.ReadFile(path)
		return err == nil
	}) {
		t.Fatalf("no pid file %s", path)
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b)))
	if err != nil {
		t.Fatalf("pid file %s: %v", path, err)
	}
	return pid
}
