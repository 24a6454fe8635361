package mcp

import (
	"context"
	"time"
)

// progressDrainWait bounds how long a finished call waits for progress
// its server sent before the result.
const progressDrainWait = 2 * time.Second

// awaitProgress returns once every progress notification the server sent
// for c before its result has been passed on (or after progressDrainWait).
func (c *call) awaitProgress(ctx context.Context) {
	if c.progressSent.Load() >= c.progressSeen.Load() {
		return
	}
	timer := time.NewTimer(progressDrainWait)
	defer timer.Stop()
	for c.progressSent.Load() < c.progressSeen.Load() {
		select {
		case <-c.progressed:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// progressPassed records one progress notification passed on for c.
func (c *call) progressPassed() {
	c.progressSent.Add(1)
	select {
	case c.progressed <- struct{}{}:
	default:
	}
}
