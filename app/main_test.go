package app

import (
	"os"
	"testing"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// TestMain lets the test binary be the fake MCP servers and the watchdog
// that the tests start as real subprocesses.
func TestMain(m *testing.M) {
	downstream.RunWatchdogIfRequested()
	mcptest.Main()
	os.Exit(m.Run())
}
