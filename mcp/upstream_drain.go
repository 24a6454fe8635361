package mcp

import (
	"context"
	"encoding/json"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// An assistant that ends its input (closes the stdin of `mcptray
// connect`, `mcptray connect < requests.jsonl`, a socket's write side) may
// still read: the requests it already sent are answered before the session
// ends, as a stdio server that finishes its work before exiting would. A
// peer that hung up altogether — its end of the output gone too — has its
// calls cancelled at once instead, and so does one whose output mcptray
// cannot check (no descriptor; on Windows, where no output can be
// checked, such a peer is assumed to read: uncheckedOutputGone). The wait
// is bounded by the call timeout: every call is answered by then, with a
// timeout error if need be.

// drainTick is how often drain looks at what is left.
const drainTick = 10 * time.Millisecond

// drain returns when every request the assistant sent on this stream has
// its answer, the assistant hangs up, ctx ends, or the call timeout (and
// a second) has passed.
func (up *upstream) drain(ctx context.Context, conn *upConn) {
	out := up.w.RC // the output's descriptor, as the writer has it
	if up.inFlight(conn) == 0 || outputGone(out) {
		return
	}
	give := time.Now().Add(up.g.timeout() + time.Second)
	t := time.NewTicker(drainTick)
	defer t.Stop()
	for up.inFlight(conn) > 0 && time.Now().Before(give) {
		select {
		case <-ctx.Done():
			return
		case <-conn.closed:
			return
		case <-t.C:
			if outputGone(out) {
				return
			}
		}
	}
}

// inFlight counts the assistant's requests not answered yet: fast-path
// calls, those the gateway answers itself (answering) and those the SDK
// serves.
func (up *upstream) inFlight(conn *upConn) int {
	up.mu.Lock()
	n := len(up.raw) + int(up.answering.Load())
	up.mu.Unlock()
	conn.mu.Lock()
	n += len(conn.pending)
	conn.mu.Unlock()
	return n
}

// forgetCancelled stops waiting for the answer to a request the assistant
// cancelled (the SDK may not answer it).
func (c *upConn) forgetCancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// outputGone reports whether the stream's output has no reader left: a
// pipe whose read end is closed, a socket shut down both ways. An output
// without a descriptor to look at (rc nil) is uncheckedOutputGone.
func outputGone(rc syscall.RawConn) bool {
	if rc == nil {
		return uncheckedOutputGone
	}
	gone := true
	if err := rc.Control(func(fd uintptr) { gone = wire.HungUp(fd) }); err != nil {
		return true
	}
	return gone
}
