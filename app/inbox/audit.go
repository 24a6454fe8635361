package inbox

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mcptray/mcptray/store"
)

// The inbox's audit rows (store.Elicitation: who asked what, how it
// ended, never a value) go to the store through one writer goroutine, in
// batches of one transaction each: a storm of closing requests costs a few
// transactions, not a connection each. Nothing is dropped: a full queue
// makes the closing goroutine wait, and what is queued at Stop is stored
// before Stop returns.

// Audit writer limits.
const (
	auditQueue    = 4096 // rows between the inbox and the writer; more wait
	auditBatch    = 512  // rows per transaction
	auditAttempts = 5    // tries to store a batch before it is given up
)

// AuditLog is the audit rows' writer. Its owner runs Run on a goroutine of
// its own and calls Stop at shutdown, after closing the requests still
// open (CloseAll), so their rows are stored before Stop returns.
type AuditLog struct {
	log   *slog.Logger
	store *store.Store
	q     chan store.Elicitation // inbox → writer

	// mu is read-locked by add while it queues (and may wait on a full
	// queue, which the writer drains without taking mu); Stop write-locks
	// it, so no row is queued after the writer's last drain.
	mu       sync.RWMutex
	stopped  bool          // guarded by mu: rows are written by add itself
	stopping chan struct{} // closed by Stop: the writer drains q and returns
	done     chan struct{} // closed when Run has returned
}

// NewAuditLog returns a writer of audit rows to st.
func NewAuditLog(log *slog.Logger, st *store.Store) *AuditLog {
	return &AuditLog{log: log, store: st, q: make(chan store.Elicitation, auditQueue), stopping: make(chan struct{}), done: make(chan struct{})}
}

// add queues one row. Once the writer has stopped (a request closing after
// Stop), it stores the row itself.
func (a *AuditLog) add(e store.Elicitation) {
	a.mu.RLock()
	if !a.stopped {
		a.q <- e
		a.mu.RUnlock()
		return
	}
	a.mu.RUnlock()
	a.save([]store.Elicitation{e})
}

// Stop makes the writer store what is queued, and waits for Run to
// return. Rows added after it are stored at once by the closing goroutine.
func (a *AuditLog) Stop() {
	a.mu.Lock()
	if a.stopped {
		a.mu.Unlock()
		return
	}
	a.stopped = true
	a.mu.Unlock()
	close(a.stopping)
	<-a.done
}

// Run stores queued rows in batches until Stop, then what is left, and
// returns. Run it once, on its own goroutine.
func (a *AuditLog) Run() {
	defer close(a.done)
	batch := make([]store.Elicitation, 0, auditBatch)
	for {
		select {
		case e := <-a.q:
			batch = append(batch[:0], e)
		case <-a.stopping:
			for {
				batch = a.fill(batch[:0])
				if len(batch) == 0 {
					return
				}
				a.save(batch)
			}
		}
		batch = a.fill(batch)
		a.save(batch)
	}
}

// fill adds what is queued to batch, up to auditBatch rows, without
// waiting.
func (a *AuditLog) fill(batch []store.Elicitation) []store.Elicitation {
	for len(batch) < auditBatch {
		select {
		case e := <-a.q:
			batch = append(batch, e)
		default:
			return batch
		}
	}
	return batch
}

// save stores one batch in one transaction, retrying a few times.
func (a *AuditLog) save(batch []store.Elicitation) {
	delay := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := a.store.AddElicitations(context.Background(), batch)
		if err == nil {
			return
		}
		if attempt == auditAttempts {
			a.log.Error("inbox: audit rows lost", "count", len(batch), "err", err)
			return
		}
		a.log.Warn("inbox: writing audit rows, retrying", "count", len(batch), "err", err)
		time.Sleep(delay) // the queue fills meanwhile and closing requests wait: nothing is lost
		delay *= 2
	}
}
