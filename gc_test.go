package main

import (
	"runtime/debug"
	"testing"
)

// TestLeanGC: the long-running commands collect at +50% unless the person
// set GOGC, which then wins.
func TestLeanGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	leanGC()
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GC percent without GOGC = %d, want %d", got, gcPercent)
	}
	t.Setenv("GOGC", "100")
	leanGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC percent with GOGC=100 = %d, want 100 (left alone)", got)
	}
}
