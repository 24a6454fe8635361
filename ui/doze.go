package ui

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.3/glfw"
)

// Fyne 2.7's loop wakes 60 times a second to poll window events and redraw,
// whether or not a window is shown (fyne-io/fyne#2506): a tray app that
// sits hidden all day cost ≈ 1.7 % of a CPU and ≈ 480 thread wake-ups a
// second (BenchmarkTrayIdle), keeping a laptop's CPU out of its deep sleep
// states. While no window of ours is shown, the dozer keeps Fyne's loop
// asleep in a function of its own on the main goroutine (Fyne runs queued
// functions there, and its loop does nothing else meanwhile): GLFW's
// WaitEventsTimeout, which sleeps until an X event comes — and handles
// it, as Fyne's own polling would — or until GLFW's PostEmptyEvent, for at
// most dozeMax. Anything of ours that needs the main goroutine wakes it at
// once: onMain does, so every update, tray click, inbox request and quit
// gets the loop back without delay. Only what Fyne itself queues meanwhile
// (its own SIGTERM handler's quit, which ours makes at once anyway) waits
// up to dozeMax.
// Hidden, the app now costs ≈ 0.1 % of a CPU and ≈ 20 wake-ups a second.
// Showing a window (showWindow) ends dozing until the last one is hidden
// again (hideWindow).
//
// Linux only: there the tray is served over D-Bus from a goroutine of its
// own (systray_linux.go). On macOS and Windows the tray's menu is Fyne's,
// served by the main thread's event loop; not tried there.
var dozeMax = 5 * time.Second // the ui tests' app makes it an hour: every wake-up must be explicit

// dozes says whether this platform dozes at all.
const dozes = runtime.GOOS == "linux"

// A dozer keeps Fyne's loop asleep while no window is shown.
type dozer struct {
	shown  map[fyne.Window]bool // the windows shown; main goroutine only
	clock  *time.Ticker         // main goroutine only: runs while a window is shown
	period time.Duration        // clock's
	off    bool                 // main goroutine only: GLFW cannot wait, no dozing
	idle   chan struct{}        // cap 1: the last window shown was hidden
	stop   chan struct{}        // closed when Run returns
	dozed  atomic.Int64         // dozes that went to sleep, for tests
	ending atomic.Bool          // the app quits: queue no more dozes

	mu       sync.Mutex
	sleeping bool // guarded by mu: the main goroutine waits in GLFW
	woken    bool // guarded by mu: wakeLoop came while it did not
}

// loopDozer is Run's dozer; nil outside Run (widget tests) or where the
// platform does not doze.
var loopDozer atomic.Pointer[dozer]

// startDozing makes Run's dozer and starts the goroutine that keeps Fyne's
// loop dozing while no window is shown; the returned function stops it.
func startDozing() (stop func()) {
	if !dozes {
		return func() {}
	}
	z := &dozer{shown: map[fyne.Window]bool{}, idle: make(chan struct{}, 1), stop: make(chan struct{})}
	loopDozer.Store(z)
	go z.run()
	return func() {
		loopDozer.Store(nil)
		close(z.stop)
	}
}

// run hands Fyne's loop one doze after another while no window is shown,
// and waits for the last one to be hidden while some are. Each doze is
// queued with fyne.Do and reports back on a channel of its own, not with
// fyne.DoAndWait: when Fyne's loop ends it hands each function still queued
// with DoAndWait back to its waiter, and while it waits for that handover
// its lifecycle goroutine may queue the app's last event (the stopped hook)
// just after the loop stopped reading the queue — lost, and Fyne's Run then
// waits for it forever (Fyne 2.7.1: app.Run never returns, the process hangs
// at quit).
func (z *dozer) run() {
	for !z.ending.Load() {
		done := make(chan bool, 1)
		if !queueOnMain(func() { done <- z.doze() }) {
			return // the app quits
		}
		var slept bool
		select {
		case slept = <-done:
		case <-z.stop:
			return
		}
		if slept {
			select {
			case <-z.idle: // stale: a window shown and hidden before this doze
			default:
			}
		} else {
			select {
			case <-z.idle:
			case <-z.stop:
				return
			}
		}
		select {
		case <-z.stop:
			return
		default:
		}
	}
}

// doze sleeps on the main goroutine for up to dozeMax, unless a window is
// shown, and reports whether it dozed. A wakeLoop since the last doze ends
// it at once: what it queued may wait behind this doze in Fyne's queue.
// Once Fyne's loop has ended, Fyne runs the function on run's goroutine:
// it then returns at once.
func (z *dozer) doze() (slept bool) {
	if id := mainGoroutine.Load(); id == 0 || goroutineID() != id || len(z.shown) > 0 || z.off {
		return false
	}
	z.mu.Lock()
	if z.woken {
		z.woken = false
		z.mu.Unlock()
		return true
	}
	z.sleeping = true
	z.mu.Unlock()
	z.dozed.Add(1)
	defer func() {
		z.mu.Lock()
		z.sleeping, z.woken = false, false
		z.mu.Unlock()
		if r := recover(); r != nil {
			// GLFW did not start (Fyne goes on without it and logs why):
			// Fyne's loop then runs as it would without us. Any other panic
			// (a Fyne handler of an event GLFW delivered) is not ours.
			if e, ok := r.(*glfw.Error); !ok || e.Code.String() != "NotInitialized" {
				panic(r)
			}
			z.off = true
			slept = false
		}
	}()
	glfw.WaitEventsTimeout(dozeMax.Seconds())
	return true
}

// endDozing is called as the app quits: the doze asleep ends, and no other
// is queued — once Fyne's loop has ended it closes its queue, and a
// function queued after that would panic.
func endDozing() {
	if z := loopDozer.Load(); z != nil {
		z.ending.Store(true)
	}
	wakeLoop()
}

// wakeLoop ends the current doze, or the next one if none sleeps now:
// something was queued for the main goroutine. GLFW is only called while
// the main goroutine waits in it (so never before GLFW starts or after it
// ends).
func wakeLoop() {
	z := loopDozer.Load()
	if z == nil {
		return
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.sleeping {
		glfw.PostEmptyEvent()
	} else {
		z.woken = true
	}
}

// showWindow shows w and keeps Fyne's loop awake while it is shown. Main
// goroutine only, as w.Show is.
func showWindow(w fyne.Window) {
	if z := loopDozer.Load(); z != nil {
		if len(z.shown) == 0 && z.clock != nil {
			z.clock.Reset(z.period)
		}
		z.shown[w] = true
	}
	w.Show()
}

// hideWindow hides w; once no window is shown, Fyne's loop dozes again.
// Main goroutine only.
func hideWindow(w fyne.Window) {
	w.Hide()
	if z := loopDozer.Load(); z != nil && z.shown[w] {
		delete(z.shown, w)
		if len(z.shown) == 0 {
			if z.clock != nil {
				z.clock.Stop()
			}
			nudge(z.idle)
		}
	}
}

// tickWhileShown stops clock (ticking every period) while no window is
// shown and starts it again when one is: what changes with time alone is
// only seen in a window, and a hidden app's tick would wake Fyne's loop
// every period. Where the loop never dozes the clock is left alone. Main
// goroutine only.
func tickWhileShown(clock *time.Ticker, period time.Duration) {
	z := loopDozer.Load()
	if z == nil {
		return
	}
	z.clock, z.period = clock, period
	if len(z.shown) == 0 {
		clock.Stop()
	}
}

// nudge sends on a channel of capacity 1 without blocking.
func nudge(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
