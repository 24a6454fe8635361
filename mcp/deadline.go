package mcp

import (
	"sync"
	"time"
)

// deadline is a call's timer, which can be paused while an elicitation
// waits.
type deadline struct {
	mu      sync.Mutex
	t       *time.Timer   // guarded by mu
	left    time.Duration // guarded by mu: time left when last (re)started
	since   time.Time     // guarded by mu: when last (re)started
	paused  int           // guarded by mu: pauses in effect
	stopped bool          // guarded by mu
}

func (d *deadline) start(dur time.Duration, fire func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.left, d.since = dur, time.Now()
	d.t = time.AfterFunc(dur, fire)
}

func (d *deadline) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	if d.t != nil {
		d.t.Stop()
	}
}

func (d *deadline) pause() {
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

func (d *deadline) resume() {
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
