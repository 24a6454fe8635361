package app

import "time"

// Restart timing (DESIGN.md §5).
const (
	backoffMin      = time.Second
	backoffMax      = 60 * time.Second
	healthyUptime   = 5 * time.Minute
	crashLoopAfter  = 5
	startupDeadline = 120 * time.Second
)

// backoff is one server's restart policy: 1 s doubling to 60 s, reset after
// healthyUptime of uptime, crash-loop after crashLoopAfter failures in a row
// (then retried at the cap). It belongs to one server's goroutine.
type backoff struct {
	failures int
}

// fail records a failed start or an exit after uptime (zero if it never got
// ready) and returns how long to wait before the next start.
func (b *backoff) fail(uptime time.Duration) time.Duration {
	if uptime >= healthyUptime {
		b.failures = 0
	}
	b.failures++
	if b.crashLoop() {
		return backoffMax
	}
	d := backoffMin << (b.failures - 1)
	if d > backoffMax {
		d = backoffMax
	}
	return d
}

// crashLoop reports whether the server has failed crashLoopAfter times in a
// row without a healthy run.
func (b *backoff) crashLoop() bool { return b.failures >= crashLoopAfter }
