//go:build linux

package cli

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// An assistant that stops `mcptray connect` with SIGTERM (or SIGINT) while
// the session is open gets exit 0 and nothing on stderr: that is a stdio
// server's normal shutdown, not an error.
func TestConnectSIGTERMExitsZero(t *testing.T) {
	in := startDaemon(t, map[string]any{"echo": fakeEntry(t, "echo")})
	in.WaitFor("ready", states("echo", "ready"))
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		exe, _ := os.Executable()
		cmd := exec.Command(exe, "connect", "--data", in.Data, "--config", in.Config)
		cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MCPTRAY=1")
		stderr := new(testdaemon.SyncBuffer)
		cmd.Stderr = stderr
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, `"serverInfo"`) {
			t.Fatalf("initialize through connect: %q, %v", line, err)
		}
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("connect stopped with %v: %v; stderr: %q", sig, err, stderr)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("connect did not exit after %v", sig)
		}
		if s := stderr.String(); s != "" {
			t.Errorf("connect stopped with %v wrote to stderr: %q", sig, s)
		}
		stdin.Close()
	}
}
