package downstream

import (
	"fmt"
	"time"
)

// DefaultNotReadingAfter is how long a stdio server may leave the bytes
// sent to it unread before it counts as not reading its input
// (StdioSpec.NotReadingAfter). A server that reads its input at all
// takes a line within milliseconds, even while it works on a call: the
// SDKs read stdin on a goroutine or task of its own. Ten seconds leaves
// a server stopped in a debugger or swapped out room to come back, and
// bounds how long calls to a deaf server hold an HTTP connection (the
// endpoint takes 256), where the call timeout (5 min) would not.
const DefaultNotReadingAfter = 10 * time.Second

// NotReadingError is the error of a call to a server that has read
// nothing of what was sent to it for After: the call is not sent. It
// wraps ErrStdinFull.
type NotReadingError struct{ After time.Duration }

func (e *NotReadingError) Error() string {
	return fmt.Sprintf("%v: it read nothing for %s", ErrStdinFull, e.After)
}

func (e *NotReadingError) Unwrap() error { return ErrStdinFull }

// stdinWatch tells when a server stops reading its input: bytes wait
// (in its pipe, or in the stdinQueue) and none was read for after. Its
// timer runs only while something was sent lately: armed by send, it
// ticks every after/4 and stops once nothing waits. Reading what waits
// is measured on the pipe (wire.PipeFile.Written less Unread), so a
// server that works on a long call but reads what comes stays heard;
// where Unread cannot tell, only the stdinQueue's bytes count as
// waiting. Fields guarded by stdinQueue.mu.
type stdinWatch struct {
	after  time.Duration
	onDeaf func(read uint64) // it stopped reading: the lines that end past read are unread
	onHear func()            // it reads again

	timer *time.Timer
	armed bool      // the timer runs
	known bool      // last is set
	last  uint64    // the bytes read at the last tick
	quiet time.Time // since when nothing was read while bytes waited

	deaf     bool   // not reading: calls are refused (NotReadingError)
	deafRead uint64 // the bytes read when it was found deaf
}

// readLocked is how many of the bytes written to the pipe the server has
// read, and whether any wait (in the pipe or the queue). q.mu held.
func (q *stdinQueue) readLocked() (read uint64, waiting bool) {
	written := q.in.Written()
	unread, ok := q.in.Unread()
	if !ok {
		return written, q.pending > 0
	}
	u := min(uint64(unread), written)
	return written - u, u > 0 || q.pending > 0
}

// watchLocked starts the watch's timer when it is not running. q.mu held.
func (q *stdinQueue) watchLocked() {
	w := &q.watch
	if w.armed || w.after <= 0 || q.err != nil {
		return
	}
	w.armed, w.known = true, false
	if w.timer == nil {
		w.timer = time.AfterFunc(w.after/4, q.tick)
	} else {
		w.timer.Reset(w.after / 4)
	}
}

// unwatchLocked stops the timer for good (the queue closed). q.mu held.
func (q *stdinQueue) unwatchLocked() {
	q.watch.armed = false
	if q.watch.timer != nil {
		q.watch.timer.Stop()
	}
}

// hearsLocked is asked, while the server counts as deaf, before a call is
// refused: it reports whether the server read something since (then it
// is deaf no more). q.mu held.
func (q *stdinQueue) hearsLocked() bool {
	w := &q.watch
	read, _ := q.readLocked()
	if read == w.deafRead {
		return false
	}
	w.deaf, w.known, w.last, w.quiet = false, true, read, time.Now()
	if w.onHear != nil {
		go w.onHear()
	}
	return true
}

// tick is the watch's timer: it notes what the server read, finds it
// deaf after a quiet of w.after with bytes waiting, or heard again.
func (q *stdinQueue) tick() {
	q.mu.Lock()
	w := &q.watch
	if !w.armed || q.err != nil {
		w.armed = false
		q.mu.Unlock()
		return
	}
	read, waiting := q.readLocked()
	now := time.Now()
	var deaf, hear bool
	switch {
	case !w.known || read != w.last:
		w.known, w.last, w.quiet = true, read, now
		if w.deaf {
			w.deaf, hear = false, true
		}
	case !waiting:
		w.quiet = now
	}
	if !waiting && !w.deaf {
		w.armed = false
	} else {
		if !w.deaf && now.Sub(w.quiet) >= w.after {
			w.deaf, w.deafRead, deaf = true, read, true
		}
		w.timer.Reset(w.after / 4)
	}
	q.mu.Unlock()
	if deaf && w.onDeaf != nil {
		w.onDeaf(read)
	}
	if hear && w.onHear != nil {
		w.onHear()
	}
}

// notReading is the watch's word that the server stopped reading its
// input: the log says so, NotReading reports it, and the Router fails
// the calls whose requests it did not read.
func (s *Session) notReading(read uint64, after time.Duration) {
	s.deaf.Store(true)
	s.hooks.log("stdin", fmt.Sprintf("not reading its input: nothing read for %s while lines wait; calls to it fail until it reads again", after))
	if s.hooks.NotReading != nil {
		s.hooks.NotReading(true)
	}
	if r := s.attached(); r != nil {
		r.NotReading(s, read)
	}
}

// readsAgain is the watch's word that the server reads its input again.
func (s *Session) readsAgain() {
	s.deaf.Store(false)
	s.hooks.log("stdin", "reading its input again")
	if s.hooks.NotReading != nil {
		s.hooks.NotReading(false)
	}
}

// NotReading reports whether the stdio server is not reading its input
// now: nothing of what waits for it was read for StdioSpec.NotReadingAfter.
// Calls to it fail at once (NotReadingError) until it reads again.
func (s *Session) NotReading() bool { return s.deaf.Load() }

// NotReadingAfter is the session's StdioSpec.NotReadingAfter, with the
// default filled in.
func (s *Session) NotReadingAfter() time.Duration { return s.notReadingAfter }
