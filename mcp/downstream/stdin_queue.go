package downstream

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"

	"github.com/mcptray/mcptray/mcp/wire"
)

// MaxStdinQueue bounds the bytes waiting to be written to one server's
// stdin (beyond what its pipe holds). A line that would go over it is
// refused at once with an ErrStdinFull error, unless nothing waits: one
// line of any size is always taken.
const MaxStdinQueue = 4 << 20

// ErrStdinFull is wrapped by writes to a server that stopped reading its
// stdin, once MaxStdinQueue bytes wait for it.
var ErrStdinFull = errors.New("the server is not reading its input")

// stdinQueue writes lines to a server's stdin without ever making the
// sender wait on the server: a line goes out at once with a non-blocking
// write when the pipe takes all of it and nothing waits (the common case,
// no goroutine hop), else its rest is queued for the queue's goroutine
// (started then, ended by close), which blocks for it. Whole lines only, in the order they were sent, so
// messages never interleave. The queue is bounded (MaxStdinQueue).
type stdinQueue struct {
	in *wire.PipeFile

	mu      sync.Mutex
	queue   []stdinLine // guarded by mu: lines not yet begun, but the first may be a rest
	pending int         // guarded by mu: bytes queued or being written by the goroutine
	writing bool        // guarded by mu: someone is writing to in
	running bool        // guarded by mu: the goroutine was started (on the first line queued)
	err     error       // guarded by mu: set once a write failed or the queue closed; sticky
	sent    uint64      // guarded by mu: bytes taken by send so far, less those withdrawn: where each line ends

	watch stdinWatch // guarded by mu: is the server reading what waits? (stdin_watch.go)

	wake     chan struct{} // capacity 1
	stop     chan struct{} // closed by close
	stopOnce sync.Once
}

// stdinLine is a queued line; tag (non-zero) names a call whose line may
// still be withdrawn while it waits.
type stdinLine struct {
	b   []byte
	tag uint64
}

func newStdinQueue(in *wire.PipeFile, w stdinWatch) *stdinQueue {
	return &stdinQueue{in: in, watch: w, wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// send writes line or queues it; it never waits for the server. It fails
// when the queue is closed or broken, or full (ErrStdinFull), and a call
// (tag non-zero) fails while the server is not reading its input
// (NotReadingError). written reports whether all of line went out at
// once; end is where the line ends in the bytes sent to the server
// (stdinQueue.sent). tag, when non-zero, lets withdraw take the line back
// while it still waits.
func (q *stdinQueue) send(line []byte, tag uint64) (end uint64, written bool, err error) {
	q.mu.Lock()
	if q.err != nil {
		err := q.err
		q.mu.Unlock()
		return 0, false, err
	}
	if tag != 0 && q.watch.deaf && !q.hearsLocked() {
		err := &NotReadingError{After: q.watch.after}
		q.mu.Unlock()
		return 0, false, err
	}
	if q.writing || len(q.queue) > 0 {
		if q.pending > 0 && q.pending+len(line) > MaxStdinQueue {
			pending := q.pending
			q.mu.Unlock()
			return 0, false, fmt.Errorf("%w: %d bytes wait to be written", ErrStdinFull, pending)
		}
		q.queue = append(q.queue, stdinLine{b: line, tag: tag})
		q.pending += len(line)
		q.sent += uint64(len(line))
		end = q.sent
		q.startLocked()
		q.watchLocked()
		q.mu.Unlock()
		q.signal()
		return end, false, nil
	}
	q.writing = true
	q.sent += uint64(len(line))
	end = q.sent
	q.mu.Unlock()
	n := q.in.TryWrite(line)
	q.mu.Lock()
	q.writing = false
	q.watchLocked()
	if n < len(line) {
		rest := stdinLine{b: line[n:]}
		if n == 0 {
			rest.tag = tag // nothing of it went out: it may still be withdrawn
		}
		q.queue = slices.Insert(q.queue, 0, rest)
		q.pending += len(rest.b)
		q.startLocked()
	}
	wait := len(q.queue) > 0
	q.mu.Unlock()
	if wait {
		q.signal()
	}
	return end, n == len(line), nil
}

// withdraw takes back the line sent with tag if none of it was written
// yet, and reports whether it did.
func (q *stdinQueue) withdraw(tag uint64) bool {
	if tag == 0 {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, l := range q.queue {
		if l.tag == tag {
			q.queue = slices.Delete(q.queue, i, i+1)
			q.pending -= len(l.b)
			q.sent -= uint64(len(l.b)) // the ends of the lines after it, noted before, are now past theirs: a call may look unread that was read
			return true
		}
	}
	return false
}

// startLocked starts the goroutine, the first time a line waits: a
// server whose pipe always takes its lines has none. q.mu held.
func (q *stdinQueue) startLocked() {
	if !q.running && q.err == nil {
		q.running = true
		go q.run()
	}
}

func (q *stdinQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// run writes what is queued, blocking on the pipe, until close.
func (q *stdinQueue) run() {
	var bufs [][]byte
	for {
		select {
		case <-q.wake:
		case <-q.stop:
			return
		}
		for {
			q.mu.Lock()
			if q.err != nil {
				q.mu.Unlock()
				return
			}
			if q.writing || len(q.queue) == 0 {
				q.mu.Unlock()
				break // an inline writer signals when it is done
			}
			bufs = bufs[:0]
			size := 0
			for _, l := range q.queue {
				bufs = append(bufs, l.b)
				size += len(l.b)
			}
			clear(q.queue)
			q.queue = q.queue[:0]
			q.writing = true
			q.mu.Unlock()
			var err error
			if len(bufs) == 1 {
				_, err = q.in.Write(bufs[0])
			} else {
				nb := net.Buffers(bufs)
				_, err = nb.WriteTo(q.in)
			}
			clear(bufs)
			q.mu.Lock()
			q.writing = false
			q.pending -= size
			if err != nil && q.err == nil {
				q.err = fmt.Errorf("writing to stdin: %w", err)
				q.queue, q.pending = nil, 0
			}
			q.mu.Unlock()
		}
	}
}

// close stops taking lines and drops those still queued; a write under
// way ends when the pipe is closed (stdioConn.Close).
func (q *stdinQueue) close(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.queue, q.pending = nil, 0
	q.unwatchLocked()
	q.mu.Unlock()
	q.stopOnce.Do(func() { close(q.stop) })
}
