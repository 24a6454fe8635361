//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// A daemon started without a terminal reads the login shell's PATH: a
// server given by a bare name found only there starts, and status shows
// the PATH the servers get.
func TestDaemonUsesLoginShellPath(t *testing.T) {
	dir := t.TempDir()
	binDir := filepath.Join(dir, "nvm", "bin")
	os.MkdirAll(binDir, 0o755)
	exe, _ := os.Executable()
	if err := os.Symlink(exe, filepath.Join(binDir, "npx-like-server")); err != nil {
		t.Fatal(err)
	}
	shell := filepath.Join(dir, "zsh")
	os.WriteFile(shell, []byte("#!/bin/sh\nexport PATH="+binDir+":$PATH\neval \"$2\"\n"), 0o755)

	in := &testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(dir, "data"),
		Env: []string{"SHELL=" + shell, "MCPTRAY_LOGIN_SHELL=on"}}
	writeConfig(t, in.Config, map[string]any{"npx": map[string]any{
		"command": "npx-like-server", "env": map[string]string{"MCPTRAY_FAKE_SERVER": "echo", "GORACE": "atexit_sleep_ms=0"}}})
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	in.Start()
	in.WaitFor("npx ready", testdaemon.States("npx", "ready"))

	_, out, _ := in.Run("status", "--json")
	var st struct {
		ServerPath string `json:"serverPath"`
		LoginShell struct {
			State, Shell string
		} `json:"loginShell"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(st.ServerPath, binDir+":") || st.LoginShell.State != "used" || st.LoginShell.Shell != shell {
		t.Errorf("status --json: serverPath %q, loginShell %+v", st.ServerPath, st.LoginShell)
	}
	if _, out, _ := in.Run("status"); !strings.Contains(out, "servers' PATH: from the login shell "+shell) {
		t.Errorf("status does not say where the servers' PATH comes from:\n%s", out)
	}
}

// A login shell whose rc file prints 300 MB (`yes`) before the
// environment: the daemon keeps 1 MiB of it, stops the shell, says why in
// status, and its peak RSS stays near its usual size.
func TestDaemonLoginShellOutputCapped(t *testing.T) {
	dir := t.TempDir()
	shell := filepath.Join(dir, "bash")
	os.WriteFile(shell, []byte("#!/bin/sh\nyes | head -c 300000000\neval \"$2\"\n"), 0o755)
	in := &testdaemon.Instance{T: t, Config: filepath.Join(dir, "mcp.json"), Data: filepath.Join(dir, "data"),
		Env: []string{"SHELL=" + shell, "MCPTRAY_LOGIN_SHELL=on"}}
	writeConfig(t, in.Config, map[string]any{"echo": fakeEntry(t, "echo")})
	in.FlagsFirst = []string{"--config", in.Config, "--data", in.Data}
	in.Start()
	in.WaitFor("echo ready", testdaemon.States("echo", "ready"))

	_, out, _ := in.Run("status", "--json")
	var st struct {
		LoginShell struct{ State, Detail string } `json:"loginShell"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.LoginShell.State != "failed" || !strings.Contains(st.LoginShell.Detail, "more than 1 MiB") {
		t.Errorf("loginShell %+v, want failed: printed more than 1 MiB", st.LoginShell)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", in.Cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	var peakKB int
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Sscanf(strings.TrimPrefix(l, "VmHWM:"), "%d", &peakKB)
		}
	}
	t.Logf("daemon's peak RSS: %d MiB", peakKB>>10)
	if peakKB == 0 || peakKB > 200<<10 {
		t.Errorf("daemon's peak RSS %d MiB after a login shell printing 300 MB; the output cap is 1 MiB", peakKB>>10)
	}
}
