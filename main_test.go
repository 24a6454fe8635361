package main

import (
	"os"
	"testing"

	"github.com/mcptray/mcptray/internal/testdaemon"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// TestMain makes this test binary three things besides the tests: the fake
// MCP servers (mcptest), the watchdog, and — with MCPTRAY_TEST_AS_MCPTRAY=1 —
// mcptray itself, as this build wires it (with the desktop UI unless
// -tags headless), so the end-to-end tests and benchmarks here run the real
// command line in a real subprocess without a separate build. The command
// line's own tests are package cli's.
func TestMain(m *testing.M) {
	downstream.RunWatchdogIfRequested()
	mcptest.Main()
	testdaemon.Main = run
	if os.Getenv("MCPTRAY_TEST_AS_MCPTRAY") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// The daemon helpers these tests share with package cli's (package
// testdaemon), under their names there.
type (
	statusJSON = testdaemon.StatusJSON
	syncBuffer = testdaemon.SyncBuffer
)

var (
	fakeEntry      = testdaemon.FakeEntry
	writeConfig    = testdaemon.WriteConfig
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
