package cli

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// gcPercent is the garbage collector's target for the long-running
// commands when GOGC is not set. The daemon's live heap is a few MB, so
// collecting when it has grown by half instead of doubled costs little
// CPU, and keeps about 1 MB less resident with 20 servers
// (BenchmarkGatewayRSS: anon 11.2–11.3 MB → 9.7–10.1 MB).
const gcPercent = 50

// gatewayProcs is how many threads run Go code at once in the commands
// that carry the gateway (run, daemon, connect) when GOMAXPROCS is not
// set. The gateway moves messages between pipes and sockets, a few
// microseconds of work each, so one is plenty; with more, every goroutine
// it readies (an HTTP call's handler when the answer comes, the reader
// net/http starts for every request) also wakes an idle thread on another
// CPU — a futex call and two context switches per message, on the CPUs the
// servers and assistants need. Blocking system calls and cgo (the tray's
// UI) still get threads of their own. BenchmarkGatewayHTTP on a 2-vCPU VM:
// p50 1.15–1.27× direct with two, 1.06–1.17× with one (docs/performance.md).
const gatewayProcs = 1

// leanRuntime applies gcPercent unless the person set GOGC, and, when
// gateway is set, gatewayProcs unless they set GOMAXPROCS.
func leanRuntime(gateway bool) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if gateway && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(gatewayProcs)
	}
}

// startupLimit is how long releaseAfterStartup waits at most for the
// servers to leave starting; startupQuiet how long after that.
const (
	startupLimit = 60 * time.Second
	startupQuiet = 2 * time.Second
)

// releaseAfterStartup hands back what start-up alone used once it has
// settled — every server of mcp.json past starting (ready, waiting for
// the person, or failed), then startupQuiet, or startupLimit at most: the
// heap's free pages (debug.FreeOSMemory: one collection) and the binary's
// pages (downstream.ReleaseHugeCodeMappings; package initialisation,
// applying mcp.json, the first sessions). What runs later faults its
// pages back in from the page cache. The tray app with 20 servers, in the
// tray: ≈ 37 MB without this, ≈ 28 MB with it (BenchmarkTrayMemory,
// docs/performance.md).
func releaseAfterStartup(ctx context.Context, core *app.Core) {
	ch, cancel := core.Subscribe()
	defer cancel()
	limit := time.NewTimer(startupLimit)
	defer limit.Stop()
	for settled := false; !settled; {
		select {
		case <-ctx.Done():
			return
		case <-limit.C:
			settled = true
		case st := <-ch:
			settled = startedUp(st)
		}
	}
	quiet := time.NewTimer(startupQuiet)
	defer quiet.Stop()
	select {
	case <-ctx.Done():
	case <-quiet.C:
		ReleaseMemory()
	}
}

// ReleaseMemory hands back the heap's free pages (debug.FreeOSMemory: one
// collection) and the binary's pages (downstream.ReleaseHugeCodeMappings)
// that some work used and that an idle mcptray no longer touches: after
// start-up, and in the tray app after serving a window's process (what
// runs later faults its pages back in from the page cache).
func ReleaseMemory() {
	debug.FreeOSMemory()
	downstream.ReleaseHugeCodeMappings()
}

// startedUp reports whether st has servers and none is starting.
func startedUp(st control.Status) bool {
	for _, s := range st.Servers {
		if s.State == control.StateStarting || s.State == control.StateRestarting {
			return false
		}
	}
	return len(st.Servers) > 0
}
