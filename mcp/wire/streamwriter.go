package wire

import (
	"io"
	"net"
	"slices"
	"sync"
	"syscall"
	"time"
)

// Bounds of what waits in a StreamWriter for a peer that does not read.
const (
	// PauseUnread: above this many bytes waiting, WaitRoom waits (the
	// session stops reading the peer's requests: backpressure).
	PauseUnread = 1 << 20
	// MaxUnread: a line that would take the bytes waiting over this ends
	// the stream instead (Overflow is called, once).
	MaxUnread = 64 << 20
)

// StreamWriter writes lines to a stream without ever making the sender
// wait on a slow assistant: a line goes out at once with a non-blocking
// write when the socket takes it (the common case, and no goroutine hop),
// else it is queued for the writer's goroutine, which blocks for it. Lines
// queued together go out in one write. What waits is bounded: WaitRoom
// lets a reader of the peer's requests wait while over PauseUnread bytes
// wait, and past MaxUnread the stream is given up (Overflow).
type StreamWriter struct {
	w  io.Writer
	RC syscall.RawConn // non-nil when w is a socket: non-blocking writes possible

	// Overflow, when set (before the first Send), is called once, on the
	// sender's goroutine, when a line would take what waits over
	// MaxUnread; the line and everything queued are dropped, and the
	// writer is closed. It should end the stream.
	Overflow func(unread int)

	mu      sync.Mutex
	queue   [][]byte      // guarded by mu
	spare   [][]byte      // guarded by mu: a drained queue's slice, for reuse
	unread  int           // guarded by mu: bytes queued or being written by the goroutine
	room    chan struct{} // guarded by mu: closed when unread falls to PauseUnread or below; nil: nobody waits
	writing bool          // guarded by mu: someone is writing to w
	closed  bool          // guarded by mu

	wake chan struct{} // capacity 1
	done chan struct{} // closed when the goroutine has ended
}

// NewStreamWriter starts the writer's goroutine for w; Close ends it.
func NewStreamWriter(w io.Writer) *StreamWriter {
	sw := &StreamWriter{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	if sc, ok := w.(syscall.Conn); ok { // a socket, or a pollable pipe
		sw.RC = nonBlockingConn(sc)
	}
	go sw.run()
	return sw
}

// Send writes line, or queues what the stream does not take now; it
// reports whether all of line went out at once.
func (sw *StreamWriter) Send(line []byte) (written bool) {
	sw.mu.Lock()
	if sw.closed {
		sw.mu.Unlock()
		return false
	}
	if sw.RC == nil || sw.writing || len(sw.queue) > 0 {
		if sw.unread > 0 && sw.unread+len(line) > MaxUnread {
			unread := sw.unread
			sw.closeLocked()
			sw.mu.Unlock()
			sw.signal()
			if sw.Overflow != nil {
				sw.Overflow(unread)
			}
			return false
		}
		sw.queue = append(sw.queue, line)
		sw.unread += len(line)
		sw.mu.Unlock()
		sw.signal()
		return false
	}
	sw.writing = true
	sw.mu.Unlock()
	n := sw.tryWrite(line)
	sw.mu.Lock()
	sw.writing = false
	if n < len(line) {
		sw.queue = slices.Insert(sw.queue, 0, line[n:])
		sw.unread += len(line) - n
	}
	pending := len(sw.queue) > 0
	sw.mu.Unlock()
	if pending {
		sw.signal()
	}
	return n == len(line)
}

// tryWrite writes what the socket takes now and returns how much that was.
func (sw *StreamWriter) tryWrite(b []byte) int {
	n := 0
	sw.RC.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, errno := rawWrite(fd, b[n:])
			if errno != 0 || m <= 0 {
				break // EAGAIN and real errors alike: the goroutine takes over
			}
			n += m
		}
		return true
	})
	return n
}

func (sw *StreamWriter) signal() {
	select {
	case sw.wake <- struct{}{}:
	default:
	}
}

func (sw *StreamWriter) run() {
	defer close(sw.done)
	for range sw.wake {
		for {
			sw.mu.Lock()
			if sw.writing {
				sw.mu.Unlock()
				break // the inline writer signals when it is done
			}
			if len(sw.queue) == 0 {
				closed := sw.closed
				sw.mu.Unlock()
				if closed {
					return
				}
				break
			}
			batch := sw.queue
			size := 0
			for _, b := range batch {
				size += len(b)
			}
			sw.queue, sw.spare = sw.spare[:0], nil
			sw.writing = true
			sw.mu.Unlock()
			var err error
			if len(batch) == 1 {
				_, err = sw.w.Write(batch[0])
			} else {
				bufs := net.Buffers(batch)
				_, err = bufs.WriteTo(sw.w)
			}
			clear(batch)
			sw.mu.Lock()
			sw.writing = false
			sw.spare = batch[:0]
			sw.unread = max(sw.unread-size, 0)
			if err != nil {
				sw.closeLocked()
			} else if sw.unread <= PauseUnread {
				sw.openRoom()
			}
			sw.mu.Unlock()
		}
	}
}

// WaitRoom waits while more than PauseUnread bytes wait for the peer; it
// returns false once the writer is closed (or stop closes). waiting, when
// set, is called before it first blocks, with the bytes waiting.
func (sw *StreamWriter) WaitRoom(stop <-chan struct{}, waiting func(unread int)) bool {
	for {
		sw.mu.Lock()
		if sw.closed {
			sw.mu.Unlock()
			return false
		}
		if sw.unread <= PauseUnread {
			sw.mu.Unlock()
			return true
		}
		if sw.room == nil {
			sw.room = make(chan struct{})
		}
		room, unread := sw.room, sw.unread
		sw.mu.Unlock()
		if waiting != nil {
			waiting(unread)
			waiting = nil
		}
		select {
		case <-room:
		case <-stop:
			return false
		}
	}
}

// Unread is how many bytes wait for the peer.
func (sw *StreamWriter) Unread() int {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.unread
}

// openRoom wakes the waiters of WaitRoom; sw.mu held.
func (sw *StreamWriter) openRoom() {
	if sw.room != nil {
		close(sw.room)
		sw.room = nil
	}
}

// closeLocked stops taking lines and drops those queued; sw.mu held.
func (sw *StreamWriter) closeLocked() {
	sw.closed = true
	sw.queue = nil
	sw.unread = 0
	sw.openRoom()
}

// Close stops taking lines and waits (a little) for the queued ones to go
// out.
func (sw *StreamWriter) Close() {
	sw.mu.Lock()
	sw.closed = true
	sw.openRoom()
	sw.mu.Unlock()
	sw.signal()
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-sw.done:
	case <-t.C:
	}
}
