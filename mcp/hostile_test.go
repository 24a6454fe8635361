//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGatewayRefusesShadowedNames: with servers "a" and "a__b"
// configured, "a__b__pid" is resolved by the longer server name: server
// a's tool b__pid is not exposed under it (it would shadow a__b's tool
// pid), in live mode while a__b is off, and in stable mode, where a__b's
// cached pid keeps the name. A call to it is refused with a reason; a's
// tool stays callable on a's own route, and a's other tools work.
func TestGatewayRefusesShadowedNames(t *testing.T) {
	g, tl := newTestGateway(t, GatewayOptions{})
	g.SetConfigured([]ConfiguredServer{
		{Name: "a", Enabled: true, State: "ready"},
		{Name: "a__b", Enabled: false, State: "disabled", CachedTools: []*downstream.Tool{{Name: "pid"}}},
	})
	addServer(t, g, "a", "echo", withEnv(mcptest.ToolsEnv+"=b__pid"))

	live := connectStream(t, g, UpstreamOptions{}, nil)
	if names := toolNames(t, live.ClientSession); slices.Contains(names, "a__b__pid") || !slices.Contains(names, "a__echo") {
		t.Errorf("live tools/list: %v", names)
	}
	res, _, err := live.call(t, "a__b__pid", map[string]any{})
	if err != nil || !res.IsError {
		t.Fatalf("live a__b__pid: %+v %v", res, err)
	}
	if got := textOf(t, res); !strings.Contains(got, `server "a"'s tool "b__pid"`) || !strings.Contains(got, `server "a__b"'s tool "pid"`) {
		t.Errorf("live a__b__pid says: %s", got)
	}
	if res, _, err := live.call(t, "a__echo", map[string]any{"message": "still here"}); err != nil || textOf(t, res) != "still here" {
		t.Errorf("a__echo: %+v %v", res, err)
	}
	if !strings.Contains(tl.String(), "a/b__pid") || !strings.Contains(tl.String(), "a__b") {
		t.Errorf("the gateway's log does not say why a/b__pid is not exposed:\n%s", tl)
	}

	stable := connectStream(t, g, UpstreamOptions{Tools: ToolsStable}, nil)
	res, _, err = stable.call(t, "a__b__pid", map[string]any{})
	if err != nil || !res.IsError || !strings.Contains(textOf(t, res), `"a__b" is turned off`) {
		t.Errorf("stable a__b__pid (a__b's cached tool): %+v %v", res, err)
	}

	one := connectStream(t, g, UpstreamOptions{Server: "a"}, nil)
	if res, _, err := one.call(t, "b__pid", map[string]any{}); err != nil || textOf(t, res) != "b__pid" {
		t.Errorf("b__pid on a's route: %+v %v", res, err)
	}
}

// TestToolWithDuplicateKeysSkipped: a tools/list entry with a key twice
// ("name": decoders disagree on which one counts) is left out of the
// server's tools, with a line in its log; the other tools work.
func TestToolWithDuplicateKeysSkipped(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	f := addServer(t, g, "h", "hostile")
	var names []string
	for _, tool := range f.Tools() {
		names = append(names, tool.Name)
	}
	if strings.Join(names, " ") != "echo badutf8 wrongid ask" {
		t.Errorf("tools = %v; want the entries with a key twice left out", names)
	}
	for _, want := range []string{`"name" twice`, `"shown"`, `"run"`, `"description" twice`, `"twice"`} {
		if !strings.Contains(f.log.String(), want) {
			t.Errorf("the server's log lacks %s:%s", want, f.log)
		}
	}
	c := connectStream(t, g, UpstreamOptions{}, nil)
	if got := toolNames(t, c.ClientSession); slices.Contains(got, "h__run") || slices.Contains(got, "h__shown") || !slices.Contains(got, "h__echo") {
		t.Errorf("gateway tools/list: %v", got)
	}
	if _, _, err := c.call(t, "h__run", map[string]any{}); err == nil {
		t.Error("h__run was served")
	}
	if res, _, err := c.call(t, "h__echo", map[string]any{"message": "hi"}); err != nil || textOf(t, res) != "hi" {
		t.Errorf("h__echo: %+v %v", res, err)
	}
}

// badUTF8Text is the hostile fake's badutf8 text with each invalid byte
// replaced by U+FFFD.
const badUTF8Text = "bad \uFFFD\uFFFD bytes \uFFFD( end"

// TestInvalidUTF8Replaced: a result with invalid UTF-8 reaches the
// assistant as valid JSON text, each bad byte replaced by U+FFFD: on a
// stream (fast path), over HTTP as application/json (fast path) and as an
// event stream (slow path).
func TestInvalidUTF8Replaced(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "h", "hostile")
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"h__badutf8","arguments":{}}}`
	check := func(how, body string) {
		t.Helper()
		if !utf8.ValidString(body) {
			t.Errorf("%s: invalid UTF-8 reached the assistant: %q", how, body)
		}
		if !strings.Contains(body, badUTF8Text) {
			t.Errorf("%s: %q lacks %q", how, body, badUTF8Text)
		}
	}

	raw := connectRaw(t, g, UpstreamOptions{})
	raw.initialize(t)
	raw.send(t, call)
	line := raw.recv(t)
	check("stream", line)
	if !json.Valid([]byte(line)) {
		t.Errorf("stream: not JSON: %q", line)
	}

	url := httpGateway(t, g, "tok").URL + "/mcp"
	ct, body := newRawHTTP(t, url, `{}`).do(call)
	if ct != "application/json" || !json.Valid([]byte(body)) {
		t.Errorf("HTTP fast path: %s %q", ct, body)
	}
	check("HTTP fast path", body)
	ct, body = newRawHTTP(t, url, `{"elicitation":{}}`).do(call)
	if !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("HTTP slow path: %s", ct)
	}
	check("HTTP slow path", body)
}

// TestStrayRepliesLogged: a reply under an id nobody waits for is logged
// in the server's log, saying which id and why; the call it should have
// answered times out as before. A reply under the id of a call in flight
// to another server does not answer that call. A flood of strays logs a
// bounded number of lines, with a count.
func TestStrayRepliesLogged(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	g, _ := newTestGateway(t, GatewayOptions{CallTimeout: time.Second})
	h := addServer(t, g, "h", "hostile")
	addServer(t, g, "r", "rich", withEnv(mcptest.CancelFileEnv+"="+cancelFile))
	c := connectStream(t, g, UpstreamOptions{}, nil)

	_, _, err := c.call(t, "h__wrongid", map[string]any{})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != codeTimeout {
		t.Fatalf("h__wrongid: %v; want the call timeout", err)
	}
	h.log.Wait(t, "stdout|reply with id 999 dropped: it answers no request in flight to this server (stray reply 1)")

	c.call(t, "h__wrongid", map[string]any{"id": "gw-999999"})
	h.log.Wait(t, `stdout|reply with id "gw-999999" dropped: no call with this id is in flight (it ended already: answered, timed out or cancelled; or it was never sent) (stray reply 2)`)

	// A reply under the id of r's call in flight: r's call still gets r's
	// answer.
	g.SetSettings(time.Minute, "")
	slow := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
		defer cancel()
		res, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "r__slow", Arguments: map[string]any{"steps": 30, "ms": 100}})
		if err != nil {
			slow <- err.Error()
			return
		}
		slow <- textOf(t, res)
	}()
	testkit.WaitFor(t, "the slow tool to start", func() bool { return fileHas(cancelFile, "started slow") })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	c.CallTool(ctx, &sdk.CallToolParams{Name: "h__wrongid", Arguments: map[string]any{"shift": -1}})
	cancel()
	if got := <-slow; got != "done after 30 steps" {
		t.Errorf("r__slow answered %q: another server's reply took its place", got)
	}
	if !strings.Contains(h.log.String(), "is not a call mcptray sent to this server (stray reply 3)") {
		t.Errorf("h's log:%s", h.log)
	}

	// A flood: 5000 strays, a bounded number of lines.
	g.SetSettings(time.Second, "")
	c.call(t, "h__wrongid", map[string]any{"count": 5000})
	h.log.Wait(t, "stdout|reply with id 999 dropped: it answers no request in flight to this server (stray reply 5000; 1 in 1000 is logged after the first 10)")
	n := strings.Count(h.log.String(), "stray reply")
	if n > 20 {
		t.Errorf("%d lines for 5003 stray replies; want at most 20", n)
	}
}
