package wire

import (
	"testing"
	"time"
)

// guardOnClock is a hand-off guard on a fake clock: each yield costs
// *cost of it, and yields counts them.
type guardOnClock struct {
	*handOffGuard
	clock, cost time.Duration
	yields      int
}

func newGuardOnClock() *guardOnClock {
	g := &guardOnClock{}
	g.handOffGuard = &handOffGuard{on: true}
	g.now = func() time.Duration { return g.clock }
	g.sched = func() { g.yields++; g.clock += g.cost }
	return g
}

// run tries a hand-off every gap for d and returns how many yields that
// made.
func (g *guardOnClock) run(d, gap time.Duration) int {
	before := g.yields
	for end := g.clock + d; g.clock < end; g.clock += gap {
		g.yield()
	}
	return g.yields - before
}

// TestHandOffGuardIdle: on a free CPU every hand-off yields, and the odd
// slow yield (a collection, a redraw elsewhere) pauses nothing.
func TestHandOffGuardIdle(t *testing.T) {
	t.Parallel()
	g := newGuardOnClock()
	if n := g.run(time.Second, 300*time.Microsecond); n != 3334 {
		t.Errorf("free CPU: %d yields of 3334 tries", n)
	}
	tries := 0
	for i := range 5000 {
		g.cost = 0
		if i%100 == 99 {
			g.cost = 3 * time.Millisecond
		}
		g.yield()
		g.clock += 300 * time.Microsecond
		tries++
	}
	if g.yields != 3334+tries {
		t.Errorf("one slow yield in a hundred: %d yields of %d tries (some were paused)", g.yields-3334, tries)
	}
}

// TestHandOffGuardBusyCPU: beside a task that keeps the CPU every yield
// is slow; the hand-offs pause, longer each time, until about one yield
// in five seconds is left — and come back once the CPU is free again.
func TestHandOffGuardBusyCPU(t *testing.T) {
	t.Parallel()
	g := newGuardOnClock()
	g.cost = 3 * time.Millisecond
	if n := g.run(time.Minute, 300*time.Microsecond); n > 25 {
		t.Errorf("a minute beside a busy task: %d slow yields, want at most 25", n)
	}
	if g.level != maxPauseLevel {
		t.Errorf("level %d after a busy minute, want %d", g.level, maxPauseLevel)
	}
	if n := g.run(time.Minute, 300*time.Microsecond); n > 13 {
		t.Errorf("the next busy minute: %d slow yields, want about one in five seconds", n)
	}

	// The task ends; the pause runs out, and a run of fast yields after
	// each step brings the hand-offs back to every call.
	g.cost = 0
	g.run(30*time.Second, 300*time.Microsecond)
	if g.level != 0 || g.score != 0 {
		t.Errorf("after 30 s of a free CPU: level %d, score %d, want 0, 0", g.level, g.score)
	}
	if n := g.run(time.Second, 300*time.Microsecond); n != 3334 {
		t.Errorf("free again: %d yields of 3334 tries", n)
	}

	// Two slow yields close together pause again, for the first pause.
	g.cost = 3 * time.Millisecond
	g.yield()
	g.yield()
	g.cost = 0
	if n := g.run(firstPause-5*time.Millisecond, 300*time.Microsecond); n != 0 {
		t.Errorf("%d yields during the first pause", n)
	}
	g.clock += 5 * time.Millisecond
	if n := g.run(time.Millisecond, 300*time.Microsecond); n == 0 {
		t.Error("no yield after the first pause")
	}
}

func TestHandOffGuardOff(t *testing.T) {
	t.Parallel()
	g := newGuardOnClock()
	g.on = false
	if n := g.run(time.Second, time.Millisecond); n != 0 {
		t.Errorf("switched off: %d yields", n)
	}
}
