//go:build linux

package mcp

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNotReadingFailsUnreadCallsAtOnce: a server that reads a call and
// then reads nothing until it answers (laggard's hold) leaves the next
// call unread in its pipe. After NotReadingAfter that call fails, with
// an error that says why, long before the call timeout; new calls fail
// at once; the call it read goes on and is answered; once it reads
// again, calls go through, and its log says both.
func TestNotReadingFailsUnreadCallsAtOnce(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{CallTimeout: 10 * time.Minute})
	f := addServer(t, g, "lag", "laggard", func(s *downstream.StdioSpec) { s.NotReadingAfter = time.Second })
	tc := connectStream(t, g, UpstreamOptions{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	type outcome struct {
		res *sdk.CallToolResult
		err error
	}
	held := make(chan outcome, 1)
	go func() {
		res, err := tc.CallTool(ctx, &sdk.CallToolParams{Name: "lag__hold", Arguments: map[string]any{}})
		held <- outcome{res, err}
	}()
	testkit.WaitFor(t, "the server holding the call it read", func() bool { return f.log.Has("stderr|holding") })

	_, err := tc.CallTool(ctx, &sdk.CallToolParams{Name: "lag__echo", Arguments: map[string]any{"message": "unread"}})
	if err == nil || !strings.Contains(err.Error(), `server "lag" is not reading its input (it read nothing for 1s); the call was cancelled`) {
		t.Fatalf("the call left unread: %v; want the not-reading error", err)
	}
	if !f.Session.NotReading() {
		t.Error("NotReading is false while the server reads nothing")
	}
	_, err = tc.CallTool(ctx, &sdk.CallToolParams{Name: "lag__echo", Arguments: map[string]any{"message": "new"}})
	if err == nil || !strings.Contains(err.Error(), `server "lag" is not reading its input (it read nothing for 1s); the call was not sent`) {
		t.Fatalf("a new call: %v; want the not-reading error", err)
	}
	select {
	case o := <-held:
		t.Fatalf("the call the server read ended: %+v %v", o.res, o.err)
	default:
	}

	if err := syscall.Kill(f.Session.PID(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if o := <-held; o.err != nil || textOf(t, o.res) != "held" {
		t.Fatalf("the call the server read: %+v %v", o.res, o.err)
	}
	testkit.WaitFor(t, "the server heard again", func() bool { return !f.Session.NotReading() })
	if res, _, err := tc.call(t, "lag__echo", map[string]any{"message": "again"}); err != nil || textOf(t, res) != "again" {
		t.Fatalf("a call once it reads again: %v %v", res, err)
	}
	for _, want := range []string{"stdin|not reading its input: nothing read for 1s while lines wait; calls to it fail until it reads again", "stdin|reading its input again"} {
		if !f.log.Has(want) {
			t.Errorf("log lacks %q: %s", want, f.log)
		}
	}
}

// TestHugeReplyIDInMiddleFailsOldest: a reply over 16 MiB whose id is
// neither among its first nor its last members fails the server's
// oldest call in flight at once, not at the call timeout.
func TestHugeReplyIDInMiddleFailsOldest(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{CallTimeout: 10 * time.Minute})
	f := addServer(t, g, "lag", "laggard")
	tc := connectStream(t, g, UpstreamOptions{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := tc.CallTool(ctx, &sdk.CallToolParams{Name: "lag__huge", Arguments: map[string]any{"idMiddle": true}})
	if err == nil || !strings.Contains(err.Error(), "the server's reply of 17825") || !strings.Contains(err.Error(), "bytes is over mcptray's 16 MiB limit") {
		t.Fatalf("%+v %v; want the size error at once", res, err)
	}
	if res, _, err := tc.call(t, "lag__echo", map[string]any{"message": "next"}); err != nil || textOf(t, res) != "next" {
		t.Fatalf("the call after: %v %v", res, err)
	}
	if !f.log.Has("stdout|its id was not at either end: the oldest call in flight failed in its place") {
		t.Errorf("log: %s", f.log)
	}
}
