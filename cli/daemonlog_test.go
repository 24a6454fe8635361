//go:build linux

package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// logMaxEnv makes the test binary, as mcptray, rotate mcptray.log at this
// many bytes instead of 5 MB (read in TestMain only).
const logMaxEnv = "MCPTRAY_TEST_LOG_MAX"

// TestDaemonLogRotates: the instance `connect` starts logs to
// DATA/mcptray.log, which rotates to mcptray.log.1 at its limit, and the
// instance's stderr (panics) follows it to the new file.
func TestDaemonLogRotates(t *testing.T) {
	const limit = 4096
	dir := t.TempDir()
	cfg, data := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "data")
	writeConfig(t, cfg, map[string]any{"echo": fakeEntry(t, "echo")})
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "connect", "--data", data, "--config", cfg)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1", "DISPLAY=", "WAYLAND_DISPLAY=", fmt.Sprintf("%s=%d", logMaxEnv, limit))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := 0
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
		if pid > 0 {
			syscall.Kill(pid, syscall.SIGTERM)
			waitGone(t, pid, "the instance connect started")
		}
	})
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, `"serverInfo"`) {
		t.Fatalf("initialize through a freshly started instance: %q, %v", line, err)
	}
	b, err := os.ReadFile(filepath.Join(data, "mcptray.lock"))
	if _, serr := fmt.Sscan(string(b), &pid); err != nil || serr != nil {
		t.Fatalf("no instance pid in mcptray.lock: %v %v", err, serr)
	}
	in := &instance{&testdaemon.Instance{T: t, Config: cfg, Data: data, FlagsFirst: []string{"--config", cfg, "--data", data}}}

	// Each bad config logs a "config not applied" line of about 150 bytes.
	logPath := filepath.Join(data, "mcptray.log")
	badConfig := func(i int) {
		line := i%40 + 2 // a different error from the last one: it is logged
		writeRaw(t, cfg, strings.Repeat("\n", line-1)+"{ nope }\n")
		in.WaitFor(fmt.Sprintf("error at line %d", line), func(st statusJSON) bool {
			return strings.Contains(st.ConfigError, fmt.Sprintf(":%d:", line))
		})
	}
	rotated := func() bool { _, err := os.Stat(logPath + ".1"); return err == nil }
	i := 0
	for ; !rotated(); i++ {
		if i == 100 { // about 30 are needed
			b, _ := os.ReadFile(logPath)
			t.Fatalf("mcptray.log not rotated after %d logged config errors; it is %d bytes", i, len(b))
		}
		badConfig(i)
	}
	// One more line lands in the new file.
	badConfig(i)

	const maxLine = 1024
	for _, p := range []string{logPath, logPath + ".1"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > limit+maxLine {
			t.Errorf("%s is %d bytes, over the limit %d + one line", filepath.Base(p), len(b), limit)
		}
		if !strings.Contains(string(b), "config not applied") {
			t.Errorf("%s lacks the logged config errors:\n%s", filepath.Base(p), b)
		}
	}
	// The instance's stderr is the current mcptray.log, not the rotated one.
	if fd2, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/2", pid)); err != nil || fd2 != logPath {
		t.Errorf("the instance's stderr is %q (%v), want %s", fd2, err, logPath)
	}
}

// writeRaw replaces path with text, by rename.
func writeRaw(t *testing.T, path, text string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
