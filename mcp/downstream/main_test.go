//go:build linux

package downstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// The test binary is also every fake server (mcptest.Main), the watchdog
// (RunWatchdogIfRequested) and, with MCPTRAY_TEST_PARENT=1, a stand-in for
// mcptray that the watchdog test kills with SIGKILL.
func TestMain(m *testing.M) {
	RunWatchdogIfRequested()
	mcptest.Main()
	if os.Getenv(testParentEnv) == "1" {
		os.Exit(runTestParent())
	}
	if os.Getenv(testSubreaperEnv) == "1" {
		os.Exit(runSubreaperParent())
	}
	os.Exit(m.Run())
}

const (
	testParentEnv  = "MCPTRAY_TEST_PARENT"
	testPidFileEnv = "MCPTRAY_TEST_PIDFILE"
)

// runTestParent plays mcptray: a watchdog, one server whose child is a
// grandchild sleeper and one whose sleeper left the group as an orphan
// (mode escaper). It prints "SERVER GRANDCHILD WATCHDOG ESCAPEE" pids and
// waits to be killed.
func runTestParent() int {
	wd, err := StartWatchdog()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	pidfile := os.Getenv(testPidFileEnv)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := Start(ctx, StdioSpec{
		Command:  os.Args[0],
		Env:      mcptest.Env("grandchild", mcptest.PidFileEnv+"="+pidfile),
		Watchdog: wd,
	}, Hooks{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	escapeeFile := pidfile + ".escapee"
	if _, err := Start(ctx, StdioSpec{
		Command:  os.Args[0],
		Env:      mcptest.Env("escaper", mcptest.PidFileEnv+"="+escapeeFile, mcptest.OrphanEnv+"=1"),
		Watchdog: wd,
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
	fmt.Printf("%d %s %d %s\n", s.PID(), b, wd.PID(), e)
	time.Sleep(30 * time.Second) // the test kills us long before
	return 1
}

// fake is a started fake server with its log.
type fake struct {
	*Session
	marker string // InstanceEnv=… in the server's environment
	log    *mcptest.Log
}

type fakeOpt func(*StdioSpec)

func withEnv(kv ...string) fakeOpt {
	return func(s *StdioSpec) { s.Env = append(s.Env, kv...) }
}

// fakeSpec is the spec for a fake server in mode, marked with a fresh
// instance id so the test can find every process it left.
func fakeSpec(mode string, opts ...fakeOpt) (StdioSpec, string) {
	marker := mcptest.Marker(InstanceEnv)
	spec := StdioSpec{
		Name:      mode,
		Command:   os.Args[0],
		Env:       mcptest.Env(mode, marker),
		StopGrace: 500 * time.Millisecond,
		TermGrace: 500 * time.Millisecond,
	}
	for _, o := range opts {
		o(&spec)
	}
	return spec, marker
}

// startFake starts a fake server in mode (mcptest's harness), its log
// recorded unless hooks has a Log of its own.
func startFake(t testing.TB, mode string, hooks Hooks, opts ...fakeOpt) *fake {
	t.Helper()
	spec, marker := fakeSpec(mode, opts...)
	rec := &mcptest.Log{}
	if hooks.Log == nil {
		hooks.Log = rec.Add
	}
	s := mcptest.StartFake(t, mode, marker, func(ctx context.Context) (*Session, error) { return Start(ctx, spec, hooks) })
	return &fake{Session: s, marker: marker, log: rec}
}

// processGone reports whether pid no longer runs (a zombie counts as gone:
// its parent may never reap it).
func processGone(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	st, err := readProcStat(pid)
	return err != nil || st.state == 'Z' || st.state == 'X'
}

func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	if !testkit.Eventually(5*time.Second, func() bool { return processGone(pid) }) {
		t.Errorf("%s (pid %d) still runs", what, pid)
	}
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
