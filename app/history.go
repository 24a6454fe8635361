package app

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/store"
)

// History limits.
const (
	historyQueue    = 8192 // records waiting for the writer; more are dropped (and counted)
	historyBatch    = 512  // records per transaction
	DefaultHistory  = 50   // calls `mcptray history` shows
	maxHistoryLimit = 10000
)

// historyDelay is how long a record may wait before it is written: the
// writer runs at most this often, never once per call (a wake-up and a
// transaction per call would cost a busy gateway its throughput).
// History writes what is queued first, so nothing is ever missing from it.
const historyDelay = 250 * time.Millisecond

// callHistory writes the gateway's tool-call records to the store in
// batches, off the gateway's hot path: record only queues.
type callHistory struct {
	c       *Core
	q       chan mcp.ToolCallRecord
	dropped atomic.Int64  // records dropped on a full queue since the last report
	armed   atomic.Bool   // a flush is due (historyDelay after the first record)
	kick    chan struct{} // capacity 1: wakes the writer

	flushMu sync.Mutex // one flush at a time: the writer's or History's

	stopOnce sync.Once
	stopping chan struct{}
}

func newCallHistory(c *Core) *callHistory {
	return &callHistory{c: c, q: make(chan mcp.ToolCallRecord, historyQueue), kick: make(chan struct{}, 1), stopping: make(chan struct{})}
}

// record is GatewayOptions.OnToolCall: it never blocks.
func (h *callHistory) record(r mcp.ToolCallRecord) {
	select {
	case h.q <- r:
	default:
		h.dropped.Add(1)
	}
	if h.armed.CompareAndSwap(false, true) {
		time.AfterFunc(historyDelay, h.wake)
	} else if len(h.q) > historyQueue/2 {
		h.wake()
	}
}

func (h *callHistory) wake() {
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

func (h *callHistory) stop() { h.stopOnce.Do(func() { close(h.stopping) }) }

// write stores queued records when woken, until stop, then what is left.
func (h *callHistory) write() {
	for {
		select {
		case <-h.kick:
			h.armed.Store(false)
			h.flush()
		case <-h.stopping:
			h.flush()
			return
		}
	}
}

// flush writes every queued record, in batches.
func (h *callHistory) flush() {
	h.flushMu.Lock()
	defer h.flushMu.Unlock()
	batch := make([]store.ToolCall, 0, historyBatch)
	for {
		batch = batch[:0]
	fill:
		for len(batch) < historyBatch {
			select {
			case r := <-h.q:
				batch = append(batch, toolCall(r))
			default:
				break fill
			}
		}
		if len(batch) == 0 {
			break
		}
		if err := h.c.store.AddToolCalls(context.Background(), batch); err != nil {
			h.c.log.Warn("recording tool calls", "count", len(batch), "err", err)
		}
	}
	if n := h.dropped.Swap(0); n > 0 {
		h.c.log.Warn("tool-call history queue full: records dropped", "count", n)
	}
}

func toolCall(r mcp.ToolCallRecord) store.ToolCall {
	return store.ToolCall{Server: r.Server, Tool: r.Tool, Started: r.Started, Duration: r.Duration, Outcome: r.Outcome}
}

// History returns the last limit tool calls, newest first (limit <= 0:
// DefaultHistory).
func (c *Core) History(limit int) ([]control.ToolCall, error) {
	if limit <= 0 {
		limit = DefaultHistory
	}
	limit = min(limit, maxHistoryLimit)
	c.history.flush()
	calls, err := c.store.ToolCalls(context.Background(), limit)
	if err != nil {
		return nil, err
	}
	out := make([]control.ToolCall, len(calls))
	for i, tc := range calls {
		out[i] = control.ToolCall{Server: tc.Server, Tool: tc.Tool, Started: tc.Started, DurationMS: float64(tc.Duration.Microseconds()) / 1000, Outcome: tc.Outcome}
	}
	return out, nil
}
