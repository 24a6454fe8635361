package ui

import "sync"

// maxQueuedNotices is how many posts may wait for the desktop's
// notification service; more are dropped (a withdrawal is always kept).
const maxQueuedNotices = 64

// noticeQueue is the queue in front of a notificationService's one
// goroutine (busNotifications on Linux, toastNotifications on Windows),
// which makes the calls in order: a withdrawal that follows a post
// withdraws what that post showed, even when the post is still on its
// way. post and withdraw never block. The goroutine (started by start)
// waits on wake and takes the queue with take; close waits for its end.
type noticeQueue struct {
	mu     sync.Mutex
	queue  []notifyOp    // guarded by mu
	posts  int           // posts in queue; guarded by mu
	closed bool          // guarded by mu
	wake   chan struct{} // a value when queue or closed changed (cap 1)
	done   chan struct{} // closed when the goroutine has returned
}

// notifyOp is one queued operation: a post of n, or a withdrawal of n.key.
type notifyOp struct {
	withdraw bool
	n        notice
}

// start starts run, the goroutine; done is closed when it returns.
func (q *noticeQueue) start(run func()) {
	q.wake, q.done = make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(q.done)
		run()
	}()
}

func (q *noticeQueue) post(n notice) { q.add(notifyOp{n: n}) }

func (q *noticeQueue) withdraw(key string) {
	if key != "" {
		q.add(notifyOp{withdraw: true, n: notice{key: key}})
	}
}

func (q *noticeQueue) add(op notifyOp) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || (!op.withdraw && q.posts >= maxQueuedNotices) {
		return
	}
	if !op.withdraw {
		q.posts++
	}
	q.queue = append(q.queue, op)
	q.signal()
}

// signal wakes the goroutine; called with mu held.
func (q *noticeQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// close tells the goroutine to withdraw the notices still shown by key
// (their requests end with the app) and to stop, and waits for that.
func (q *noticeQueue) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		q.signal()
	}
	q.mu.Unlock()
	<-q.done
}

// take returns the queued operations and whether close was called.
func (q *noticeQueue) take() ([]notifyOp, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	ops := q.queue
	q.queue, q.posts = nil, 0
	return ops, q.closed
}
