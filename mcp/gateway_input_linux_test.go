package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// inputClients are an assistant of each kind, for the input loop's
// tests: a stream session (the fast path) and an HTTP one (the slow
// path), both old-wire and neither able to take elicitation.
func inputClients(t *testing.T, g *Gateway) map[string]*testClient {
	return map[string]*testClient{
		"stream": connectStream(t, g, UpstreamOptions{}, nil),
		"http":   connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", nil),
	}
}

// TestInputRequiredPassword: a 2026-07-28 server asks a password with
// input_required; it goes to the inbox, the call is retried with the
// answer and the requestState as it came (the server checks both), and
// the assistant sees only the final result, the password redacted, with
// no trace of the round or of the new revision.
func TestInputRequiredPassword(t *testing.T) {
	const secret = "hunter2-xyzzy"
	ib := &inbox{res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"password": secret}}}
	g, logs := newTestGateway(t, GatewayOptions{Elicit: ib.elicit})
	f := addServer(t, g, "nw", "new-wire")
	if !f.NewWire() {
		t.Fatalf("the session speaks %q", f.ProtocolVersion())
	}
	for kind, c := range inputClients(t, g) {
		res, raw, err := c.call(t, "nw__login", map[string]any{"user": "bob"})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got, want := textOf(t, res), "action accept, logged in bob with [redacted]"; got != want {
			t.Errorf("%s: %q, want %q", kind, got, want)
		}
		for _, bad := range []string{secret, "input_required", "requestState", "resultType", "io.modelcontextprotocol/", "fake-new-wire"} {
			if strings.Contains(string(raw), bad) {
				t.Errorf("%s: the result has %q: %s", kind, bad, raw)
			}
			if n := c.cap.count(bad); n > 0 {
				t.Errorf("%s: the assistant read %q %d times", kind, bad, n)
			}
		}
	}
	infos := ib.all()
	if len(infos) != 2 {
		t.Fatalf("inbox asked %d times, want 2", len(infos))
	}
	for _, info := range infos {
		if !info.Secret || info.Server != "nw" || info.Tool != "login" || info.Request.Message != "Password for bob" {
			t.Errorf("inbox got %+v", info)
		}
	}
	if strings.Contains(logs.String(), secret) {
		t.Error("the password is in the gateway's log")
	}
}

// TestInputRequiredToAssistant: a question that is no secret goes to the
// assistant that can take it (as elicitation/create on the old wire), or
// to the inbox for one that cannot; sampling goes to the assistant;
// roots are answered with none.
func TestInputRequiredToAssistant(t *testing.T) {
	ib := &inbox{res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "from inbox"}}}
	g, _ := newTestGateway(t, GatewayOptions{Elicit: ib.elicit})
	addServer(t, g, "nw", "new-wire")
	var asked, sampled atomic.Int32
	eager := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			sampled.Add(1)
			return &sdk.CreateMessageResult{Model: "m", Role: "assistant", Content: &sdk.TextContent{Text: "sampled"}}, nil
		},
	})
	res, _, err := eager.call(t, "nw__ask", nil)
	if err != nil || textOf(t, res) != `answer {"action":"accept","content":{"name":"Ada"}}` {
		t.Errorf("ask: %v %v", res, err)
	}
	if asked.Load() != 1 || len(ib.all()) != 0 {
		t.Errorf("assistant asked %d times, inbox %d", asked.Load(), len(ib.all()))
	}
	res, _, err = eager.call(t, "nw__sample", nil)
	if err != nil || !strings.Contains(textOf(t, res), `"text":"sampled"`) || sampled.Load() != 1 {
		t.Errorf("sample: %v %v (%d)", res, err, sampled.Load())
	}
	res, _, err = eager.call(t, "nw__roots", nil)
	if err != nil || textOf(t, res) != `answer {"roots":[]}` {
		t.Errorf("roots: %v %v", res, err)
	}
	res, _, err = eager.call(t, "nw__nostate", nil)
	if err != nil || textOf(t, res) != "answered without a requestState" {
		t.Errorf("nostate: %v %v", res, err)
	}
	plain := connectStream(t, g, UpstreamOptions{}, nil)
	res, _, err = plain.call(t, "nw__ask", nil)
	if err != nil || textOf(t, res) != `answer {"action":"accept","content":{"name":"from inbox"}}` {
		t.Errorf("ask without elicitation: %v %v", res, err)
	}
	if infos := ib.all(); len(infos) != 1 || infos[0].Reason != "the assistant does not support elicitation" {
		t.Errorf("inbox got %+v", infos)
	}
}

// TestInputRequiredMalformed: what a server gets wrong in input_required
// fails that call with an error that says what, on either path, and the
// session goes on serving.
func TestInputRequiredMalformed(t *testing.T) {
	ib := &inbox{res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{}}}
	g, _ := newTestGateway(t, GatewayOptions{Elicit: ib.elicit})
	addServer(t, g, "nw", "new-wire")
	for kind, c := range inputClients(t, g) {
		for tool, want := range map[string]string{
			"badstate": `server "nw" asked for input with a requestState that is not a string (a malformed input_required result); the call was stopped`,
			"unknown":  `server "nw" asked for input of an unknown kind "magic/wand" (input "w"); the call was stopped`,
			"forever":  `server "nw" asked for input more than 8 times during one call of "forever"; mcptray stopped the call`,
			"busy":     `server "nw" asked for input but listed no question (it may be busy); try again later`,
			"many":     `server "nw" asked 40 questions at once, more than the 16 mcptray takes; the call was stopped`,
		} {
			_, _, err := c.call(t, "nw__"+tool, nil)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, %s: error %v, want %q", kind, tool, err, want)
			}
			res, _, err := c.call(t, "nw__echo", map[string]any{"message": "still here"})
			if err != nil || textOf(t, res) != "still here" {
				t.Errorf("%s, after %s: %v %v", kind, tool, res, err)
			}
		}
	}
}

// TestInputRequiredHTTPServer: a remote server on 2026-07-28 (go-sdk's
// stateless handler) asks with input_required too; the SDK's client
// answers through the session's Router, so the secret goes to the inbox
// and the call is retried, as for a stdio server.
func TestInputRequiredHTTPServer(t *testing.T) {
	server := mcptest.NewMRTRServer()
	remote := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(remote.Close)
	ib := &inbox{res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"passphrase": "open sesame"}}}
	g, _ := newTestGateway(t, GatewayOptions{Elicit: ib.elicit})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := downstream.StartHTTP(ctx, downstream.HTTPSpec{Name: "remote", URL: remote.URL, Router: g.Router("remote")}, downstream.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	if v := sess.ProtocolVersion(); v != downstream.NewWireVersion {
		t.Fatalf("the session speaks %q", v)
	}
	g.SetServer("remote", sess)
	c := connectStream(t, g, UpstreamOptions{}, nil)
	res, raw, err := c.call(t, "remote__secret_op", nil)
	if err != nil || textOf(t, res) != "action accept, passphrase of 11 characters" {
		t.Fatalf("%v %v", res, err)
	}
	if strings.Contains(string(raw), "resultType") || strings.Contains(string(raw), "fake-asker-mrtr") {
		t.Errorf("the result has the new revision's members: %s", raw)
	}
	if infos := ib.all(); len(infos) != 1 || !infos[0].Secret || infos[0].Tool != "secret_op" {
		t.Errorf("inbox got %+v", infos)
	}
}

// TestInputRequiredCancelled: the assistant cancels a call whose question
// waits in the inbox: the question is withdrawn (its context ends), the
// call ends, and the session goes on.
func TestInputRequiredCancelled(t *testing.T) {
	withdrawn := make(chan struct{})
	asked := make(chan struct{}, 1)
	g, _ := newTestGateway(t, GatewayOptions{Elicit: func(ctx context.Context, info ElicitInfo) (*sdk.ElicitResult, error) {
		asked <- struct{}{}
		<-ctx.Done()
		close(withdrawn)
		return nil, ctx.Err()
	}})
	addServer(t, g, "nw", "new-wire")
	c := connectStream(t, g, UpstreamOptions{}, nil) // the fast path, whose rounds run on a goroutine of their own
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "nw__login", Arguments: map[string]any{"user": "eve"}})
		done <- err
	}()
	<-asked
	cancel()
	<-withdrawn
	if err := <-done; err == nil {
		t.Error("the cancelled call succeeded")
	}
	res, _, err := c.call(t, "nw__echo", map[string]any{"message": "still here"})
	if err != nil || textOf(t, res) != "still here" {
		t.Errorf("after the cancel: %v %v", res, err)
	}
}
