package wire

import (
	"io"
	"net"
	"slices"
	"sync"
	"syscall"
	"time"
)

// StreamWriter writes lines to a stream without ever making the sender
// wait on a slow assistant: a line goes out at once with a non-blocking
// write when the socket takes it (the common case, and no goroutine hop),
// else it is queued for the writer's goroutine, which blocks for it. Lines
// queued together go out in one write.
type StreamWriter struct {
	w  io.Writer
	RC syscall.RawConn // non-nil when w is a socket: non-blocking writes possible

	mu      sync.Mutex
	queue   [][]byte // guarded by mu
	spare   [][]byte // guarded by mu: a drained queue's slice, for reuse
	writing bool     // guarded by mu: someone is writing to w
	closed  bool     // guarded by mu

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
		sw.queue = append(sw.queue, line)
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
			if err != nil {
				sw.closed = true
				sw.queue = nil
			}
			sw.mu.Unlock()
		}
	}
}

// Close stops taking lines and waits (a little) for the queued ones to go
// out.
func (sw *StreamWriter) Close() {
	sw.mu.Lock()
	sw.closed = true
	sw.mu.Unlock()
	sw.signal()
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-sw.done:
	case <-t.C:
	}
}
