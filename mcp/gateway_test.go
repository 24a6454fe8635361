//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGatewayPassesEverythingThrough: tools/list keeps schemas ($schema,
// $defs, additionalProperties), outputSchema, annotations, _meta; a call's
// result arrives byte for byte as the server sent it, on the stream (fast
// path) and over HTTP (fast path; TestHTTPFastPath covers the slow one).
func TestGatewayPassesEverythingThrough(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	direct := connectDirect(t, "rich", nil)
	stream := connectStream(t, g, UpstreamOptions{}, nil)
	web := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", nil)

	var want *sdk.Tool
	for tool, err := range direct.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "rich" {
			want = tool
		}
	}
	for _, c := range []*testClient{stream, web} {
		var got *sdk.Tool
		for tool, err := range c.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			if tool.Name == "r__rich" {
				got = tool
			}
		}
		if got == nil {
			t.Fatalf("r__rich not listed: %v", toolNames(t, c.ClientSession))
		}
		got.Name = "rich"
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
			t.Errorf("tool differs:\n got %s\nwant %s", g, w)
		}
		for _, key := range []string{`"$schema"`, `"$defs"`, `"additionalProperties":false`, `"outputSchema"`, `"readOnlyHint":true`, `"fake/tool"`} {
			if !strings.Contains(mustJSON(t, got), key) {
				t.Errorf("tool lost %s", key)
			}
		}
	}

	for _, isError := range []bool{false, true} {
		args := map[string]any{"isError": isError, "note": "n\u00e9"}
		_, wantRaw, err := direct.call(t, "rich", args)
		if err != nil {
			t.Fatal(err)
		}
		for name, c := range map[string]*testClient{"stream": stream, "http": web} {
			res, raw, err := c.call(t, "r__rich", args)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if string(raw) != string(wantRaw) {
				t.Errorf("%s: result differs from a direct call:\n got %s\nwant %s", name, raw, wantRaw)
			}
			if res.IsError != isError || len(res.Content) != 5 || res.StructuredContent == nil || res.Meta["fake/result"] == nil {
				t.Errorf("%s: decoded result %+v", name, res)
			}
		}
	}
}

// TestGatewayBadInput: unknown tool, malformed arguments, a line that is
// not JSON; the session goes on after each.
func TestGatewayBadInput(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	c := connectStream(t, g, UpstreamOptions{}, nil)

	_, _, err := c.call(t, "e__nope", nil)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Message != `unknown tool "e__nope"` {
		t.Errorf("unknown tool: %v", err)
	}
	res, _, err := c.call(t, "e__echo", map[string]any{"message": 7})
	if err == nil && !res.IsError {
		t.Errorf("malformed arguments: no error, result %+v", res)
	} else if err == nil && !strings.Contains(textOf(t, res), "message") {
		t.Errorf("malformed arguments: %q", textOf(t, res))
	}

	// Lines that are not JSON-RPC get a parse error; the session goes on.
	r := connectRaw(t, g, UpstreamOptions{})
	r.initialize(t)
	for _, bad := range []string{`{not json`, `hello`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e__echo","arguments":{"message":"unterminated}}}`} {
		r.send(t, bad)
		if got := r.recv(t); !strings.Contains(got, `"id":null,"error":{"code":-32700,"message":"parse error: `) {
			t.Errorf("%s: %s", bad, got)
		}
	}
	r.send(t, `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"e__echo","arguments":{"message":"still here"}}}`)
	if got, want := r.recv(t), `{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"still here"}]}}`; got != want {
		t.Errorf("after bad input:\n got %s\nwant %s", got, want)
	}
	r.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"e__echo","arguments":"no"}}`)
	if got := r.recv(t); !strings.Contains(got, `"id":5,`) || !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "cannot unmarshal") {
		t.Errorf("arguments not an object: %s", got)
	}

	// An unknown server on a single-server route.
	ours, theirs := socketPair(t)
	defer ours.Close()
	if err := g.ServeStream(context.Background(), theirs, UpstreamOptions{Server: "nope"}); err == nil || err.Error() != `unknown server "nope"` {
		t.Errorf("unknown server: %v", err)
	}
	if err := g.ServeStream(context.Background(), theirs, UpstreamOptions{Tools: "sometimes"}); err == nil || !strings.Contains(err.Error(), `unknown tools mode "sometimes"`) {
		t.Errorf("unknown mode: %v", err)
	}
}

// TestGatewayProgressAndCancel: progress reaches the caller under its own
// token, only the caller; cancelling a call cancels it downstream; the
// session goes on.
func TestGatewayProgressAndCancel(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich", withEnv(mcptest.CancelFileEnv+"="+cancelFile))
	var progress []string
	progressCh := make(chan string, 100)
	a := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		progressCh <- mustJSON(t, req.Params)
	}})
	bSaw := make(chan string, 100)
	b := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		bSaw <- mustJSON(t, req.Params)
	}})
	web := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", nil)

	for name, c := range map[string]*testClient{"stream": a, "http": web} {
		params := &sdk.CallToolParams{Name: "r__slow", Arguments: map[string]any{"steps": 3, "ms": 1}, Meta: sdk.Meta{"progressToken": "tok-" + name}}
		res, err := c.CallTool(context.Background(), params)
		if err != nil || textOf(t, res) != "done after 3 steps" {
			t.Fatalf("%s: slow: %v %v", name, res, err)
		}
		if name == "http" {
			testkit.WaitFor(t, "progress over HTTP", func() bool { return c.cap.count(`"progressToken":"tok-http"`, `"progress":3`) == 1 })
			continue
		}
		for len(progress) < 3 {
			select {
			case p := <-progressCh:
				progress = append(progress, p)
			case <-time.After(5 * time.Second):
				t.Fatalf("progress so far: %v", progress)
			}
		}
		if !strings.Contains(progress[0], `"progressToken":"tok-stream"`) || !strings.Contains(progress[2], `"progress":3`) {
			t.Errorf("progress: %v", progress)
		}
	}

	// Cancel: the client gives up, the server hears of it.
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := a.CallTool(ctx, &sdk.CallToolParams{Name: "r__slow", Arguments: map[string]any{"steps": 100, "ms": 100}, Meta: sdk.Meta{"progressToken": 9}})
		errc <- err
	}()
	testkit.WaitFor(t, "the first step", func() bool { return len(progressCh) > 0 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	testkit.WaitFor(t, "the server to see the cancellation", func() bool { return fileHas(cancelFile, "cancelled slow") })
	res, _, err := a.call(t, "r__echo", map[string]any{"message": "after"})
	if err != nil || textOf(t, res) != "after" {
		t.Fatalf("after cancel: %v %v", res, err)
	}
	select {
	case p := <-bSaw:
		t.Errorf("the other client saw progress: %s", p)
	default:
	}
	_ = b
}

// TestGatewayClientGoneCancels: a client that hangs up mid-call gets its
// call cancelled downstream.
func TestGatewayClientGoneCancels(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	g, _ := newTestGateway(t, GatewayOptions{})
	f := addServer(t, g, "r", "rich", withEnv(mcptest.CancelFileEnv+"="+cancelFile))
	c := connectStream(t, g, UpstreamOptions{}, nil)
	go c.CallTool(context.Background(), &sdk.CallToolParams{Name: "r__slow", Arguments: map[string]any{"steps": 100, "ms": 100}})
	testkit.WaitFor(t, "the call to be in flight", func() bool { return g.calls.latestFor(f.Session) != nil })
	c.conn.Close()
	testkit.WaitFor(t, "the server to see the cancellation", func() bool { return fileHas(cancelFile, "cancelled slow") })
	testkit.WaitFor(t, "the call table to empty", func() bool { return g.calls.latestFor(f.Session) == nil })
}

// TestGatewayDeadline: a call that outlives CallTimeout is cancelled
// downstream and answered with an error.
func TestGatewayDeadline(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	g, _ := newTestGateway(t, GatewayOptions{CallTimeout: 300 * time.Millisecond})
	addServer(t, g, "r", "rich", withEnv(mcptest.CancelFileEnv+"="+cancelFile))
	stream := connectStream(t, g, UpstreamOptions{}, nil)
	web := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", nil)
	for name, c := range map[string]*testClient{"stream": stream, "http": web} {
		os.Remove(cancelFile)
		_, _, err := c.call(t, "r__slow", map[string]any{"steps": 100, "ms": 100})
		var we *jsonrpc.Error
		if !errors.As(err, &we) || we.Code != codeTimeout || we.Message != `server "r" did not answer tool "slow" within 300ms; the call was cancelled` {
			t.Errorf("%s: %v", name, err)
		}
		testkit.WaitFor(t, "the server to see the cancellation", func() bool { return fileHas(cancelFile, "cancelled slow") })
	}
}

// TestGatewayServerDiesMidCall: the call fails with the reason, the
// upstream session stays, the server's tools go away.
func TestGatewayServerDiesMidCall(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	addServer(t, g, "e", "echo")
	stream := connectStream(t, g, UpstreamOptions{}, nil)
	_, _, err := stream.call(t, "r__dies", nil)
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Message != `server "r" stopped during the call (exited with code 5)` {
		t.Errorf("stream: %v", err)
	}
	testkit.WaitFor(t, "r's tools to go", func() bool { return !slices.Contains(toolNames(t, stream.ClientSession), "r__echo") })
	res, _, err := stream.call(t, "e__echo", map[string]any{"message": "alive"})
	if err != nil || textOf(t, res) != "alive" {
		t.Fatalf("after the crash: %v %v", res, err)
	}

	addServer(t, g, "r", "rich")
	web := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", nil)
	_, _, err = web.call(t, "r__dies", nil)
	if !errors.As(err, &we) || we.Message != `server "r" stopped during the call (exited with code 5)` {
		t.Errorf("http: %v", err)
	}
	res, _, err = web.call(t, "e__echo", map[string]any{"message": "alive"})
	if err != nil || textOf(t, res) != "alive" {
		t.Fatalf("http after the crash: %v %v", res, err)
	}
}

// TestGatewayHugeResult: 8 MiB arrive whole on a socket, on the pipes of
// `mcptray connect` and over HTTP.
func TestGatewayHugeResult(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	stream := connectStream(t, g, UpstreamOptions{}, nil)
	pipes := connectPipes(t, g, UpstreamOptions{}, nil)
	web := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", nil)
	for name, c := range map[string]*testClient{"stream": stream, "pipes": pipes, "http": web} {
		res, _, err := c.call(t, "r__huge", map[string]any{"mb": 8})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := textOf(t, res); len(got) != 8<<20 || strings.Trim(got, "x") != "" {
			t.Errorf("%s: %d bytes", name, len(got))
		}
	}
}

// TestGatewayToolModes: live follows servers up and down with
// list_changed; stable keeps every configured server's tools and says how
// to turn a server on; dynamic has four tools.
func TestGatewayToolModes(t *testing.T) {
	servers := BuiltinTool{Name: "servers", Description: "Lists servers.", Call: func(ctx context.Context, args json.RawMessage) (any, string, error) {
		return map[string]any{"servers": []string{"e", "off"}}, "e, off", nil
	}}
	g, _ := newTestGateway(t, GatewayOptions{Builtins: []BuiltinTool{servers}})
	cached := []*downstream.Tool{{Name: "send", Description: "Sends mail.", InputSchema: map[string]any{"type": "object"}}}
	g.SetConfigured([]ConfiguredServer{
		{Name: "e", Enabled: true, State: "starting"},
		{Name: "off", Enabled: false, State: "disabled", CachedTools: cached},
	})
	changed := make(chan struct{}, 10)
	live := connectStream(t, g, UpstreamOptions{Tools: toolsLive}, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	stable := connectStream(t, g, UpstreamOptions{Tools: ToolsStable}, nil)
	dynamic := connectStream(t, g, UpstreamOptions{Tools: ToolsDynamic}, nil)
	single := connectStream(t, g, UpstreamOptions{Server: "e"}, nil)

	if got := toolNames(t, live.ClientSession); !slices.Equal(got, []string{"mcptray__servers"}) {
		t.Errorf("live before e is up: %v", got)
	}
	f := addServer(t, g, "e", "changing")
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed when e came up")
	}
	if got := toolNames(t, live.ClientSession); !slices.Equal(got, []string{"e__add", "e__add_tool", "e__echo", "mcptray__servers"}) {
		t.Errorf("live: %v", got)
	}
	// Tools changed downstream.
	if _, _, err := live.call(t, "e__add_tool", map[string]any{"name": "fresh"}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "e__fresh", func() bool { return slices.Contains(toolNames(t, live.ClientSession), "e__fresh") })
	// The views are refreshed one after another: wait for the others too.
	testkit.WaitFor(t, "fresh on the single-server route", func() bool { return slices.Contains(toolNames(t, single.ClientSession), "fresh") })
	testkit.WaitFor(t, "e__fresh in stable", func() bool { return slices.Contains(toolNames(t, stable.ClientSession), "e__fresh") })
	if got := toolNames(t, single.ClientSession); !slices.Equal(got, []string{"add", "add_tool", "echo", "fresh"}) {
		t.Errorf("single server: %v", got)
	}
	res, _, err := single.call(t, "fresh", nil)
	if err != nil || textOf(t, res) != "fresh" {
		t.Errorf("single server call: %v %v", res, err)
	}

	if got := toolNames(t, stable.ClientSession); !slices.Equal(got, []string{"e__add", "e__add_tool", "e__echo", "e__fresh", "mcptray__servers", "off__send"}) {
		t.Errorf("stable: %v", got)
	}
	res, _, err = stable.call(t, "off__send", map[string]any{})
	if err != nil || !res.IsError || textOf(t, res) != `The MCP server "off" is turned off in mcptray. Turn it on with: mcptray toggle off on` {
		t.Errorf("stable, server off: %+v %v", res, err)
	}
	res, _, err = stable.call(t, "mcptray__servers", nil)
	if err != nil || textOf(t, res) != "e, off" || res.StructuredContent == nil {
		t.Errorf("builtin: %+v %v", res, err)
	}

	if got := toolNames(t, dynamic.ClientSession); !slices.Equal(got, []string{"mcptray__call_tool", "mcptray__describe_tool", "mcptray__list_tools", "mcptray__search_tools"}) {
		t.Errorf("dynamic: %v", got)
	}
	res, _, err = dynamic.call(t, "mcptray__list_tools", nil)
	if err != nil || !strings.Contains(textOf(t, res), "e (ready)\n  - add: Adds a and b.") || !strings.Contains(textOf(t, res), "off (disabled; turn it on with: mcptray toggle off on)\n  - send: Sends mail.") {
		t.Errorf("list_tools: %v %v", res, err)
	}
	res, _, err = dynamic.call(t, "mcptray__describe_tool", map[string]any{"server": "e", "tool": "echo"})
	if err != nil || !strings.Contains(textOf(t, res), `"inputSchema"`) {
		t.Errorf("describe_tool: %v %v", res, err)
	}
	res, _, err = dynamic.call(t, "mcptray__call_tool", map[string]any{"server": "e", "tool": "echo", "arguments": map[string]any{"message": "dyn"}})
	if err != nil || textOf(t, res) != "dyn" {
		t.Errorf("call_tool: %v %v", res, err)
	}
	res, _, err = dynamic.call(t, "mcptray__call_tool", map[string]any{"server": "nope", "tool": "echo"})
	if err != nil || !res.IsError || textOf(t, res) != `unknown server "nope"; call mcptray__list_tools to see the servers` {
		t.Errorf("call_tool, unknown server: %v %v", res, err)
	}

	// The server goes down: live drops its tools, stable keeps them.
	f.Close()
	g.SetServer("e", nil)
	testkit.WaitFor(t, "e's tools to leave live", func() bool { return !slices.Contains(toolNames(t, live.ClientSession), "e__echo") })
	if got := toolNames(t, stable.ClientSession); !slices.Contains(got, "e__fresh") {
		t.Errorf("stable after e went down: %v", got)
	}
	res, _, err = stable.call(t, "e__echo", map[string]any{"message": "x"})
	if err != nil || !res.IsError || !strings.Contains(textOf(t, res), `The MCP server "e" is not ready (state: starting)`) {
		t.Errorf("stable, e down: %+v %v", res, err)
	}
}

// TestGatewayNameCollision: two servers whose names sanitise alike both
// keep their tools: the second in the file under a prefix with a hash of
// its name, whichever starts first, and it is logged.
func TestGatewayNameCollision(t *testing.T) {
	g, tl := newTestGateway(t, GatewayOptions{})
	g.SetConfigured([]ConfiguredServer{{Name: "a.b", Enabled: true}, {Name: "a_b", Enabled: true}})
	addServer(t, g, "a_b", "echo")
	addServer(t, g, "a.b", "echo")
	c := connectStream(t, g, UpstreamOptions{}, nil)
	names := toolNames(t, c.ClientSession)
	hashed := "a_b_" + hash8("a_b") + "__echo"
	if !slices.Contains(names, "a_b__echo") || !slices.Contains(names, hashed) {
		t.Fatalf("tools: %v (want a_b__echo and %s)", names, hashed)
	}
	if !strings.Contains(tl.String(), "servers a.b and a_b both sanitise to a_b; the tools and prompts of a_b, later in the file, are named a_b_"+hash8("a_b")+"__") {
		t.Errorf("log: %s", tl)
	}
	for _, n := range []string{"a_b__echo", hashed} {
		res, _, err := c.call(t, n, map[string]any{"message": n})
		if err != nil || textOf(t, res) != n {
			t.Errorf("%s: %v %v", n, res, err)
		}
	}
}

var _ = reflect.DeepEqual
