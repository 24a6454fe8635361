//go:build linux

package mcp

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server that says its tool list changed when it did not (the changing
// fake's add_tool of a tool it has: go-sdk sends list_changed on every
// AddTool) makes no assistant hear list_changed; a real change does, on
// either wire, over a stream and over HTTP (subscriptions/listen on
// 2026-07-28). The real change comes after the gateway has taken in the
// unchanged list and after go-sdk's notification delay (the server's own
// delay and a call lie between), so a list_changed the unchanged list
// caused would be heard before the real change's, and counted.
func TestUnchangedListSendsNoListChanged(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	url := httpGateway(t, g, "tok").URL + "/mcp"
	heard := make([]atomic.Int32, 4)
	opts := func(i int) *sdk.ClientOptions {
		return &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { heard[i].Add(1) }}
	}
	clients := []*testClient{
		connectStream(t, g, UpstreamOptions{}, opts(0)),
		connectStreamWire(t, g, UpstreamOptions{}, opts(1), protocol2026),
		listeningHTTP(t, url, "tok", opts(2)),
		connectHTTPWire(t, url, "tok", opts(3), protocol2026),
	}
	var listed atomic.Int32 // the server's re-lists the gateway took in
	var f *fake
	f = startFake(t, "changing", downstream.Hooks{ToolsChanged: func() {
		go func() {
			if _, err := f.ListTools(context.Background()); err == nil {
				listed.Add(1)
			}
		}()
	}})
	g.SetServer("e", f.Session)
	all := func(n []int32) bool {
		for i := range heard {
			if heard[i].Load() < n[i] {
				return false
			}
		}
		return true
	}
	change := func(name string) []int32 {
		t.Helper()
		before := make([]int32, len(heard))
		for i := range heard {
			before[i] = heard[i].Load()
		}
		n := listed.Load()
		if _, _, err := clients[0].call(t, "e__add_tool", map[string]any{"name": name}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, "the gateway re-listed e's tools", func() bool { return listed.Load() > n })
		return before
	}
	// The 2025-11-25 HTTP client hears list_changed on its GET stream,
	// which go-sdk's client opens after initialize, in the background:
	// change the list until every client has heard one (sdklog.go: a
	// change before the stream is open reaches no one).
	warm := 0
	testkit.WaitFor(t, "every client hearing list_changed", func() bool {
		if all([]int32{1, 1, 1, 1}) {
			return true
		}
		warm++
		change(fmt.Sprintf("warm%d", warm))
		return false
	})
	change("fresh")
	before := change("fresh") // the same list again
	change("fresh2")
	for i := range before {
		before[i]++
	}
	testkit.WaitFor(t, "list_changed after a real change", func() bool { return all(before) })
	for i, c := range clients {
		if names := toolNames(t, c.ClientSession); !slices.Contains(names, "e__fresh2") {
			t.Errorf("client %d: tools after the change: %v", i, names)
		}
	}
	for i := range heard {
		if got := heard[i].Load(); got != before[i] {
			t.Errorf("client %d heard list_changed %d times since the unchanged list, want 1 (%s)", i, got-before[i]+1, clientName(i))
		}
	}
}

// listeningHTTP is connectHTTP without the capture, whose wrapped
// connection hides from go-sdk's client what it needs to open the GET
// stream (PLATFORM.md).
func listeningHTTP(t testing.TB, url, token string, co *sdk.ClientOptions) *testClient {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test-http-assistant", Version: "1"}, clientOptions(co))
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token, http.DefaultTransport}}}
	cs, err := client.Connect(context.Background(), tr, &sdk.ClientSessionOptions{ProtocolVersion: oldWire})
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return &testClient{ClientSession: cs, cap: &capture{}}
}

func clientName(i int) string {
	return []string{"stream, 2025-11-25", "stream, 2026-07-28", "HTTP, 2025-11-25", "HTTP, 2026-07-28"}[i]
}
