package ui

import (
	"testing"

	"fyne.io/fyne/v2"
)

// TestDozeWithoutGLFW: where GLFW did not start (Fyne goes on without it),
// a doze gives up for good instead of failing, and Fyne's loop runs as it
// would without dozing. (The test process never starts GLFW: its widget
// tests use Fyne's test driver; the desktop-session tests run the app as a
// child, where TestDozesWhileHidden covers dozing itself.)
func TestDozeWithoutGLFW(t *testing.T) {
	old := mainGoroutine.Load()
	mainGoroutine.Store(goroutineID())
	defer mainGoroutine.Store(old)
	z := &dozer{shown: map[fyne.Window]bool{}}
	if z.doze() {
		t.Fatal("a doze slept without GLFW")
	}
	if !z.off || z.sleeping || z.dozed.Load() != 1 {
		t.Fatalf("after a doze without GLFW: off=%v sleeping=%v dozed=%d, want off, not sleeping, one doze tried", z.off, z.sleeping, z.dozed.Load())
	}
	if z.doze() || z.dozed.Load() != 1 {
		t.Fatal("a later doze tried GLFW again")
	}
}
