package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestLeanRuntime: the long-running commands collect at +50% unless the
// person set GOGC, and the gateway's run on one P unless they set
// GOMAXPROCS; what the person set wins.
func TestLeanRuntime(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(4)
	t.Setenv("GOGC", "")
	t.Setenv("GOMAXPROCS", "")
	leanRuntime(false)
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GC percent without GOGC = %d, want %d", got, gcPercent)
	}
	if got := runtime.GOMAXPROCS(4); got != 4 {
		t.Errorf("GOMAXPROCS for serve = %d, want 4 (left alone)", got)
	}
	leanRuntime(true)
	if got := runtime.GOMAXPROCS(4); got != gatewayProcs {
		t.Errorf("GOMAXPROCS for the gateway = %d, want %d", got, gatewayProcs)
	}
	debug.SetGCPercent(100)
	t.Setenv("GOGC", "100")
	t.Setenv("GOMAXPROCS", "4")
	leanRuntime(true)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent with GOGC=100 = %d, want 100 (left alone)", got)
	}
	if got := runtime.GOMAXPROCS(4); got != 4 {
		t.Errorf("GOMAXPROCS with GOMAXPROCS=4 = %d, want 4 (left alone)", got)
	}
}
