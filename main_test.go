package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// TestMain makes this test binary three things besides the tests: the fake
// MCP servers (mcptest), the watchdog, and — with MCPTRAY_TEST_AS_MCPTRAY=1 —
// mcptray itself, so end-to-end tests run the real command line in a real
// subprocess without a separate build.
func TestMain(m *testing.M) {
	mcp.RunWatchdogIfRequested()
	mcptest.Main()
	if os.Getenv("MCPTRAY_TEST_AS_MCPTRAY") == "1" {
		if n, err := strconv.ParseInt(os.Getenv(logMaxEnv), 10, 64); err == nil {
			daemonLogMax = n
		}
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// cli runs one command line in-process and returns exit code and output.
func cli(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// instance is a `mcptray daemon` subprocess on temp dirs.
type instance struct {
	t          testing.TB
	cmd        *exec.Cmd
	config     string
	data       string
	stderr     *syncBuffer
	exited     chan struct{}
	flagsFirst []string
	env        []string // KEY=VALUE over the test's environment
}

func fakeEntry(t testing.TB, mode string, env ...string) map[string]any {
	exe, _ := os.Executable()
	e := map[string]string{"MCPTRAY_FAKE_SERVER": mode, "GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return map[string]any{"command": exe, "env": e}
}

func writeConfig(t testing.TB, path string, servers map[string]any) {
	t.Helper()
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func startDaemon(t testing.TB, servers map[string]any) *instance {
	t.Helper()
	dir := t.TempDir()
	in := &instance{t: t, config: filepath.Join(dir, "mcp.json"), data: filepath.Join(dir, "data")}
	if servers != nil {
		writeConfig(t, in.config, servers)
	}
	in.flagsFirst = []string{"--config", in.config, "--data", in.data}
	in.start()
	return in
}

func (in *instance) start() {
	t := in.t
	exe, _ := os.Executable()
	in.cmd = exec.Command(exe, append([]string{"daemon"}, in.flagsFirst...)...)
	in.cmd.Env = append(append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1"), in.env...)
	in.stderr = new(syncBuffer)
	in.cmd.Stderr = in.stderr
	in.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // gone with the test binary
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	in.exited = make(chan struct{})
	go func() { in.cmd.Wait(); close(in.exited) }()
	t.Cleanup(func() {
		in.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-in.exited:
		case <-time.After(30 * time.Second):
			in.cmd.Process.Kill()
			t.Error("daemon did not exit within 30s of SIGTERM")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := app.Dial(in.data); err == nil {
			return
		}
		select {
		case <-in.exited:
			t.Fatalf("daemon exited: %s", in.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon socket never appeared: %s", in.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// run runs a CLI command against this instance.
func (in *instance) run(args ...string) (int, string, string) {
	in.t.Helper()
	return cli(in.t, append(args, in.flagsFirst...)...)
}

type statusJSON struct {
	Servers []struct {
		Name     string `json:"name"`
		State    string `json:"state"`
		PID      int    `json:"pid"`
		Tools    int    `json:"tools"`
		Restarts int    `json:"restarts"`
		Error    string `json:"error"`
	} `json:"servers"`
	ConfigError string `json:"configError"`
}

func (in *instance) status() statusJSON {
	in.t.Helper()
	code, out, errs := in.run("status", "--json")
	if code != 0 {
		in.t.Fatalf("status --json: exit %d: %s", code, errs)
	}
	var st statusJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		in.t.Fatalf("status --json is not JSON: %v\n%s", err, out)
	}
	return st
}

func (in *instance) waitFor(what string, cond func(statusJSON) bool) statusJSON {
	in.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st := in.status()
		if cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			in.t.Fatalf("timed out waiting for %s: %+v", what, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func state(st statusJSON, name string) (string, int) {
	for _, s := range st.Servers {
		if s.Name == name {
			return s.State, s.PID
		}
	}
	return "", 0
}

func states(pairs ...string) func(statusJSON) bool {
	return func(st statusJSON) bool {
		for i := 0; i+1 < len(pairs); i += 2 {
			if s, _ := state(st, pairs[i]); s != pairs[i+1] {
				return false
			}
		}
		return true
	}
}

func alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	f := procStatFields(pid)
	return len(f) > 0 && f[0] != "Z"
}

// procStatFields returns the fields of /proc/PID/stat after the command
// name (which is in parentheses and may hold spaces): state, ppid, … — so
// utime and stime are f[11] and f[12]. It returns nil for a process that
// is gone.
func procStatFields(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
}

func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still alive", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
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
	st := in.waitFor("echo ready, crash failing", func(st statusJSON) bool {
		s, _ := state(st, "crash")
		return states("echo", "ready")(st) && (s == "error" || s == "crash-loop")
	})
	// The status JSON carries the DESIGN.md §12 keys.
	_, out, _ := in.run("status", "--json")
	for _, key := range []string{`"servers"`, `"configError"`, `"name"`, `"state"`, `"pid"`, `"tools"`, `"restarts"`, `"error"`} {
		if !strings.Contains(out, key) {
			t.Errorf("status --json lacks %s:\n%s", key, out)
		}
	}
	code, table, _ := in.run("status")
	if code != 0 || !strings.Contains(table, "NAME") || !strings.Contains(table, "boom") {
		t.Errorf("status table (exit %d):\n%s", code, table)
	}

	_, pid := state(st, "echo")
	if code, _, errs := in.run("toggle", "echo", "off"); code != 0 {
		t.Fatalf("toggle off: %d %s", code, errs)
	}
	in.waitFor("echo disabled", states("echo", "disabled"))
	waitGone(t, pid, "disabled server")
	in.run("toggle", "echo", "on")
	st = in.waitFor("echo back", states("echo", "ready"))
	_, pid = state(st, "echo")

	if code, _, errs := in.run("restart", "echo"); code != 0 {
		t.Fatalf("restart: %d %s", code, errs)
	}
	in.waitFor("new pid", func(st statusJSON) bool { s, p := state(st, "echo"); return s == "ready" && p != pid })
	if code, _, errs := in.run("restart", "nobody"); code != 1 || !strings.Contains(errs, "nobody") {
		t.Errorf("restart nobody: exit %d %q", code, errs)
	}

	code, logs, _ := in.run("logs", "echo")
	if code != 0 || !strings.Contains(logs, "[lifecycle] ready") {
		t.Errorf("logs (exit %d):\n%s", code, logs)
	}
	if code, _, errs := in.run("logs", "nobody"); code != 1 || !strings.Contains(errs, "nobody") {
		t.Errorf("logs nobody: exit %d %q", code, errs)
	}

	// logs -f follows new lines.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var follow syncBuffer
	go app.TailLog(ctx, in.data, "echo", &follow, true)
	in.run("restart", "echo")
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(follow.String(), "restart requested") {
		if time.Now().After(deadline) {
			t.Fatalf("logs -f never showed the restart:\n%s", follow.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A second daemon on the same data dir says where the first one is.
	exe, _ := os.Executable()
	second := exec.Command(exe, append([]string{"daemon"}, in.flagsFirst...)...)
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
	st := in.waitFor("ready", states("gc", "ready", "stubborn", "ready", "tree", "ready", "orphan", "ready"))
	tree, orphan := readEscapee(t, "setsid'd grandchild", treeFile), readEscapee(t, "setsid'd orphan", orphanFile)
	_, gcPID := state(st, "gc")
	_, stubbornPID := state(st, "stubborn")
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	var grandchild int
	fmt.Sscan(string(b), &grandchild)
	in.cmd.Process.Signal(syscall.SIGKILL)
	<-in.exited
	waitGone(t, gcPID, "server")
	waitGone(t, stubbornPID, "server ignoring SIGTERM")
	waitGone(t, grandchild, "grandchild")
	tree.waitReaped(t, 0)
	orphan.waitReaped(t, 0)
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor polls cond until it holds, for up to a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
