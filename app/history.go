package app

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/store"
)

// ToolCall is one tool call through the gateway, as `mcptray history`
// shows it: never its arguments or its result.
type ToolCall struct {
	Server     string    `json:"server"`
	Tool       string    `json:"tool"` // the server's own name for it
	Started    time.Time `json:"started"`
	DurationMS float64   `json:"durationMs"`
	Outcome    string    `json:"outcome"` // ok, error, cancelled or timeout
}

// History limits.
const (
	historyQueue    = 1024 // records waiting for the writer; more are dropped (and counted)
	historyBatch    = 256  // records per transaction
	DefaultHistory  = 50   // calls `mcptray history` shows
	maxHistoryLimit = 10000
)

// callHistory writes the gateway's tool-call records to the store in
// batches, off the gateway's hot path: record only queues.
type callHistory struct {
	c       *Core
	q       chan mcp.ToolCallRecord
	dropped atomic.Int64 // records dropped on a full queue since the last report

	stopOnce sync.Once
	stopping chan struct{}
}

func newCallHistory(c *Core) *callHistory {
	return &callHistory{c: c, q: make(chan mcp.ToolCallRecord, historyQueue), stopping: make(chan struct{})}
}

// record is GatewayOptions.OnToolCall: it never blocks.
func (h *callHistory) record(r mcp.ToolCallRecord) {
	select {
	case h.q <- r:
	default:
		h.dropped.Add(1)
	}
}

func (h *callHistory) stop() { h.stopOnce.Do(func() { close(h.stopping) }) }

// write stores queued records until stop, then what is left.
func (h *callHistory) write() {
	batch := make([]store.ToolCall, 0, historyBatch)
	for {
		var stopping bool
		select {
		case r := <-h.q:
			batch = append(batch[:0], toolCall(r))
		case <-h.stopping:
			stopping = true
			batch = batch[:0]
		}
	fill:
		for len(batch) < historyBatch {
			select {
			case r := <-h.q:
				batch = append(batch, toolCall(r))
			default:
				break fill
			}
		}
		if len(batch) > 0 {
			if err := h.c.store.AddToolCalls(context.Background(), batch); err != nil {
				h.c.log.Warn("recording tool calls", "count", len(batch), "err", err)
			}
		}
		if n := h.dropped.Swap(0); n > 0 {
			h.c.log.Warn("tool-call history queue full: records dropped", "count", n)
		}
		if stopping && len(batch) == 0 {
			return
		}
	}
}

func toolCall(r mcp.ToolCallRecord) store.ToolCall {
	return store.ToolCall{Server: r.Server, Tool: r.Tool, Started: r.Started, Duration: r.Duration, Outcome: r.Outcome}
}

// History returns the last limit tool calls, newest first (limit <= 0:
// DefaultHistory).
func (c *Core) History(limit int) ([]ToolCall, error) {
	if limit <= 0 {
		limit = DefaultHistory
	}
	limit = min(limit, maxHistoryLimit)
	calls, err := c.store.ToolCalls(context.Background(), limit)
	if err != nil {
		return nil, err
	}
	out := make([]ToolCall, len(calls))
	for i, tc := range calls {
		out[i] = ToolCall{Server: tc.Server, Tool: tc.Tool, Started: tc.Started, DurationMS: float64(tc.Duration.Microseconds()) / 1000, Outcome: tc.Outcome}
	}
	return out, nil
}
