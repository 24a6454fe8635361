package ui

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
)

// mainGoroutine is the id of the goroutine Fyne's loop runs on, set by
// Run; 0 when Run has not been called (widget tests: Fyne's test driver
// runs an fyne.Do function at once on the caller's goroutine).
var mainGoroutine atomic.Uint64

// onMain is the one way the ui package runs code on Fyne's main goroutine
// from another goroutine: fyne.Do, with three differences. Once the app
// has begun to quit it queues nothing (the loop gate, below). Once Fyne's
// loop has ended — Quit in the tray, closing the window, or Fyne's own
// SIGINT and SIGTERM handler, which can end the loop before any of ours
// runs — fyne.Do runs its function at once on the caller's goroutine;
// onMain then drops f, since the window is gone and touching its widgets
// from that goroutine would race with the main one tearing them down. And
// it wakes Fyne's loop if it dozes (doze.go).
func onMain(f func()) {
	queueOnMain(onlyOnMain(f))
	wakeLoop() // after queueing f, so that f runs before the next doze
}

// onlyOnMain wraps f to run only on the loop's goroutine (or where no loop
// has claimed one).
func onlyOnMain(f func()) func() {
	return func() {
		if id := mainGoroutine.Load(); id != 0 && goroutineID() != id {
			return
		}
		f()
	}
}

// The loop gate. When Fyne's loop ends it closes the queue fyne.Do sends
// on, and a fyne.Do from another goroutine at that moment sends on a
// channel being closed: a data race, or the panic "send on closed
// channel" (Fyne 2.7.1, fyne-io/fyne#5748; it checks whether the loop has
// ended, then sends, and the loop can end in between). Seen in our tests
// as a status update, sent while the core stopped its servers, racing
// the loop's end. So everything of ours that queues for the main goroutine
// from elsewhere (onMain, the dozer) passes the gate, and quitting closes
// it first: closeLoopGate on the main goroutine (the tray's Quit, closing
// the window), onMainLast from elsewhere (ctx ended: SIGTERM, SIGINT), so
// that nothing of ours is sent once the loop can end. One window is left,
// and it is Fyne's: its own SIGINT/SIGTERM handler queues its quit at the
// same moment as ours, and if the loop runs that, ends and closes its
// queue before our signal goroutine has closed the gate, an update in that
// gap still races — the loop needs a whole iteration for it (and sleeps
// through it while dozing), our goroutine microseconds.
var loopGate struct {
	sync.RWMutex
	closed bool // guarded: the app quits
}

// queueOnMain is fyne.Do unless the gate is closed; it reports whether f
// was queued.
func queueOnMain(f func()) bool {
	loopGate.RLock()
	defer loopGate.RUnlock()
	if loopGate.closed {
		return false
	}
	fyne.Do(f)
	return true
}

// onMainLast is onMain for the app's quit, from any goroutine: it closes
// the gate, then queues f as the last thing any goroutine of ours queues
// (once: a second call does nothing). f is queued outside the gate's lock:
// once Fyne's loop has ended, fyne.Do runs it at once, and the quit closes
// the gate itself.
func onMainLast(f func()) {
	if closeLoopGate() {
		fyne.Do(onlyOnMain(f))
	}
	wakeLoop()
}

// closeLoopGate closes the gate: the app quits. Anything queued before
// still runs (or is dropped with Fyne's queue); nothing is queued after.
// It reports whether the gate was open.
func closeLoopGate() (wasOpen bool) {
	loopGate.Lock()
	defer loopGate.Unlock()
	wasOpen = !loopGate.closed
	loopGate.closed = true
	return wasOpen
}

// openLoopGate opens the gate for a new Run.
func openLoopGate() {
	loopGate.Lock()
	loopGate.closed = false
	loopGate.Unlock()
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
