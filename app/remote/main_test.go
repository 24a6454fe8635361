package remote_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// instanceEnv makes the test binary an mcptray instance (app.Core.Run)
// on the config and data dir named by configEnv and dataEnv, until
// SIGTERM: a real process that a test can kill.
const (
	instanceEnv = "MCPTRAY_REMOTE_TEST_INSTANCE"
	configEnv   = "MCPTRAY_REMOTE_TEST_CONFIG"
	dataEnv     = "MCPTRAY_REMOTE_TEST_DATA"
)

// TestMain lets the test binary be the fake MCP servers, the watchdog and
// an instance that the tests start as real subprocesses.
func TestMain(m *testing.M) {
	downstream.RunWatchdogIfRequested()
	mcptest.Main()
	if os.Getenv(instanceEnv) == "1" {
		os.Exit(runInstance())
	}
	os.Exit(m.Run())
}

// runInstance runs an instance until SIGTERM, logging to stderr.
func runInstance() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	core, err := app.New(options(os.Getenv(configEnv), os.Getenv(dataEnv), slog.New(slog.NewTextHandler(os.Stderr, nil))))
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	defer core.Close()
	if err := core.Run(ctx); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

// testToken is the HTTP endpoint's bearer token in tests.
const testToken = "test-token-0123456789"

// options are an instance's in tests: no keyring, no questions for what
// the tests write to mcp.json, short stop delays.
func options(cfgPath, data string, log *slog.Logger) app.Options {
	return app.Options{
		ConfigPath:       cfgPath,
		DataDir:          data,
		Logger:           log,
		Keyring:          func(name string) (string, error) { return "", errors.New("keyring entry \"" + name + "\" not found") },
		Token:            func() (string, error) { return testToken, nil },
		Debounce:         50 * time.Millisecond,
		StopGrace:        500 * time.Millisecond,
		TermGrace:        500 * time.Millisecond,
		StartTimeout:     10 * time.Second,
		InstallMarks:     &memSecrets{m: map[string]string{}},
		TrustConfigEdits: true,
	}
}

// memSecrets is an app.SecretStore in memory.
type memSecrets struct{ m map[string]string }

func (s *memSecrets) Get(name string) (string, error) {
	v, ok := s.m[name]
	if !ok {
		return "", errors.New("not found")
	}
	return v, nil
}
func (s *memSecrets) Set(name, value string) error { s.m[name] = value; return nil }
func (s *memSecrets) Delete(name string) error     { delete(s.m, name); return nil }

// dirs are a test's config file and data dir.
type dirs struct{ cfg, data string }

// newDirs makes them, with cfg as mcp.json.
func newDirs(t *testing.T, cfg string) dirs {
	t.Helper()
	dir := testkit.TempDir(t)
	d := dirs{cfg: filepath.Join(dir, "config", "mcp.json"), data: filepath.Join(dir, "data")}
	if err := os.MkdirAll(filepath.Dir(d.cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.cfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return d
}

// instance is an app.Core running in this process.
type instance struct {
	t      *testing.T
	core   *app.Core
	logs   *testkit.Buffer
	cancel context.CancelFunc
	done   chan error
}

// start runs an instance on d until stop (or the test's end).
func start(t *testing.T, d dirs) *instance {
	t.Helper()
	in := &instance{t: t, logs: &testkit.Buffer{}, done: make(chan error, 1)}
	core, err := app.New(options(d.cfg, d.data, slog.New(slog.NewTextHandler(in.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	in.core = core
	var ctx context.Context
	ctx, in.cancel = context.WithCancel(context.Background())
	go func() { in.done <- core.Run(ctx) }()
	t.Cleanup(in.stop)
	// Run listens on the socket before it starts any server.
	testkit.WaitFor(t, "the control socket", func() bool {
		cl, err := control.Dial(d.data)
		return err == nil && cl != nil
	})
	return in
}

// stop ends Run, waits for every server to stop and closes the core.
func (in *instance) stop() {
	if in.cancel == nil {
		return
	}
	in.cancel()
	in.cancel = nil
	testkit.Within(in.t, testkit.Deadline, "stopping the instance", func() {
		if err := <-in.done; err != nil {
			in.t.Errorf("Run: %v", err)
		}
	})
	in.core.Close()
}

// fake is a config entry running the fake server in mode, with extra env
// pairs ("KEY", "VALUE", ...).
func fake(t testing.TB, mode string, env ...string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"MCPTRAY_FAKE_SERVER": mode, "GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	b, _ := json.Marshal(map[string]any{"command": exe, "env": e})
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
		b.WriteString("    " + quote(pairs[i]) + ": " + pairs[i+1])
	}
	b.WriteString("\n  }\n}\n")
	return b.String()
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// state is server name's state in st ("" when it has none).
func state(st control.Status, name string) string {
	for _, s := range st.Servers {
		if s.Name == name {
			return s.State
		}
	}
	return ""
}

// waitStatus receives from updates until cond holds, or fails the test.
func waitStatus(t *testing.T, updates <-chan control.Status, what string, cond func(control.Status) bool) control.Status {
	t.Helper()
	deadline := time.NewTimer(testkit.Deadline)
	defer deadline.Stop()
	var last control.Status
	for {
		select {
		case st, ok := <-updates:
			if !ok {
				t.Fatalf("the status channel closed while waiting for %s", what)
			}
			if cond(st) {
				return st
			}
			last = st
		case <-deadline.C:
			b, _ := json.MarshalIndent(last, "", "  ")
			t.Fatalf("timed out waiting for %s; last status: %s", what, b)
		}
	}
}
