package wire

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The hand-off: after the gateway writes a message a peer waits for — a
// request to a server when it is the only call in flight, an answer to an
// assistant when none is left — and so has nothing else to do, it gives
// its CPU to that peer (sched_yield(2)) instead of going through the
// runtime's scheduler and poller first. The write woke the peer, often on
// this CPU; yielding lets it run at once, and the gateway's thread stays
// runnable instead of falling asleep, so the peer's answer does not have
// to wake an idle vCPU (docs/performance.md, "The hand-off").
//
// The danger is another task that keeps the CPU: the scheduler (EEVDF)
// moves a yielder's deadline out by a whole slice, so the gateway — one P —
// waits out the other task's slice, milliseconds. Now and then that
// happens on any machine (a garbage collection, a redraw elsewhere: five
// to eight yields in a thousand in the benchmark on a quiet VM); with
// every CPU busy (a build) it would happen on every call: ≈ 10× direct.
// The guard measures each yield: one longer than slowYield means
// something else had the CPU. Slow yields add to a score and fast ones
// take from it; when slow ones come close together the hand-offs pause —
// 20 ms the first time, twice as long each time after, up to about 5 s —
// and the pauses shorten again once a long run of fast yields shows the
// CPU free. With every CPU busy that leaves one slow yield every five
// seconds; the odd slow yield of a quiet machine pauses nothing.
//
// With one CPU there is no idle CPU to spare a wake-up of, and a
// scheduler slice (0.75 ms) is shorter than slowYield, so the gateway
// does not hand off there. MCPTRAY_HANDOFF=off turns the hand-off off,
// to measure without it.

const (
	slowYield      = time.Millisecond
	slowScore      = 8  // a slow yield's weight; a fast one takes 1 off
	pauseScore     = 16 // the score at which the hand-offs pause
	maxScore       = 64
	firstPause     = 20 * time.Millisecond
	maxPauseLevel  = 8  // firstPause << 8 ≈ 5 s
	fastToStepDown = 64 // fast yields at score 0 that take a level off
)

// handOffs is the process's guard; handOff is the gateway's one entry.
var handOffs = newHandOffGuard(schedYield, os.Getenv("MCPTRAY_HANDOFF") != "off")

// HandOff gives the CPU to the peer a write just woke, when the guard
// allows (see above). The gateway calls it after such a write.
func HandOff() { handOffs.yield() }

// countHandOffsIn makes handOff count its calls in n instead of yielding,
// until restore is called: for tests of where the gateway hands off. Not
// safe while handOff may run.
func CountHandOffs(n *atomic.Int64) (restore func()) {
	saved := handOffs
	handOffs = &handOffGuard{on: true, now: func() time.Duration { return 0 }, sched: func() { n.Add(1) }}
	return func() { handOffs = saved }
}

type handOffGuard struct {
	on       bool
	sched    func()               // sched_yield(2), or a test's
	now      func() time.Duration // monotonic
	pausedTo atomic.Int64         // now() until which no yield happens

	mu    sync.Mutex
	score int // guarded by mu: slow yields weigh slowScore, fast ones -1
	level int // guarded by mu: the next pause is firstPause << level
	fast  int // guarded by mu: fast yields at score 0 since the last step down
}

func newHandOffGuard(sched func(), on bool) *handOffGuard {
	epoch := time.Now()
	return &handOffGuard{on: on && canYield && runtime.NumCPU() > 1, sched: sched, now: func() time.Duration { return time.Since(epoch) }}
}

// yield hands off, unless paused, and judges how long that took.
func (h *handOffGuard) yield() {
	if !h.on {
		return
	}
	start := h.now()
	if int64(start) < h.pausedTo.Load() {
		return
	}
	h.sched()
	end := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if end-start < slowYield {
		switch {
		case h.score > 0:
			h.score--
		case h.level > 0:
			if h.fast++; h.fast >= fastToStepDown {
				h.level--
				h.fast = 0
			}
		}
		return
	}
	h.fast = 0
	h.score = min(h.score+slowScore, maxScore)
	if h.score >= pauseScore {
		h.pausedTo.Store(int64(end + firstPause<<h.level))
		h.level = min(h.level+1, maxPauseLevel)
	}
}
