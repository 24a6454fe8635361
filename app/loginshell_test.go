package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/loginenv"
)

// loginShellFake writes a fake $SHELL whose rc adds binDir to PATH (the
// way nvm's does) and sets NVM_DIR, then runs what it is given; and a
// binDir holding this test binary as "fake-mcp-server", a command that is
// on the login shell's PATH only.
func loginShellFake(t *testing.T) (shell, binDir string) {
	t.Helper()
	dir := t.TempDir()
	binDir = filepath.Join(dir, "nvm", "bin")
	os.MkdirAll(binDir, 0o755)
	if err := os.Symlink(testBin(t), filepath.Join(binDir, "fake-mcp-server")); err != nil {
		t.Fatal(err)
	}
	shell = filepath.Join(dir, "zsh")
	script := "#!/bin/sh\necho 'motd: hello'\nexport PATH=" + binDir + ":$PATH NVM_DIR=" + filepath.Dir(binDir) + "\neval \"$2\"\n"
	if err := os.WriteFile(shell, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return shell, binDir
}

// onPathOnly is an entry running the fake echo server by a bare name found
// only on the login shell's PATH, with extra env pairs.
func onPathOnly(env ...string) string {
	e := map[string]string{"MCPTRAY_FAKE_SERVER": "echo", "GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	b, _ := json.Marshal(map[string]any{"command": "fake-mcp-server", "env": e})
	return string(b)
}

func TestServersGetLoginShellPath(t *testing.T) {
	shell, binDir := loginShellFake(t)
	h := startCore(t, servers("npx", onPathOnly(), "own", onPathOnly("PATH", "/nonexistent")), func(o *Options) {
		o.LoginShell = loginenv.Decision{Shell: shell}
	})
	st := h.wait("npx ready, own refused", func(st control.Status) bool {
		n, _ := find(st, "npx")
		o, _ := find(st, "own")
		return n.State == control.StateReady && o.State == control.StateError
	})
	if !strings.HasPrefix(st.ServerPath, binDir+string(os.PathListSeparator)) || !strings.HasSuffix(st.ServerPath, os.Getenv("PATH")) {
		t.Errorf("serverPath %q: want the login shell's PATH, then mcptray's", st.ServerPath)
	}
	if st.LoginShell != (control.LoginShellStatus{State: control.LoginShellUsed, Shell: shell}) {
		t.Errorf("loginShell %+v", st.LoginShell)
	}
	// An entry's env still wins, and the error names the PATH searched.
	o, _ := find(st, "own")
	if !strings.Contains(o.Error, `command "fake-mcp-server" not found in PATH /nonexistent`) || !strings.Contains(o.Error, "command -v fake-mcp-server") {
		t.Errorf("error %q", o.Error)
	}
	// The variables reach the servers.
	env := h.core.serverEnv(config.Server{Name: "npx", Command: "fake-mcp-server"})
	if !containsKV(env, "NVM_DIR="+filepath.Dir(binDir)) {
		t.Errorf("NVM_DIR missing from the server's environment")
	}
}

// The config turns it off: the shell is not even run.
func TestLoginShellOffInConfig(t *testing.T) {
	shell, _ := loginShellFake(t)
	marker := filepath.Join(t.TempDir(), "ran")
	os.WriteFile(shell, []byte("#!/bin/sh\ntouch "+marker+"\neval \"$2\"\n"), 0o755)
	cfg := strings.Replace(servers("npx", onPathOnly()), "{\n", "{\n  \"x-mcptray\": {\"loginShell\": false},\n", 1)
	h := startCore(t, cfg, func(o *Options) { o.LoginShell = loginenv.Decision{Shell: shell} })
	st := h.wait("npx not found", func(st control.Status) bool {
		n, _ := find(st, "npx")
		return n.State == control.StateError && strings.Contains(n.Error, "not found in PATH "+os.Getenv("PATH")+";")
	})
	if st.LoginShell.State != control.LoginShellOff || st.ServerPath != os.Getenv("PATH") {
		t.Errorf("loginShell %+v, serverPath %q", st.LoginShell, st.ServerPath)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the login shell ran although x-mcptray.loginShell is false")
	}
}

// A login shell that hangs costs the servers at most the timeout.
func TestLoginShellHangs(t *testing.T) {
	dir := t.TempDir()
	shell := filepath.Join(dir, "sh")
	os.WriteFile(shell, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755)
	begun := time.Now()
	h := startCore(t, servers("ok", fake(t, "echo")), func(o *Options) {
		o.LoginShell = loginenv.Decision{Shell: shell}
		o.LoginShellTimeout = 300 * time.Millisecond
	})
	st := h.wait("ok ready", stateIs("ok", control.StateReady))
	if st.LoginShell.State != control.LoginShellFailed || !strings.Contains(st.LoginShell.Detail, "within 300ms") {
		t.Errorf("loginShell %+v", st.LoginShell)
	}
	if st.ServerPath != os.Getenv("PATH") {
		t.Errorf("serverPath %q, want mcptray's own", st.ServerPath)
	}
	if took := time.Since(begun); took > 10*time.Second {
		t.Errorf("ready after %s", took)
	}
}

func containsKV(env []string, kv string) bool {
	for _, e := range env {
		if e == kv {
			return true
		}
	}
	return false
}
