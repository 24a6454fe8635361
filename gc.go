package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the garbage collector's target for the long-running
// commands when GOGC is not set. The daemon's live heap is a few MB, so
// collecting when it has grown by half instead of doubled costs little
// CPU, and keeps about 1 MB less resident with 20 servers
// (BenchmarkGatewayRSS: anon 11.2–11.3 MB → 9.7–10.1 MB).
const gcPercent = 50

// leanGC applies gcPercent unless the person set GOGC.
func leanGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
