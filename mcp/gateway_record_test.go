//go:build linux

package mcp

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/internal/testkit"
)

// TestGatewayToolCallRecords: every forwarded call ends in one record with
// its outcome, on the fast path (stream) and the slow one (HTTP).
func TestGatewayToolCallRecords(t *testing.T) {
	records := make(chan ToolCallRecord, 100)
	g, _ := newTestGateway(t, GatewayOptions{CallTimeout: 500 * time.Millisecond, OnToolCall: func(r ToolCallRecord) { records <- r }})
	addServer(t, g, "r", "rich")
	stream := connectStream(t, g, UpstreamOptions{}, nil)
	web := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", nil)

	next := func(t *testing.T) ToolCallRecord {
		t.Helper()
		select {
		case r := <-records:
			return r
		case <-time.After(10 * time.Second):
			t.Fatal("no tool call record")
			return ToolCallRecord{}
		}
	}
	for name, c := range map[string]*testClient{"stream": stream, "http": web} {
		t.Run(name, func(t *testing.T) {
			check := func(tool, outcome string) {
				t.Helper()
				r := next(t)
				if r.Server != "r" || r.Tool != tool || r.Outcome != outcome || r.Started.IsZero() || r.Duration <= 0 || time.Since(r.Started) < r.Duration {
					t.Errorf("record = %+v; want r/%s %s", r, tool, outcome)
				}
			}
			if _, _, err := c.call(t, "r__rich", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			check("rich", outcomeOK)
			if res, _, err := c.call(t, "r__rich", map[string]any{"isError": true}); err != nil || !res.IsError {
				t.Fatalf("isError call: %v %v", res, err)
			}
			check("rich", OutcomeError)
			if _, _, err := c.call(t, "r__slow", map[string]any{"steps": 100, "ms": 100}); err == nil {
				t.Fatal("a call past the timeout succeeded")
			}
			check("slow", OutcomeTimeout)

			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "r__slow", Arguments: map[string]any{"steps": 100, "ms": 1000}})
				errc <- err
			}()
			testkit.WaitFor(t, "the call to be in flight", func() bool { return len(g.calls.matching(func(*call) bool { return true })) == 1 })
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled call: %v", err)
			}
			check("slow", OutcomeCancelled)
		})
	}
	// Builtins are not forwarded, so not recorded.
	stream.call(t, "mcptray__servers", nil)
	select {
	case r := <-records:
		if r.Tool != "dies" {
			t.Errorf("unexpected record %+v", r)
		}
	default:
	}
	// A server that dies mid-call: an error.
	stream.call(t, "r__dies", map[string]any{})
	if r := next(t); r.Tool != "dies" || r.Outcome != OutcomeError {
		t.Errorf("record of a call whose server died = %+v", r)
	}
}

// TestGatewayBuiltinResource: aggregate routes list and read mcptray's own
// resource; subscribers (stream and HTTP) hear of updates; single-server
// routes don't show it.
func TestGatewayBuiltinResource(t *testing.T) {
	var reads atomic.Int32
	g, tl := newTestGateway(t, GatewayOptions{BuiltinResources: []BuiltinResource{{
		URI: "mcptray://events", Name: "events", Description: "Unacknowledged events", MIMEType: "application/json",
		Read: func(context.Context) (string, error) {
			reads.Add(1)
			return `{"events":[]}`, nil
		},
	}}})
	addServer(t, g, "r", "rich")
	updates := make(chan string, 10)
	co := func() *sdk.ClientOptions {
		return &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			updates <- req.Params.URI
		}}
	}
	stream := connectStream(t, g, UpstreamOptions{}, co())
	web := connectHTTPListening(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", co())
	single := connectStream(t, g, UpstreamOptions{Server: "r"}, nil)

	uris := func(c *testClient) []string {
		var out []string
		for r, err := range c.Resources(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.URI)
		}
		return out
	}
	testkit.WaitFor(t, "the rich server's resources", func() bool { return slices.Contains(uris(stream), "fake://readme") })
	if got := uris(stream); !slices.Contains(got, "mcptray://events") {
		t.Errorf("aggregate resources = %v; want mcptray://events among them", got)
	}
	if got := uris(single); slices.Contains(got, "mcptray://events") {
		t.Errorf("single-server route lists %v", got)
	}
	res, err := stream.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "mcptray://events"})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != `{"events":[]}` || res.Contents[0].MIMEType != "application/json" {
		t.Fatalf("read: %+v %v", res, err)
	}

	g.ResourceUpdated("mcptray://events") // nobody subscribed: nothing to send
	for name, c := range map[string]*testClient{"stream": stream, "http": web} {
		if err := c.Subscribe(context.Background(), &sdk.SubscribeParams{URI: "mcptray://events"}); err != nil {
			t.Fatalf("%s: subscribe: %v", name, err)
		}
	}
	g.ResourceUpdated("mcptray://events")
	for range 2 {
		select {
		case uri := <-updates:
			if uri != "mcptray://events" {
				t.Errorf("update for %s", uri)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("a subscriber got no notifications/resources/updated; stream saw %d\n%s", stream.cap.count("resources/updated"), tl)
		}
	}
	select {
	case uri := <-updates:
		t.Errorf("an extra update for %s", uri)
	default:
	}
	// Subscriptions to mcptray's resource never reach a server.
	if n := stream.cap.count(`"method":"notifications/resources/updated"`, `fake://`); n != 0 {
		t.Errorf("server updates seen: %d", n)
	}
	for _, c := range []*testClient{stream, web} {
		if err := c.Unsubscribe(context.Background(), &sdk.UnsubscribeParams{URI: "mcptray://events"}); err != nil {
			t.Fatal(err)
		}
	}
	g.mu.Lock()
	left := g.subs[subKey{builtinSubServer, "mcptray://events"}]
	g.mu.Unlock()
	if left != 0 {
		t.Errorf("%d subscriptions left after unsubscribing", left)
	}
	if _, err := single.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "mcptray://events"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("single-server read of mcptray://events: %v", err)
	}
}

// connectHTTPListening is connectHTTP with a connection context that
// lives as long as the test, so the client's standalone SSE stream (where
// notifications outside a request arrive) stays open, and without the
// capturing wrapper, which hides the connection's sessionUpdated method
// that starts that stream.
func connectHTTPListening(t testing.TB, url, token string, co *sdk.ClientOptions) *testClient {
	t.Helper()
	tc := &testClient{cap: &capture{}}
	client := sdk.NewClient(&sdk.Implementation{Name: "test-http-assistant", Version: "1"}, clientOptions(co))
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{token, http.DefaultTransport}}}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, err := client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: oldWire})
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	tc.ClientSession = cs
	t.Cleanup(func() { cs.Close() })
	return tc
}
