//go:build linux

package cli

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// runBounded runs `mcptray ARGS…` against in as a subprocess and fails the
// test if it has not ended within a minute (a hung read of mcp.json).
func runBounded(t *testing.T, in *instance, args ...string) (code int, out string) {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append(args, in.FlagsFirst...)...)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
	buf := new(testdaemon.SyncBuffer)
	cmd.Stdout, cmd.Stderr = buf, buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("mcptray %s hung: %s", strings.Join(args, " "), buf)
	}
	return cmd.ProcessState.ExitCode(), buf.String()
}

// A FIFO in place of mcp.json is refused with a configError (reading it
// would block for ever); the last good config keeps running, toggle fails
// with the reason instead of hanging, and the next real file is applied.
func TestConfigFIFORefused(t *testing.T) {
	in := startDaemon(t, map[string]any{"echo": fakeEntry(t, "echo")})
	in.WaitFor("echo ready", states("echo", "ready"))
	_, pid := state(in.Status(), "echo")

	if err := os.Remove(in.Config); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(in.Config, 0o600); err != nil {
		t.Fatal(err)
	}
	st := in.WaitFor("a configError for the FIFO", func(st testdaemon.StatusJSON) bool {
		return strings.Contains(st.ConfigError, "not a regular file")
	})
	if s, p := state(st, "echo"); s != "ready" || p != pid {
		t.Errorf("echo is %s (pid %d), want still ready as pid %d", s, p, pid)
	}

	code, out := runBounded(t, in, "toggle", "echo", "off")
	if code != 1 || !strings.Contains(out, "not a regular file") {
		t.Errorf("toggle on a FIFO config: exit %d: %q; want 1 and the reason", code, out)
	}

	// The next real file is applied.
	os.Remove(in.Config)
	writeConfig(t, in.Config, map[string]any{"echo": fakeEntry(t, "echo"), "two": fakeEntry(t, "echo")})
	st = in.WaitFor("two ready", states("echo", "ready", "two", "ready"))
	if st.ConfigError != "" {
		t.Errorf("configError %q after a good file", st.ConfigError)
	}
}
