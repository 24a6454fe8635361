//go:build linux

package mcp

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Log levels per request on the 2026-07-28 wire, in front of a
// 2025-11-25 server (logging/setLevel is per connection) and of a
// 2026-07-28 one (the level in the call's _meta): a call that sets
// io.modelcontextprotocol/logLevel hears the server's messages at that
// level and above (debug too, below the server's own level, info);
// a call that sets none hears nothing (sep-2575-server-no-log-without-loglevel);
// over a stream and over HTTP. Each case ends with a call whose message
// is heard, after which the earlier messages would have been heard too.
func TestRequestLogLevel(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "old", "rich")
	addServer(t, g, "new", "new-wire")
	base := httpGateway(t, g, "tok").URL + "/mcp/"
	for _, tc := range []struct {
		name    string
		connect func(co *sdk.ClientOptions) *testClient
	}{
		{"old/stream", func(co *sdk.ClientOptions) *testClient {
			return connectStreamWire(t, g, UpstreamOptions{Server: "old"}, co, protocol2026)
		}},
		{"old/http", func(co *sdk.ClientOptions) *testClient {
			return connectHTTPWire(t, base+"old", "tok", co, protocol2026)
		}},
		{"new/stream", func(co *sdk.ClientOptions) *testClient {
			return connectStreamWire(t, g, UpstreamOptions{Server: "new"}, co, protocol2026)
		}},
		{"new/http", func(co *sdk.ClientOptions) *testClient {
			return connectHTTPWire(t, base+"new", "tok", co, protocol2026)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var heard []string
			c := tc.connect(&sdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
				mu.Lock()
				heard = append(heard, string(req.Params.Level)+" "+req.Params.Data.(string))
				mu.Unlock()
			}})
			log := func(callLevel, level, message string) {
				t.Helper()
				p := &sdk.CallToolParams{Name: "log", Arguments: map[string]any{"message": message, "level": level}}
				if callLevel != "" {
					p.Meta = sdk.Meta{metaLogLevel: callLevel}
				}
				res, err := c.CallTool(context.Background(), p)
				if err != nil || res.IsError {
					t.Fatalf("log %s at %s: %v %+v", message, level, err, res)
				}
			}
			log("", "error", "no level set")
			log("warning", "info", "below the call's level")
			log("warning", "error", "at the call's level")
			log("debug", "debug", "below the server's own level")
			want := []string{"error at the call's level", "debug below the server's own level"}
			testkit.WaitFor(t, "the messages the calls asked for", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(heard) >= len(want)
			})
			log("", "emergency", "no level set, again")
			log("info", "info", "last")
			want = append(want, "info last")
			testkit.WaitFor(t, "the last message", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return slices.Contains(heard, "info last")
			})
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(heard, want) {
				t.Errorf("heard %q\nwant  %q", heard, want)
			}
		})
	}
	// The older server's level, lowered to debug for a call, is back to
	// the one it was started with once no call asks for more.
	testkit.WaitFor(t, "the older server's level back to info", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		d := g.down["old"]
		return d.level == "info" && len(d.callLevels) == 0
	})
}

// A 2026-07-28 prompts/get with a log level hears what the server logs
// while it answers; one without a level hears nothing; on an aggregate
// route the logger names the server.
func TestRequestLogLevelPrompt(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	url := httpGateway(t, g, "tok").URL + "/mcp"
	for _, tc := range []struct {
		name    string
		connect func(co *sdk.ClientOptions) *testClient
	}{
		{"stream", func(co *sdk.ClientOptions) *testClient {
			return connectStreamWire(t, g, UpstreamOptions{}, co, protocol2026)
		}},
		{"http", func(co *sdk.ClientOptions) *testClient { return connectHTTPWire(t, url, "tok", co, protocol2026) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var heard []string
			c := tc.connect(&sdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
				mu.Lock()
				heard = append(heard, req.Params.Logger+": "+req.Params.Data.(string))
				mu.Unlock()
			}})
			get := func(level, message string) {
				t.Helper()
				p := &sdk.GetPromptParams{Name: "r__greet", Arguments: map[string]string{"name": "Ada", "log": message}}
				if level != "" {
					p.Meta = sdk.Meta{metaLogLevel: level}
				}
				if _, err := c.GetPrompt(context.Background(), p); err != nil {
					t.Fatal(err)
				}
			}
			testkit.WaitFor(t, "the prompt listed", func() bool { // the gateway lists a server's prompts after it is set
				res, err := c.ListPrompts(context.Background(), &sdk.ListPromptsParams{})
				return err == nil && len(res.Prompts) > 0 && res.Prompts[0].Name == "r__greet"
			})
			get("", "no level set")
			get("warning", "below the request's level")
			get("debug", "heard")
			testkit.WaitFor(t, "the message the request asked for", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(heard) > 0
			})
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"r/fake: heard"}; !slices.Equal(heard, want) {
				t.Errorf("heard %q, want %q", heard, want)
			}
		})
	}
}

// A 2026-07-28 request whose log level the spec does not name is refused,
// saying what it got and what there is, on either path.
func TestRequestLogLevelRefused(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	c := connectStreamWire(t, g, UpstreamOptions{Server: "r"}, nil, protocol2026)
	for _, level := range []any{"verbose", 3, ""} {
		_, err := c.CallTool(context.Background(), &sdk.CallToolParams{Name: "log", Arguments: map[string]any{"message": "x"}, Meta: sdk.Meta{metaLogLevel: level}})
		if err == nil || !strings.Contains(err.Error(), `invalid _meta "io.modelcontextprotocol/logLevel"`) || !strings.Contains(err.Error(), "want one of debug, info, notice") {
			t.Errorf("level %#v: %v", level, err)
		}
	}
	raw := connectRaw(t, g, UpstreamOptions{Server: "r"})
	raw.send(t, `{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}}`)
	if got := raw.recv(t); !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, `\"loud\"`) {
		t.Errorf("prompts/list with a bad level: %s", got)
	}
}
