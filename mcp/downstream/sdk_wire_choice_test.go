package downstream

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSDKServerChoosesItsWirePerSession pins the go-sdk (v1.8) behaviour
// that Start's default rests on (initialize first; docs/protocol.md,
// "Why a stdio server is asked initialize first"): a go-sdk server decides
// once per connection, from the version of its first initialize or
// 2026-07-28 request, both whether a handler's questions go out as an
// input_required result (with the handler's own keys) and whether a tool
// may send elicitation/create. A 2026-07-28 request's _meta on a
// connection initialized with 2025-11-25 changes neither. So no start
// gives both: the tools written for 2025-11-25 (session.Elicit) and the
// server's keys on an input_required. If this test fails, go-sdk decides
// per request now: the known gap input-required-result-basic-elicitation
// (conformance/known-gaps.txt) can be closed by sending 2026-07-28
// requests over an initialized connection.
func TestSDKServerChoosesItsWirePerSession(t *testing.T) {
	for _, tc := range []struct {
		name         string
		initVersion  string // the version initialize announces; "": server/discover instead
		meta26       bool   // each tools/call carries the 2026-07-28 _meta
		wantKeys     bool   // input_required comes with the handler's key
		wantElicitOK bool   // a tool may send elicitation/create
	}{
		{"initialize 2025-11-25", "2025-11-25", false, false, true},
		{"initialize 2025-11-25, requests with 2026-07-28 _meta", "2025-11-25", true, false, true},
		{"initialize announcing 2026-07-28", NewWireVersion, false, true, false},
		{"initialize announcing 2026-07-28, requests with its _meta", NewWireVersion, true, true, false},
		{"server/discover", "", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newRawSDKSession(t, tc.initVersion)
			keyed := c.callTool("asks_by_result", tc.meta26)
			if got := keyed.inputKeys(); tc.wantKeys != (got == "user_name") {
				t.Errorf("asks_by_result: input_required keys %q, elicitation/create sent: %v; want the handler's key: %v", got, keyed.elicited, tc.wantKeys)
			}
			if !tc.wantKeys && !keyed.elicited {
				t.Errorf("asks_by_result: the server sent no elicitation/create on the older wire (result %s)", keyed.raw)
			}
			direct := c.callTool("asks_by_session", tc.meta26)
			if direct.elicited != tc.wantElicitOK {
				t.Errorf("asks_by_session: elicitation/create sent: %v, want %v (result %s)", direct.elicited, tc.wantElicitOK, direct.raw)
			}
		})
	}
}

// rawSDKSession is a go-sdk server (two tools that ask a name, one by
// returning InputRequests, one by session.Elicit) on an in-memory
// connection, with this test speaking raw JSON-RPC on the other end.
type rawSDKSession struct {
	t    *testing.T
	ctx  context.Context
	conn sdk.Connection
	next int64
}

// callResult is what a tools/call brought back.
type callResult struct {
	elicited bool            // the server sent elicitation/create during the call
	raw      json.RawMessage // the call's result, or its error
}

func (r callResult) inputKeys() string {
	var res struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
	}
	if json.Unmarshal(r.raw, &res) != nil || res.ResultType != "input_required" {
		return ""
	}
	var keys []string
	for k := range res.InputRequests {
		keys = append(keys, k)
	}
	return strings.Join(keys, ",")
}

func newRawSDKSession(t *testing.T, initVersion string) *rawSDKSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	srv := sdk.NewServer(&sdk.Implementation{Name: "both-wires", Version: "1"}, nil)
	name := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}
	ask := &sdk.ElicitParams{Message: "What is your name?", RequestedSchema: name}
	srv.AddTool(&sdk.Tool{Name: "asks_by_result", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if r, ok := req.Params.InputResponses["user_name"].(*sdk.ElicitResult); ok && r.Action == "accept" {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"user_name": ask}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "asks_by_session", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if _, err := req.Session.Elicit(ctx, ask); err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil
		})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &rawSDKSession{t: t, ctx: ctx, conn: conn}
	if initVersion == "" {
		if resp := c.request("server/discover", map[string]any{"_meta": sdkWireMeta}, nil); resp.Error != nil {
			t.Fatalf("server/discover: %v", resp.Error)
		}
		return c
	}
	init := map[string]any{"protocolVersion": initVersion, "capabilities": sdkWireCaps, "clientInfo": map[string]any{"name": "raw", "version": "1"}}
	if resp := c.request("initialize", init, nil); resp.Error != nil {
		t.Fatalf("initialize: %v", resp.Error)
	}
	c.write(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	return c
}

var (
	sdkWireCaps = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	sdkWireMeta = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    NewWireVersion,
		"io.modelcontextprotocol/clientCapabilities": sdkWireCaps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
	}
)

func (c *rawSDKSession) callTool(name string, meta26 bool) callResult {
	params := map[string]any{"name": name, "arguments": map[string]any{}}
	if meta26 {
		params["_meta"] = sdkWireMeta
	}
	var out callResult
	resp := c.request("tools/call", params, func(req *jsonrpc.Request) any {
		out.elicited = out.elicited || req.Method == "elicitation/create"
		return map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}
	})
	out.raw = resp.Result
	if resp.Error != nil {
		out.raw, _ = json.Marshal(resp.Error.Error())
	}
	return out
}

// request sends method and reads until its response, answering each
// request of the server's with answer's result.
func (c *rawSDKSession) request(method string, params any, answer func(*jsonrpc.Request) any) *jsonrpc.Response {
	c.t.Helper()
	c.next++
	id, err := jsonrpc.MakeID(float64(c.next))
	if err != nil {
		c.t.Fatal(err)
	}
	p, _ := json.Marshal(params)
	c.write(&jsonrpc.Request{ID: id, Method: method, Params: p})
	for {
		msg, err := c.conn.Read(c.ctx)
		if err != nil {
			c.t.Fatalf("%s: reading: %v", method, err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if m.ID == id {
				return m
			}
		case *jsonrpc.Request:
			if m.IsCall() && answer != nil {
				res, _ := json.Marshal(answer(m))
				if err := c.conn.Write(c.ctx, &jsonrpc.Response{ID: m.ID, Result: res}); err != nil {
					c.t.Fatal(err)
				}
			}
		}
	}
}

func (c *rawSDKSession) write(msg jsonrpc.Message) {
	c.t.Helper()
	if err := c.conn.Write(c.ctx, msg); err != nil {
		c.t.Fatal(err)
	}
}
