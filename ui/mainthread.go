package ui

import (
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"

	"fyne.io/fyne/v2"
)

// mainGoroutine is the id of the goroutine Fyne's loop runs on, set by
// Run; 0 when Run has not been called (widget tests: Fyne's test driver
// runs an fyne.Do function at once on the caller's goroutine).
var mainGoroutine atomic.Uint64

// onMain is the one way the ui package runs code on Fyne's main goroutine
// from another goroutine: fyne.Do, with one difference. Once Fyne's loop
// has ended — Quit in the tray, closing the window, or Fyne's own SIGINT
// and SIGTERM handler, which can end the loop before any of ours runs —
// fyne.Do runs its function at once on the caller's goroutine; onMain then
// drops f, since the window is gone and touching its widgets from that
// goroutine would race with the main one tearing them down. It also wakes
// Fyne's loop if it dozes (doze.go).
func onMain(f func()) {
	fyne.Do(func() {
		if id := mainGoroutine.Load(); id != 0 && goroutineID() != id {
			return
		}
		f()
	})
	wakeLoop() // after queueing f, so that f runs before the next doze
}

// goroutineID is the calling goroutine's id, read from the first line of
// its stack trace ("goroutine 7 [running]:"), as Fyne itself does.
func goroutineID() uint64 {
	var buf [40]byte
	n := runtime.Stack(buf[:], false)
	s := strings.TrimPrefix(string(buf[:n]), "goroutine ")
	if i := strings.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	id, _ := strconv.ParseUint(s, 10, 64)
	return id
}
