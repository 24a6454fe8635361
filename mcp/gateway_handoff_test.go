//go:build linux

package mcp

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/wire"
)

// countHandOffs makes handOff count instead of yield, for one test.
func countHandOffs(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	t.Cleanup(wire.CountHandOffs(&n))
	return &n
}

// TestHandOffAfterEachWrite: the gateway hands off after writing a call
// to a server when it is the only call in flight, and after writing an
// answer when none is left — and not while other calls are in flight, nor
// after an answer its writer goroutine has to finish.
//
// A hand-off follows only a write made at once: one that found another
// write of the same pipe under way (the SDK's own messages, a
// notification) is queued for the writer goroutine and rightly hands off
// nothing. Under load that happens now and then, so the test holds the
// gateway to the upper bounds exactly (never a hand-off where it must
// not) and to the lower ones over several calls.
func TestHandOffAfterEachWrite(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	r := connectRaw(t, g, UpstreamOptions{})
	r.initialize(t)
	n := countHandOffs(t)

	const calls = 8
	for i := range calls {
		before := n.Load()
		r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"r__echo","arguments":{"message":"m%d"}}}`, i, i))
		if got := r.recv(t); !strings.Contains(got, fmt.Sprintf(`"text":"m%d"`, i)) {
			t.Fatalf("call %d: %s", i, got)
		}
		// The next request only once finish has looked at what is in
		// flight: sent sooner (the answer is out before that look), it
		// would be in flight then, rightly with no hand-off.
		testkit.WaitFor(t, "the call forgotten", func() bool { return g.calls.inFlight() == 0 })
		if got := settled(n) - before; got > 2 {
			t.Fatalf("call %d: %d hand-offs, want at most 2 (after the request, after the answer)", i, got)
		}
	}
	if got := n.Load(); got < calls {
		t.Errorf("%d calls one at a time: %d hand-offs, want about 2 a call", calls, got)
	}

	// Two calls at once: a hand-off after the first request (alone in
	// flight) and after the last answer, none in between.
	n.Store(0)
	for i := range 2 {
		r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":"s%d","method":"tools/call","params":{"name":"r__slow","arguments":{"steps":1,"ms":300}}}`, i))
	}
	for range 2 {
		if got := r.recv(t); !strings.Contains(got, "done after 1 steps") {
			t.Fatalf("slow call: %s", got)
		}
	}
	testkit.WaitFor(t, "both calls forgotten", func() bool { return g.calls.inFlight() == 0 })
	if got := settled(n); got > 2 {
		t.Errorf("two overlapping calls: %d hand-offs, want at most 2", got)
	}

	// An answer the socket does not take at once (2 MB, read only later)
	// goes out from the writer's goroutine: no hand-off after it, only
	// after the request.
	n.Store(0)
	r.send(t, `{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"r__huge","arguments":{"mb":2}}}`)
	testkit.WaitFor(t, "the call answered", func() bool { return g.calls.inFlight() == 0 })
	if got := settled(n); got > 1 {
		t.Errorf("a queued answer: %d hand-offs, want at most 1 (the request's)", got)
	}
	if got := r.recv(t); !strings.Contains(got, `"id":"h"`) || len(got) < 2<<20 {
		t.Errorf("huge answer: %d bytes", len(got))
	}
}

// settled returns n once it has not changed for 50 ms: what is counted
// after a call's last write. The pause checks that nothing more happens;
// it waits for nothing.
func settled(n *atomic.Int64) int64 {
	for {
		v := n.Load()
		time.Sleep(50 * time.Millisecond)
		if n.Load() == v {
			return v
		}
	}
}
