//go:build linux

package mcp

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigArgs are the arguments of a call of about n bytes.
func bigArgs(n int) map[string]any {
	return map[string]any{"message": strings.Repeat("a", n)}
}

// TestDeafServerStallsNobody: a server that stopped reading its stdin
// gets two calls with 200 KB arguments, more than its pipe holds. The
// same session's calls to another server and its tools/list are still
// answered, the calls that fill the server's queue fail at once with a
// clear error, and the stuck calls end at the call timeout, saying why.
func TestDeafServerStallsNobody(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{CallTimeout: 5 * time.Second})
	addServer(t, g, "deaf", "laggard")
	addServer(t, g, "ok", "echo")
	tc := connectStream(t, g, UpstreamOptions{}, nil)
	if res, _, err := tc.call(t, "deaf__deaf", nil); err != nil || textOf(t, res) != "deaf" {
		t.Fatalf("deaf: %v %v", res, err)
	}

	type outcome struct {
		res *sdk.CallToolResult
		err error
	}
	stuck := make(chan outcome, 64)
	var started sync.WaitGroup
	for range 2 {
		started.Add(1)
		go func() {
			started.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := tc.CallTool(ctx, &sdk.CallToolParams{Name: "deaf__echo", Arguments: bigArgs(200 << 10)})
			stuck <- outcome{res, err}
		}()
	}
	started.Wait()
	// Wait until both calls are in flight to the deaf server.
	testkit.WaitFor(t, "both calls in flight (writing the first must not hold up the session)", func() bool { return g.calls.inFlight() == 2 })

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tc.CallTool(ctx, &sdk.CallToolParams{Name: "ok__echo", Arguments: map[string]any{"message": "still here"}})
	if err != nil || textOf(t, res) != "still here" {
		t.Fatalf("a call to another server behind the stuck ones: %v %v", res, err)
	}
	if names := toolNames(t, tc.ClientSession); len(names) == 0 {
		t.Fatal("tools/list behind the stuck calls listed nothing")
	}

	// The deaf server's queue takes MaxStdinQueue bytes; the calls that
	// would go over it are refused at once, the others wait in it.
	more := downstream.MaxStdinQueue/(200<<10) + 2
	for range more {
		go func() {
			res, err := tc.CallTool(ctx, &sdk.CallToolParams{Name: "deaf__echo", Arguments: bigArgs(200 << 10)})
			stuck <- outcome{res, err}
		}()
	}
	// Every call to the deaf server ends: refused at once, or at its
	// timeout (the request still queued, or half written).
	refused, timedOut := 0, 0
	for range 2 + more {
		o := <-stuck
		switch {
		case o.err != nil && strings.Contains(o.err.Error(), `server "deaf" is not reading its input (4 MiB wait to be written to it); the call was not sent`):
			refused++
		case o.err != nil && (strings.Contains(o.err.Error(), `server "deaf" did not read the call of tool "echo" within 5s (it is not reading its input); the call was not sent`) ||
			strings.Contains(o.err.Error(), `server "deaf" did not answer tool "echo" within 5s`)):
			timedOut++
		default:
			t.Errorf("a call to the deaf server: %+v %v", o.res, o.err)
		}
	}
	if refused == 0 || timedOut < 2 {
		t.Errorf("%d calls refused, %d timed out; want some of each", refused, timedOut)
	}
}

// TestHugeReplyFailsAtOnce: a reply over 16 MiB is discarded, and its call
// fails at once with an error saying so, not at the call timeout; with
// the id written first or last. The server's next calls are answered.
func TestHugeReplyFailsAtOnce(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{CallTimeout: 10 * time.Minute})
	f := addServer(t, g, "lag", "laggard")
	tc := connectStream(t, g, UpstreamOptions{}, nil)
	for _, idLast := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := tc.CallTool(ctx, &sdk.CallToolParams{Name: "lag__huge", Arguments: map[string]any{"idLast": idLast}})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "the server's reply of 17825") || !strings.Contains(err.Error(), "bytes is over mcptray's 16 MiB limit") {
			t.Errorf("idLast %v: %+v %v; want the size error at once", idLast, res, err)
		}
		if res, _, err := tc.call(t, "lag__echo", map[string]any{"message": "next"}); err != nil || textOf(t, res) != "next" {
			t.Fatalf("the call after: %v %v", res, err)
		}
	}
	if !f.log.Has("stdout|line over 16 MiB discarded (17825870 bytes)") {
		t.Errorf("log: %s", f.log)
	}
}
