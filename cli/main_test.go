//go:build linux

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/cli/googleserve"
	"github.com/mcptray/mcptray/internal/testdaemon"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// TestMain makes this test binary three things besides the tests: the fake
// MCP servers (mcptest), the watchdog, and — with MCPTRAY_TEST_AS_MCPTRAY=1 —
// mcptray itself (without a desktop UI, and with the Google servers in
// process instead of an exec of mcptray-google), so end-to-end tests run the real command line in a real
// subprocess without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv(testBrowserEnv) != "" {
		os.Exit(testBrowser(os.Args[1:])) // e2e_oauth_test.go
	}
	downstream.RunWatchdogIfRequested()
	mcptest.Main()
	testdaemon.Main = func(args []string, stdout, stderr io.Writer) int {
		return Main(args, stdout, stderr, Options{ServeGoogle: googleserve.Serve})
	}
	if os.Getenv("MCPTRAY_TEST_AS_MCPTRAY") == "1" {
		// Its tests add entries by writing mcp.json: they run at once,
		// but in the tests of approvals (cli_launch_test.go).
		trustConfigEdits = os.Getenv("MCPTRAY_TEST_ASK_EDITS") != "1"
		if n, err := strconv.ParseInt(os.Getenv(logMaxEnv), 10, 64); err == nil {
			daemonLogMax = n
		}
		os.Exit(testdaemon.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// cli runs one command line in-process and returns exit code and output.
func cli(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return testdaemon.CLI(t, args...)
}

// The daemon helpers of package testdaemon, under their
// names here.
type (
	statusJSON = testdaemon.StatusJSON
	syncBuffer = testdaemon.SyncBuffer
)

var (
	fakeEntry      = testdaemon.FakeEntry
	writeConfig    = testdaemon.WriteConfig
	state          = testdaemon.State
	states         = testdaemon.States
	waitFor        = testdaemon.WaitFor
	procStatFields = testdaemon.ProcStatFields
	watchdogPID    = testdaemon.WatchdogPID
)

// instance is a `mcptray daemon` subprocess on temp dirs, with the methods
// these tests add.
type instance struct{ *testdaemon.Instance }

func startDaemon(t testing.TB, servers map[string]any) *instance {
	t.Helper()
	return &instance{testdaemon.Start(t, servers)}
}

// stopInstance sends SIGTERM and waits for the daemon to exit.
func stopInstance(t *testing.T, in *instance) {
	t.Helper()
	testdaemon.Stop(t, in.Instance)
}

func alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	f := procStatFields(pid)
	return len(f) > 0 && f[0] != "Z"
}

func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	if !testkit.Eventually(20*time.Second, func() bool { return !alive(pid) }) {
		t.Fatalf("%s (pid %d) still alive", what, pid)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"toggle", "a"},
		{"toggle", "a", "maybe"},
		{"status", "--bogus"},
		{"restart"},
		{"logs"},
	} {
		code, _, errs := cli(t, args...)
		if code != 2 || !strings.HasPrefix(errs, "mcptray: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a reason", args, code, errs)
		}
	}
}

func TestCommandsWithoutAnInstance(t *testing.T) {
	data := t.TempDir()
	code, _, errs := cli(t, "status", "--data", data)
	if code != 1 || !strings.Contains(errs, "mcptray is not running") || strings.Count(errs, "\n") != 1 {
		t.Errorf("status: exit %d, stderr %q; want 1 and one line saying it is not running", code, errs)
	}
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeConfig(t, cfg, map[string]any{"a": map[string]any{"command": "x"}})
	code, out, errs := cli(t, "toggle", "a", "off", "--data", data, "--config", cfg)
	if code != 0 || !strings.Contains(out, "not running") {
		t.Fatalf("offline toggle: exit %d, %q %q", code, out, errs)
	}
	b, _ := os.ReadFile(cfg)
	if !regexp.MustCompile(`"disabled":\s*true`).Match(b) {
		t.Errorf("offline toggle did not rewrite the file:\n%s", b)
	}
	code, _, errs = cli(t, "toggle", "zzz", "off", "--data", data, "--config", cfg)
	if code != 1 || !strings.Contains(errs, "zzz") {
		t.Errorf("toggle of unknown server: exit %d, %q", code, errs)
	}
}

func TestDaemonCLI(t *testing.T) {
	in := startDaemon(t, map[string]any{
		"echo":  fakeEntry(t, "stderr-log"),
		"crash": fakeEntry(t, "crash"),
	})
	st := in.WaitFor("echo ready, crash failing", func(st statusJSON) bool {
		s, _ := state(st, "crash")
		return states("echo", "ready")(st) && (s == "error" || s == "crash-loop")
	})
	// The status JSON carries the DESIGN.md §12 keys.
	_, out, _ := in.Run("status", "--json")
	for _, key := range []string{`"servers"`, `"configError"`, `"name"`, `"state"`, `"pid"`, `"tools"`, `"restarts"`, `"error"`} {
		if !strings.Contains(out, key) {
			t.Errorf("status --json lacks %s:\n%s", key, out)
		}
	}
	code, table, _ := in.Run("status")
	if code != 0 || !strings.Contains(table, "NAME") || !strings.Contains(table, "boom") {
		t.Errorf("status table (exit %d):\n%s", code, table)
	}

	_, pid := state(st, "echo")
	if code, _, errs := in.Run("toggle", "echo", "off"); code != 0 {
		t.Fatalf("toggle off: %d %s", code, errs)
	}
	in.WaitFor("echo disabled", states("echo", "disabled"))
	waitGone(t, pid, "disabled server")
	in.Run("toggle", "echo", "on")
	st = in.WaitFor("echo back", states("echo", "ready"))
	_, pid = state(st, "echo")

	if code, _, errs := in.Run("restart", "echo"); code != 0 {
		t.Fatalf("restart: %d %s", code, errs)
	}
	in.WaitFor("new pid", func(st statusJSON) bool { s, p := state(st, "echo"); return s == "ready" && p != pid })
	if code, _, errs := in.Run("restart", "nobody"); code != 1 || !strings.Contains(errs, "nobody") {
		t.Errorf("restart nobody: exit %d %q", code, errs)
	}

	code, logs, _ := in.Run("logs", "echo")
	if code != 0 || !strings.Contains(logs, "[lifecycle] ready") {
		t.Errorf("logs (exit %d):\n%s", code, logs)
	}
	if code, _, errs := in.Run("logs", "nobody"); code != 1 || !strings.Contains(errs, "nobody") {
		t.Errorf("logs nobody: exit %d %q", code, errs)
	}

	// logs -f follows new lines.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var follow syncBuffer
	go app.TailLog(ctx, in.Data, "echo", &follow, true)
	in.Run("restart", "echo")
	if !testkit.Eventually(20*time.Second, func() bool { return strings.Contains(follow.String(), "restart requested") }) {
		t.Fatalf("logs -f never showed the restart:\n%s", follow.String())
	}

	// A second daemon on the same data dir says where the first one is.
	exe, _ := os.Executable()
	second := exec.Command(exe, append([]string{"daemon"}, in.FlagsFirst...)...)
	second.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	out2, err := second.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out2), "already running (pid ") {
		t.Errorf("second daemon: %v: %s", err, out2)
	}
}

// TestKill9LeavesNoOrphans: after a kill -9 of the daemon, the watchdog
// kills every server and their descendants: in the group, and out of it
// (setsid), still linked to the server or already an orphan.
func TestKill9LeavesNoOrphans(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "gc.pid")
	treeFile, orphanFile := filepath.Join(dir, "tree.pid"), filepath.Join(dir, "orphan.pid")
	in := startDaemon(t, map[string]any{
		"gc":       fakeEntry(t, "grandchild", "MCPTRAY_FAKE_PIDFILE", pidfile),
		"stubborn": fakeEntry(t, "ignore-term"),
		"tree":     fakeEntry(t, "escaper", "MCPTRAY_FAKE_PIDFILE", treeFile),
		"orphan":   fakeEntry(t, "escaper", "MCPTRAY_FAKE_PIDFILE", orphanFile, "MCPTRAY_FAKE_ORPHAN", "1"),
	})
	st := in.WaitFor("ready", states("gc", "ready", "stubborn", "ready", "tree", "ready", "orphan", "ready"))
	tree, orphan := readEscapee(t, "setsid'd grandchild", treeFile), readEscapee(t, "setsid'd orphan", orphanFile)
	_, gcPID := state(st, "gc")
	_, stubbornPID := state(st, "stubborn")
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	var grandchild int
	fmt.Sscan(string(b), &grandchild)
	in.Cmd.Process.Signal(syscall.SIGKILL)
	<-in.Exited
	waitGone(t, gcPID, "server")
	waitGone(t, stubbornPID, "server ignoring SIGTERM")
	waitGone(t, grandchild, "grandchild")
	tree.waitReaped(t, 0)
	orphan.waitReaped(t, 0)
}
