package app

import "time"

// relistEvery is how often at most a server's tools are listed again
// after notifications/tools/list_changed (Options.RelistEvery).
const relistEvery = time.Second

// relistLimit rate-limits the re-lists of one server's session; owned by
// its serve loop.
type relistLimit struct {
	last    time.Time   // when the last re-list began
	timer   *time.Timer // set while a re-list waits for its turn
	limited int         // notifications that had to wait, for the log
}

// now reports whether a re-list may run at once; else one is scheduled
// (due) for when the limit allows, and further notifications until then
// add nothing.
func (r *relistLimit) now(every time.Duration) bool {
	if r.timer != nil {
		r.limited++
		return false
	}
	wait := every - time.Since(r.last)
	if r.last.IsZero() || wait <= 0 {
		r.last = time.Now()
		return true
	}
	r.limited++
	r.timer = time.NewTimer(wait)
	return false
}

// due is the channel of the scheduled re-list; nil (never ready) when
// none is.
func (r *relistLimit) due() <-chan time.Time {
	if r.timer == nil {
		return nil
	}
	return r.timer.C
}

// fired records that the scheduled re-list runs now.
func (r *relistLimit) fired() {
	r.timer = nil
	r.last = time.Now()
}

func (r *relistLimit) stop() {
	if r.timer != nil {
		r.timer.Stop()
	}
}
