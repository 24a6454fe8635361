package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkit"
)

// testToken is the HTTP endpoint's bearer token in tests.
const testToken = "test-token-0123456789"

// harness runs a real Core on a temp config and data dir.
type harness struct {
	t       *testing.T
	core    *Core
	cfgPath string
	data    string
	cancel  context.CancelFunc
	done    chan error
}

// testBin is this test binary, which runs as a fake server (mcptest.Main)
// when MCPTRAY_FAKE_SERVER is set.
func testBin(t testing.TB) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// fake is a config entry running the fake server in mode, with extra env
// pairs ("KEY", "VALUE", ...).
func fake(t testing.TB, mode string, env ...string) string {
	e := map[string]string{"MCPTRAY_FAKE_SERVER": mode, "GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	b, _ := json.Marshal(map[string]any{"command": testBin(t), "env": e})
	return string(b)
}

// servers renders {"mcpServers": {...}} from name/entry pairs, in order.
func servers(pairs ...string) string {
	var b strings.Builder
	b.WriteString("{\n  \"mcpServers\": {\n")
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    %q: %s", pairs[i], pairs[i+1])
	}
	b.WriteString("\n  }\n}\n")
	return b.String()
}

func startCore(t *testing.T, cfg string, opts ...func(*Options)) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, cfgPath: filepath.Join(dir, "config", "mcp.json"), data: filepath.Join(dir, "data")}
	if cfg != "" {
		os.MkdirAll(filepath.Dir(h.cfgPath), 0o700)
		h.write(cfg)
	}
	o := Options{
		ConfigPath:   h.cfgPath,
		DataDir:      h.data,
		Self:         selfScript(t, dir),
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		Keyring:      func(name string) (string, error) { return "", errors.New("keyring entry \"" + name + "\" not found") },
		Token:        func() (string, error) { return testToken, nil },
		Debounce:     50 * time.Millisecond,
		StopGrace:    500 * time.Millisecond,
		TermGrace:    500 * time.Millisecond,
		StartTimeout: 10 * time.Second,
		// The install marker in memory, not the desktop's keyring: a first
		// start approves what is there (launch_reset_test.go uses the real
		// keyring).
		InstallMarks: &memSecrets{m: map[string]string{}},
		// Entries the tests add by writing mcp.json run at once; the tests
		// of approvals (launch_test.go) ask.
		TrustConfigEdits: true,
	}
	for _, f := range opts {
		f(&o)
	}
	core, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	h.core = core
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.done = make(chan error, 1)
	go func() { h.done <- core.Run(ctx) }()
	t.Cleanup(h.stop)
	return h
}

// selfScript stands in for ${self}: the default config's built-in servers
// run the fake echo server.
func selfScript(t testing.TB, dir string) string {
	p := filepath.Join(dir, "self.sh")
	script := fmt.Sprintf("#!/bin/sh\nMCPTRAY_FAKE_SERVER=echo GORACE=atexit_sleep_ms=0 exec %q\n", testBin(t))
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// stop ends Run and waits for every server to be stopped.
func (h *harness) stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		h.t.Error("Run did not return within 30s of cancel")
	}
	h.core.Close()
}

// write replaces mcp.json the way editors that save by rename do.
func (h *harness) write(cfg string) {
	h.t.Helper()
	tmp := h.cfgPath + ".tmp"
	if err := os.WriteFile(tmp, []byte(cfg), 0o600); err != nil {
		h.t.Fatal(err)
	}
	if err := os.Rename(tmp, h.cfgPath); err != nil {
		h.t.Fatal(err)
	}
}

// wait blocks until cond holds for the core's status, or fails the test.
func (h *harness) wait(what string, cond func(control.Status) bool) control.Status {
	h.t.Helper()
	ch, cancel := h.core.Subscribe()
	defer cancel()
	deadline := time.After(30 * time.Second)
	last := h.core.Status()
	for {
		if cond(last) {
			return last
		}
		select {
		case last = <-ch:
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s; status: %s", what, dump(last))
		}
	}
}

func dump(st control.Status) string {
	b, _ := json.MarshalIndent(st, "", "  ")
	return string(b)
}

func find(st control.Status, name string) (control.ServerStatus, bool) {
	for _, s := range st.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return control.ServerStatus{}, false
}

// stateIs is a wait condition: every name/state pair holds.
func stateIs(pairs ...string) func(control.Status) bool {
	return func(st control.Status) bool {
		for i := 0; i+1 < len(pairs); i += 2 {
			s, ok := find(st, pairs[i])
			if !ok || s.State != pairs[i+1] {
				return false
			}
		}
		return true
	}
}

func (h *harness) server(name string) control.ServerStatus {
	h.t.Helper()
	s, ok := find(h.core.Status(), name)
	if !ok {
		h.t.Fatalf("no server %q in status: %s", name, dump(h.core.Status()))
	}
	return s
}

// logText is a server's log file so far.
func (h *harness) logText(name string) string {
	b, _ := os.ReadFile(LogPath(h.data, name))
	return string(b)
}

// waitLog waits until the server's log contains substr.
func (h *harness) waitLog(name, substr string) string {
	h.t.Helper()
	var text string
	if !testkit.Eventually(testkit.Deadline, func() bool {
		text = h.logText(name)
		return strings.Contains(text, substr)
	}) {
		h.t.Fatalf("log of %s never contained %q:\n%s", name, substr, text)
	}
	return text
}

// waitGone waits until no process has pid.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	if !testkit.Eventually(testkit.Deadline, func() bool { return !alive(pid) }) {
		t.Fatalf("%s (pid %d) still alive", what, pid)
	}
}

// freePort finds a loopback port nobody listens on.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// controlGet sends GET path on the control socket of data dir data and
// returns the status and the reply's "error" ("" when it has none).
func controlGet(t *testing.T, data, path string) (int, string) {
	t.Helper()
	cl := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", control.SocketPath(data))
	}}}
	defer cl.CloseIdleConnections()
	resp, err := cl.Get("http://mcptray" + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	var e struct {
		Error string `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, e.Error
}
