package events

import "sync"

// queue is the events' way from the servers' read loops to the
// writer: a slice under a mutex, bounded by count and bytes
// (QueueSize, queueBytes), which grows only as events wait. put
// never waits: past the bounds it drops the event and counts it.
type queue struct {
	ready chan struct{} // cap 1: events were put
	max   int           // events waiting at most (QueueSize, Options.Queue)

	mu      sync.Mutex
	evs     []queued       // guarded by mu: waiting, oldest first, from head on
	head    int            // guarded by mu: evs[:head] are taken
	bytes   int            // guarded by mu: params bytes waiting
	dropped map[string]int // guarded by mu: events dropped per server since the queue was last empty
	logs    map[string]Log // guarded by mu: where to tell each of them
}

// put queues e, or drops it when the queue is full; first reports the
// first drop since the queue was last empty.
func (q *queue) put(e queued, log Log) (first bool) {
	q.mu.Lock()
	if len(q.evs)-q.head >= q.max || q.bytes+len(e.ev.Params) > queueBytes {
		first = len(q.dropped) == 0
		q.dropped[e.ev.Server]++
		if q.logs == nil {
			q.logs = map[string]Log{}
		}
		q.logs[e.ev.Server] = log
		q.mu.Unlock()
		return first
	}
	q.evs = append(q.evs, e)
	q.bytes += len(e.ev.Params)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return false
}

// take appends to batch up to maxBatch of the oldest events.
func (q *queue) take(batch []queued) []queued {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(q.evs)-q.head, maxBatch)
	taken := q.evs[q.head : q.head+n]
	batch = append(batch, taken...)
	for _, e := range taken {
		q.bytes -= len(e.ev.Params)
	}
	clear(taken)
	q.head += n
	if q.head == len(q.evs) {
		q.evs, q.head = q.evs[:0], 0
		if cap(q.evs) > maxBatch {
			q.evs = nil // don't keep a flood's slice around
		}
	}
	return batch
}

// droppedCount is one server's count of dropped events.
type droppedCount struct {
	server string
	count  int
	log    Log
}

// drained returns, when the queue is empty, the drop counts since it was
// last empty, and resets them.
func (q *queue) drained() []droppedCount {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.evs) > q.head || len(q.dropped) == 0 {
		return nil
	}
	out := make([]droppedCount, 0, len(q.dropped))
	for server, n := range q.dropped {
		out = append(out, droppedCount{server: server, count: n, log: q.logs[server]})
	}
	clear(q.dropped)
	clear(q.logs)
	return out
}
