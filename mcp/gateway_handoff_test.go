//go:build linux

package mcp

import (
	"fmt"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/wire"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
func TestHandOffAfterEachWrite(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	r := connectRaw(t, g, UpstreamOptions{})
	r.initialize(t)
	n := countHandOffs(t)

	for i := range 5 {
		r.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"r__echo","arguments":{"message":"m%d"}}}`, i, i))
		if got := r.recv(t); !strings.Contains(got, fmt.Sprintf(`"text":"m%d"`, i)) {
			t.Fatalf("call %d: %s", i, got)
		}
		// The next request only once finish has looked at what is in
		// flight: sent sooner (the answer is out before that look), it
		// would be in flight then, rightly with no hand-off.
		testkit.WaitFor(t, "two hand-offs a call", func() bool { return n.Load() == int64(2*(i+1)) })
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
	testkit.WaitFor(t, "the last answer's hand-off", func() bool { return n.Load() == 2 })
	time.Sleep(50 * time.Millisecond)
	if got := n.Load(); got != 2 {
		t.Errorf("two overlapping calls: %d hand-offs, want 2", got)
	}

	// An answer the socket does not take at once (2 MB, read only later)
	// goes out from the writer's goroutine: no hand-off after it, only
	// after the request.
	n.Store(0)
	r.send(t, `{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"r__huge","arguments":{"mb":2}}}`)
	testkit.WaitFor(t, "the request's hand-off", func() bool { return n.Load() == 1 })
	testkit.WaitFor(t, "the call answered", func() bool { return g.calls.inFlight() == 0 })
	time.Sleep(50 * time.Millisecond)
	if got := n.Load(); got != 1 {
		t.Errorf("a queued answer: %d hand-offs, want 1 (the request's)", got)
	}
	if got := r.recv(t); !strings.Contains(got, `"id":"h"`) || len(got) < 2<<20 {
		t.Errorf("huge answer: %d bytes", len(got))
	}
}
