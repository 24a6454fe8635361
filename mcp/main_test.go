//go:build linux || windows

package mcp

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// The test binary is also every fake server (mcptest.Main) and the
// watchdog (downstream.RunWatchdogIfRequested).
func TestMain(m *testing.M) {
	downstream.RunWatchdogIfRequested()
	mcptest.Main()
	os.Exit(m.Run())
}

// fake is a started fake server with its log.
type fake struct {
	*downstream.Session
	marker string // downstream.InstanceEnv=… in the server's environment
	log    *mcptest.Log
}

type fakeOpt func(*downstream.StdioSpec)

// fakeSpec is the spec for a fake server in mode, marked with a fresh
// instance id so the test can find every process it left.
func fakeSpec(mode string, opts ...fakeOpt) (downstream.StdioSpec, string) {
	marker := mcptest.Marker(downstream.InstanceEnv)
	spec := downstream.StdioSpec{
		Name:      mode,
		Command:   os.Args[0],
		Env:       mcptest.Env(mode, marker),
		StopGrace: 500 * time.Millisecond,
		TermGrace: 500 * time.Millisecond,
	}
	for _, o := range opts {
		o(&spec)
	}
	return spec, marker
}

// startFake starts a fake server in mode (mcptest's harness), its log
// recorded unless hooks has a Log of its own.
func startFake(t testing.TB, mode string, hooks downstream.Hooks, opts ...fakeOpt) *fake {
	t.Helper()
	spec, marker := fakeSpec(mode, opts...)
	rec := &mcptest.Log{}
	if hooks.Log == nil {
		hooks.Log = rec.Add
	}
	s := mcptest.StartFake(t, mode, marker, func(ctx context.Context) (*downstream.Session, error) { return downstream.Start(ctx, spec, hooks) })
	return &fake{Session: s, marker: marker, log: rec}
}
