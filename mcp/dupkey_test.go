//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// callRecords collects a gateway's tool call records.
type callRecords struct {
	mu   sync.Mutex
	list []ToolCallRecord
}

func (r *callRecords) add(rec ToolCallRecord) {
	r.mu.Lock()
	r.list = append(r.list, rec)
	r.mu.Unlock()
}

func (r *callRecords) tools() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.list {
		out = append(out, rec.Server+"/"+rec.Tool)
	}
	return out
}

// rpcError is the error of a JSON-RPC answer line, and its raw id.
func rpcError(t *testing.T, line string) (id string, code int64, msg string) {
	t.Helper()
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("answer %s: %v", line, err)
	}
	if m.Error == nil {
		t.Fatalf("answer %s is not an error", line)
	}
	return string(m.ID), m.Error.Code, m.Error.Message
}

// TestDuplicateKeysRefusedStream: on a stream session (what `mcptray
// connect` serves), on the gateway's route and on one server's, a message
// with a key twice at any depth, or nested too deep, is refused before it
// is routed: a -32600 error naming the key (with the request's id when it
// reads one way), a log line, no call made or recorded. A batch has each
// element judged alone. The session goes on working.
func TestDuplicateKeysRefusedStream(t *testing.T) {
	var recs callRecords
	g, tl := newTestGateway(t, GatewayOptions{OnToolCall: recs.add})
	addServer(t, g, "h", "echo", withEnv(mcptest.AnnotatedEnv+"=1"))

	for _, route := range []struct {
		name, prefix string
		opts         UpstreamOptions
	}{{"all", "h__", UpstreamOptions{}}, {"one", "", UpstreamOptions{Server: "h"}}} {
		t.Run(route.name, func(t *testing.T) {
			s := connectRaw(t, g, route.opts)
			s.initialize(t)
			for _, tc := range dupKeyCases(route.prefix) {
				s.send(t, tc.msg)
				id, code, msg := rpcError(t, s.recv(t))
				if id != tc.id || code != -32600 || !strings.Contains(msg, tc.want) {
					t.Errorf("%.120s\nanswered id %s, %d %q; want id %s, -32600 %q", tc.msg, id, code, msg, tc.id, tc.want)
				}
			}
			// A batch: the bad element is refused, the good one answered.
			s.send(t, `[{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"`+route.prefix+`read_note","arguments":{},"name":"delete_note"}},{"jsonrpc":"2.0","id":21,"method":"ping"}]`)
			got := map[string]string{}
			for range 2 {
				line := s.recv(t)
				var m struct{ ID json.RawMessage }
				json.Unmarshal([]byte(line), &m)
				got[string(m.ID)] = line
			}
			if !strings.Contains(got["20"], `"code":-32600`) || !strings.Contains(got["20"], `duplicate key \"name\" in params`) || !strings.Contains(got["21"], `"result":{}`) {
				t.Errorf("batch answered %v", got)
			}
			s.send(t, `{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"`+route.prefix+`read_note","arguments":{"id":1}}}`)
			if line := s.recv(t); !strings.Contains(line, `read_note: {\"id\":1}`) {
				t.Errorf("a good call after the refusals: %s", line)
			}
		})
	}
	testkit.WaitFor(t, "the good calls' records", func() bool { return len(recs.tools()) >= 2 }) // recorded after the answer went
	if got := strings.Join(recs.tools(), " "); got != "h/read_note h/read_note" {
		t.Errorf("calls recorded: %s; want the two good calls only", got)
	}
	if n := strings.Count(tl.String(), "message refused"); n != 2*(len(dupKeyCases(""))+1) {
		t.Errorf("%d log lines of refused messages; want one each:\n%s", n, tl)
	}
}

// TestDuplicateKeysRefusedHTTP: the same on each HTTP route, on the fast
// path (an assistant without elicitation) and the SDK's (one with it): a
// request is answered with its -32600 error, a notification or batch with
// 400 and the error.
func TestDuplicateKeysRefusedHTTP(t *testing.T) {
	var recs callRecords
	g, _ := newTestGateway(t, GatewayOptions{OnToolCall: recs.add})
	addServer(t, g, "h", "echo", withEnv(mcptest.AnnotatedEnv+"=1"))
	base := httpGateway(t, g, "tok").URL
	for _, route := range []struct{ path, prefix string }{{"/mcp", "h__"}, {"/mcp/h", ""}, {"/servers/h/mcp", ""}} {
		for _, caps := range []string{`{}`, `{"elicitation":{}}`} {
			t.Run(route.path+caps, func(t *testing.T) {
				r := newRawHTTP(t, base+route.path, caps)
				for _, tc := range dupKeyCases(route.prefix) {
					resp := r.post(context.Background(), tc.msg)
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					wantStatus := http.StatusOK
					if tc.id == `null` {
						wantStatus = http.StatusBadRequest
					}
					if resp.StatusCode != wantStatus || resp.Header.Get("Content-Type") != "application/json" {
						t.Errorf("%.120s\nHTTP %d %s %s; want %d", tc.msg, resp.StatusCode, resp.Header.Get("Content-Type"), b, wantStatus)
						continue
					}
					id, code, msg := rpcError(t, string(b))
					if id != tc.id || code != -32600 || !strings.Contains(msg, tc.want) {
						t.Errorf("%.120s\nanswered id %s, %d %q; want id %s, -32600 %q", tc.msg, id, code, msg, tc.id, tc.want)
					}
				}
				resp := r.post(context.Background(), `[{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"`+route.prefix+`read_note","arguments":{},"name":"delete_note"}}]`)
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), `duplicate key \"name\" in params`) {
					t.Errorf("batch: HTTP %d %s", resp.StatusCode, b)
				}
				if _, body := r.do(`{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"` + route.prefix + `read_note","arguments":{"id":1}}}`); !strings.Contains(body, `read_note: {\"id\":1}`) {
					t.Errorf("a good call after the refusals: %s", body)
				}
			})
		}
	}
	for _, tool := range recs.tools() {
		if tool != "h/read_note" {
			t.Errorf("calls recorded: %v; want the good calls only", recs.tools())
			break
		}
	}
}

// TestServerRequestsWithDuplicateKeysRefused: what a server sends that the
// person sees or answers — an elicitation, a sampling request — is refused
// when it holds a key twice: the server gets -32600 naming the key, its
// log a line, and neither the assistant nor the inbox is asked.
func TestServerRequestsWithDuplicateKeysRefused(t *testing.T) {
	var asked atomic.Int32
	g, _ := newTestGateway(t, GatewayOptions{Elicit: func(context.Context, ElicitInfo) (*sdk.ElicitResult, error) {
		asked.Add(1)
		return &sdk.ElicitResult{Action: "accept"}, nil
	}})
	f := addServer(t, g, "h", "hostile")
	c := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			return &sdk.ElicitResult{Action: "accept"}, nil
		},
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			asked.Add(1)
			return &sdk.CreateMessageResult{Model: "m", Role: "assistant", Content: &sdk.TextContent{Text: "ok"}}, nil
		},
	})
	for kind, want := range map[string]string{"elicit": `duplicate key \"message\" in params`, "sample": `duplicate key \"maxTokens\" in params`} {
		res, _, err := c.call(t, "h__ask", map[string]any{"kind": kind})
		if err != nil {
			t.Fatal(err)
		}
		if text := textOf(t, res); !strings.Contains(text, `"id":"ask"`) || !strings.Contains(text, `"code":-32600`) || !strings.Contains(text, want) {
			t.Errorf("%s: the server got %s; want -32600 with %s", kind, text, want)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the person or the assistant was asked %d times", n)
	}
	if !strings.Contains(f.log.String(), `refused: duplicate key "message" in params`) {
		t.Errorf("the server's log does not say why its request was refused:\n%s", f.log)
	}
}

// TestAssistantAnswerWithDuplicateKeysRefused: an assistant's answer to
// an elicitation the gateway passed on, with a key twice ("action":
// decline, then accept), is refused: the elicitation fails with the
// reason, the server hears no accept, and the log has a line.
func TestAssistantAnswerWithDuplicateKeysRefused(t *testing.T) {
	g, tl := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "a", "asker")
	s := connectRaw(t, g, UpstreamOptions{})
	s.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	if got := s.recv(t); !strings.Contains(got, `"protocolVersion"`) {
		t.Fatalf("initialize: %s", got)
	}
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a__form","arguments":{"form":"types"}}}`)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	line := s.recv(t)
	if json.Unmarshal([]byte(line), &req); req.Method != "elicitation/create" {
		t.Fatalf("want the elicitation, got %s", line)
	}
	s.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"action":"decline","action":"accept","content":{}}}`)
	line = s.recv(t)
	if !strings.Contains(line, `"id":5`) || strings.Contains(line, `accept`) || !strings.Contains(line, `the assistant's answer was refused: duplicate key \\\"action\\\" in result`) {
		t.Errorf("the call answered %s; want the elicitation failed, saying why", line)
	}
	if !strings.Contains(tl.String(), "message refused") {
		t.Errorf("no log line:\n%s", tl)
	}
}

// dupAnswer is an HTTP transport that puts a second "action" in every
// elicitation answer the client posts: accept first, then what the
// client answered.
type dupAnswer struct{ base http.RoundTripper }

func (d dupAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Method != http.MethodPost {
		return d.base.RoundTrip(r)
	}
	b, _ := io.ReadAll(r.Body)
	b = []byte(strings.Replace(string(b), `"result":{"action":`, `"result":{"action":"accept","action":`, 1))
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(strings.NewReader(string(b)))
	r.ContentLength = int64(len(b))
	return d.base.RoundTrip(r)
}

// TestAssistantAnswerWithDuplicateKeysRefusedHTTP: the same over HTTP: the
// answer is posted with "action" twice, and the elicitation fails at once
// with the reason instead of waiting for its deadline.
func TestAssistantAnswerWithDuplicateKeysRefusedHTTP(t *testing.T) {
	g, tl := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "a", "asker")
	url := httpGateway(t, g, "tok").URL + "/mcp"
	client := sdk.NewClient(&sdk.Implementation{Name: "dup-answer", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "decline"}, nil
		},
	})
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerTransport{"tok", dupAnswer{http.DefaultTransport}}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: oldWire})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "a__form", Arguments: map[string]any{"form": "types"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := textOf(t, res); strings.Contains(text, "decline") || !strings.Contains(text, `the assistant's answer was refused: duplicate key \"action\" in result`) {
		t.Errorf("the call answered %q; want the elicitation failed, saying why", text)
	}
	if !strings.Contains(tl.String(), "message refused") {
		t.Errorf("no log line:\n%s", tl)
	}
}
