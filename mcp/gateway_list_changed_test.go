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
// AddTool) changes no view's tool list, so no assistant hears
// list_changed; a real change does, on either wire, over a stream and
// over HTTP (subscriptions/listen on 2026-07-28). What a view changed is
// counted where the SDK is told (view.toolChanges): the re-list is
// synchronous, so the count after it is final, where counting what the
// assistants hear would depend on go-sdk's notification delay.
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
	changes := func() uint64 {
		g.mu.Lock()
		defer g.mu.Unlock()
		var n uint64
		for _, v := range g.views {
			n += v.toolChanges.Load()
		}
		return n
	}
	addTool := func(name string) {
		t.Helper()
		n := listed.Load()
		if _, _, err := clients[0].call(t, "e__add_tool", map[string]any{"name": name}); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, "the gateway re-listed e's tools", func() bool { return listed.Load() > n })
	}
	// The 2025-11-25 HTTP client hears list_changed on its GET stream,
	// which go-sdk's client opens after initialize, in the background
	// (sdklog.go: a change before the stream is open reaches no one):
	// change the list until every client has heard one.
	warm := 0
	testkit.WaitFor(t, "every client hearing list_changed", func() bool {
		for i := range heard {
			if heard[i].Load() == 0 {
				warm++
				addTool(fmt.Sprintf("warm%d", warm))
				return false
			}
		}
		return true
	})

	addTool("fresh")
	before := changes()
	addTool("fresh") // the same list again
	if got := changes(); got != before {
		t.Errorf("the same list changed the views' tools %d times", got-before)
	}
	heardBefore := make([]int32, len(heard))
	for i := range heard {
		heardBefore[i] = heard[i].Load()
	}
	addTool("fresh2")
	if changes() == before {
		t.Error("a new tool changed no view")
	}
	testkit.WaitFor(t, "list_changed after a real change", func() bool {
		for i := range heard {
			if heard[i].Load() <= heardBefore[i] {
				return false
			}
		}
		return true
	})
	for i, c := range clients {
		if names := toolNames(t, c.ClientSession); !slices.Contains(names, "e__fresh2") {
			t.Errorf("client %d (%s): tools after the change: %v", i, clientName(i), names)
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
