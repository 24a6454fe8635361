package downstream

import (
	"sync"
	"time"
)

// Deadline is a call's timer, which can be paused while an elicitation
// waits.
type Deadline struct {
	mu      sync.Mutex
	t       *time.Timer   // guarded by mu
	left    time.Duration // guarded by mu: time left when last (re)started
	since   time.Time     // guarded by mu: when last (re)started
	paused  int           // guarded by mu: pauses in effect
	stopped bool          // guarded by mu
}

// Start arms the deadline: fire runs once dur has passed, not counting
// the time spent paused.
func (d *Deadline) Start(dur time.Duration, fire func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.left, d.since = dur, time.Now()
	d.t = time.AfterFunc(dur, fire)
}

// Restart arms a deadline that was stopped again, with no pause in
// effect: the next round of a call that asked for input (the gateway's
// input loop).
func (d *Deadline) Restart(dur time.Duration, fire func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.t != nil {
		d.t.Stop()
	}
	d.stopped, d.paused = false, 0
	d.left, d.since = dur, time.Now()
	d.t = time.AfterFunc(dur, fire)
}

// Stop disarms the deadline for good.
func (d *Deadline) Stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	if d.t != nil {
		d.t.Stop()
	}
}

// Pause stops the clock; pauses nest.
func (d *Deadline) Pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped || d.t == nil {
		return
	}
	d.paused++
	if d.paused == 1 && d.t.Stop() {
		d.left -= time.Since(d.since)
	}
}

// Resume ends one Pause; the clock runs again once none is left.
func (d *Deadline) Resume() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped || d.t == nil || d.paused == 0 {
		return
	}
	d.paused--
	if d.paused == 0 {
		d.since = time.Now()
		d.t.Reset(max(d.left, 0))
	}
}
