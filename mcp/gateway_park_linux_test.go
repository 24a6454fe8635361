package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The park (gateway_park.go): asker-mrtr is an SDK server that mcptray
// speaks 2025-11-25 to, so its handlers' input_required reach mcptray as
// requests during the call; a 2026-07-28 assistant (go-sdk's client,
// whose multi-round-trip middleware answers input_required through its
// handlers and retries) must get them as input_required rounds.

// parkAssistant is a go-sdk client's options that answer every kind of
// question, counting them.
func parkAssistant(asked *atomic.Int32) *sdk.ClientOptions {
	return &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{}},
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked.Add(1)
			if strings.Contains(req.Params.Message, "colour") {
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"colour": "blue"}}, nil
			}
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			asked.Add(1)
			return &sdk.CreateMessageResult{Role: "assistant", Model: "m", Content: &sdk.TextContent{Text: "hello"}}, nil
		},
	}
}

// noRetry is an assistant that declares elicitation and gets
// input_required itself (its SDK does not retry).
var noRetry = &sdk.ClientOptions{
	Capabilities:   &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}}},
	MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
}

func TestParkRoundTrips(t *testing.T) {
	ib := &inbox{res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"passphrase": "vault-pass"}}}
	g, _ := newTestGateway(t, GatewayOptions{Elicit: ib.elicit})
	addServer(t, g, "v", "asker-mrtr")
	var asked atomic.Int32
	base := httpGateway(t, g, "tok").URL
	clients := map[string]*testClient{
		"stream": connectStreamWire(t, g, UpstreamOptions{}, parkAssistant(&asked), protocol2026),
		"http":   connectHTTPWire(t, base+"/mcp", "tok", parkAssistant(&asked), protocol2026),
	}
	for kind, c := range clients {
		for _, tc := range []struct {
			tool, want string
			questions  int32 // of the assistant's handlers
			rounds     int
		}{
			{"v__name_op", "action accept, name Ada", 1, 1},
			{"v__three_op", "name Ada, greeting hello, roots ", 2, 1}, // roots: the client answers them itself,
			{"v__rounds_op", "Ada likes blue", 2, 2},
		} {
			before, roundsBefore := asked.Load(), c.cap.count(`"resultType":"input_required"`)
			res, raw, err := c.call(t, tc.tool, nil)
			if err != nil || textOf(t, res) != tc.want {
				t.Errorf("%s %s: %v %v", kind, tc.tool, res, err)
				continue
			}
			if got := asked.Load() - before; got != tc.questions {
				t.Errorf("%s %s: the assistant was asked %d questions, want %d", kind, tc.tool, got, tc.questions)
			}
			if got := c.cap.count(`"resultType":"input_required"`) - roundsBefore; got != tc.rounds {
				t.Errorf("%s %s: %d input_required rounds, want %d", kind, tc.tool, got, tc.rounds)
			}
			if !strings.Contains(string(raw), `"resultType":"complete"`) {
				t.Errorf("%s %s: result %s", kind, tc.tool, raw)
			}
		}
		if n := c.cap.count(`"resultType":"input_required"`, `"q1"`, `"q2"`, `"q3"`); n != 1 {
			t.Errorf("%s: three_op's questions came in %d round(s) of three, want 1", kind, n)
		}
		if n := c.cap.count(`"requestState":"round=`); n != 0 {
			t.Errorf("%s: the server's own requestState reached the assistant unsealed", kind)
		}
		// A secret still goes to the inbox.
		before := asked.Load()
		res, _, err := c.call(t, "v__secret_op", nil)
		if err != nil || textOf(t, res) != "action accept, passphrase of 10 characters" {
			t.Errorf("%s secret_op: %v %v", kind, res, err)
		}
		if asked.Load() != before {
			t.Errorf("%s: the passphrase question reached the assistant", kind)
		}
	}
	if n := len(ib.all()); n != 2 {
		t.Errorf("the inbox was asked %d times, want 2 (the passphrases)", n)
	}
	g.parkMu.Lock()
	left := len(g.parks)
	g.parkMu.Unlock()
	if left != 0 {
		t.Errorf("%d parked calls left", left)
	}
}

// TestParkOldWireAssistantUnaffected: an assistant on 2025-11-25 gets
// the server's requests relayed as before, no input_required.
func TestParkOldWireAssistantUnaffected(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "v", "asker-mrtr")
	var asked atomic.Int32
	c := connectStream(t, g, UpstreamOptions{}, parkAssistant(&asked))
	res, raw, err := c.call(t, "v__name_op", nil)
	if err != nil || textOf(t, res) != "action accept, name Ada" || asked.Load() != 1 {
		t.Errorf("%v %v (asked %d)", res, err, asked.Load())
	}
	if strings.Contains(string(raw), "resultType") || c.cap.count("input_required") != 0 {
		t.Errorf("an old-wire assistant saw the new wire: %s", raw)
	}
}

// TestParkMissingSampling: a server that asks for sampling during the
// call of an assistant that did not declare it fails the call with
// -32021, naming the capability.
func TestParkMissingSampling(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "v", "asker-mrtr")
	base := httpGateway(t, g, "tok").URL
	for kind, c := range map[string]*testClient{
		"stream": connectStreamWire(t, g, UpstreamOptions{}, nil, protocol2026),
		"http":   connectHTTPWire(t, base+"/mcp", "tok", nil, protocol2026),
	} {
		_, _, err := c.call(t, "v__sample_op", nil)
		if err == nil || !strings.Contains(err.Error(), "needs the sampling capability") {
			t.Errorf("%s: %v, want an error naming sampling", kind, err)
		}
		var we *jsonrpc.Error
		if kind == "stream" && (!errors.As(err, &we) || we.Code != codeMissingCapability) {
			t.Errorf("%s: %#v, want code -32021", kind, err)
		}
		if kind == "http" && !strings.Contains(err.Error(), "Bad Request") {
			t.Errorf("%s: %v, want HTTP 400", kind, err)
		}
	}
}

// TestParkStateRefused: a retry whose requestState was changed, belongs
// to another tool, or names a parked call already resumed (a replay) is
// refused with an error saying so.
func TestParkStateRefused(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "v", "asker-mrtr")
	c := connectStreamWire(t, g, UpstreamOptions{}, noRetry, protocol2026)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Deadline)
	defer cancel()
	first, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "v__name_op"})
	if err != nil || !first.NeedsInput() || len(first.InputRequests) != 1 {
		t.Fatalf("first round: %v %v", first, err)
	}
	state := first.RequestState
	changed := []byte(state)
	changed[len(sealPrefix)+2] ^= 1
	responses := sdk.InputResponseMap{"q1": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Eve"}}}
	for name, tc := range map[string]struct{ tool, state, want string }{
		"changed":    {"v__name_op", string(changed), "the requestState was changed"},
		"other tool": {"v__secret_op", state, `belongs to a call of "name_op" on server "v"`},
	} {
		_, err := c.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, InputResponses: responses, RequestState: tc.state})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	res, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "v__name_op", InputResponses: responses, RequestState: state})
	if err != nil || textOf(t, res) != "action accept, name Eve" {
		t.Fatalf("the retry: %v %v", res, err)
	}
	_, err = c.CallTool(ctx, &sdk.CallToolParams{Name: "v__name_op", InputResponses: responses, RequestState: state})
	if err == nil || !strings.Contains(err.Error(), "resumed already") {
		t.Errorf("a replay: %v", err)
	}
}

// TestParkAbandoned: a parked call whose assistant never comes back is
// cancelled toward the server after the park's life: its request is
// answered (declined), nothing waits any more, and a late retry is
// refused.
func TestParkAbandoned(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	g.parkLifeNs.Store(int64(time.Millisecond))
	addServer(t, g, "v", "asker-mrtr")
	c := connectStreamWire(t, g, UpstreamOptions{}, noRetry, protocol2026)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Deadline)
	defer cancel()
	first, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "v__name_op"})
	if err != nil || !first.NeedsInput() {
		t.Fatalf("first round: %v %v", first, err)
	}
	testkit.WaitFor(t, "the parked call cancelled", func() bool {
		g.parkMu.Lock()
		defer g.parkMu.Unlock()
		return len(g.parks) == 0
	})
	testkit.WaitFor(t, "no question left waiting", func() bool {
		g.mu.Lock()
		n := len(g.rawElicits)
		g.mu.Unlock()
		buf := make([]byte, 1<<20)
		return n == 0 && !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "askParked")
	})
	_, err = c.CallTool(ctx, &sdk.CallToolParams{Name: "v__name_op", InputResponses: sdk.InputResponseMap{"q1": &sdk.ElicitResult{Action: "accept"}}, RequestState: first.RequestState})
	if err == nil || !strings.Contains(err.Error(), "has ended") {
		t.Errorf("a late retry: %v", err)
	}
	// The server goes on.
	res, _, err := c.call(t, "v__sample_op", nil)
	if err == nil {
		t.Errorf("sample_op without sampling: %v", res)
	}
}

// TestParkPrompt: prompts/get and resources/read park as tools/call
// does.
func TestParkPrompt(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "v", "asker-mrtr")
	var asked atomic.Int32
	base := httpGateway(t, g, "tok").URL
	c := connectHTTPWire(t, base+"/mcp/v", "tok", parkAssistant(&asked), protocol2026)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Deadline)
	defer cancel()
	testkit.WaitFor(t, "the server's prompt listed", func() bool {
		ps, err := c.ListPrompts(ctx, nil)
		return err == nil && len(ps.Prompts) > 0
	})
	testkit.WaitFor(t, "the server's resource listed", func() bool {
		rs, err := c.ListResources(ctx, nil)
		return err == nil && len(rs.Resources) > 0
	})
	res, err := c.GetPrompt(ctx, &sdk.GetPromptParams{Name: "name_prompt"})
	if err != nil || len(res.Messages) != 1 || asked.Load() != 1 {
		t.Fatalf("%v %v (asked %d)", res, err, asked.Load())
	}
	if got := res.Messages[0].Content.(*sdk.TextContent).Text; got != "Hello Ada" {
		t.Errorf("prompt %q", got)
	}
	rr, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: "park://name"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "Hello Ada" || asked.Load() != 2 {
		t.Fatalf("resource: %v %v (asked %d)", rr, err, asked.Load())
	}
	if n := c.cap.count(`"resultType":"input_required"`, `"requestState":"mcptray.1.`); n != 2 {
		t.Errorf("%d input_required rounds, want 2", n)
	}
}

// TestParkHTTPServer: a remote server on 2025-11-25 (go-sdk's stateful
// handler) parks as a stdio one does: its SDK client's call stays open.
func TestParkHTTPServer(t *testing.T) {
	server := mcptest.NewMRTRServer()
	remote := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(remote.Close)
	g, _ := newTestGateway(t, GatewayOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Deadline)
	defer cancel()
	sess, err := downstream.StartHTTP(ctx, downstream.HTTPSpec{Name: "remote", URL: remote.URL, Router: g.Router("remote")}, downstream.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	if sess.NewWire() {
		t.Fatal("the remote session speaks 2026-07-28; the test wants an older one")
	}
	g.SetServer("remote", sess)
	var asked atomic.Int32
	c := connectStreamWire(t, g, UpstreamOptions{}, parkAssistant(&asked), protocol2026)
	for _, tc := range []struct{ tool, want string }{
		{"remote__name_op", "action accept, name Ada"},
		{"remote__rounds_op", "Ada likes blue"},
	} {
		res, _, err := c.call(t, tc.tool, nil)
		if err != nil || textOf(t, res) != tc.want {
			t.Errorf("%s: %v %v", tc.tool, res, err)
		}
	}
	if asked.Load() != 3 || c.cap.count(`"resultType":"input_required"`) != 3 {
		t.Errorf("asked %d, %d rounds; want 3 and 3", asked.Load(), c.cap.count(`"resultType":"input_required"`))
	}
	plain := connectStreamWire(t, g, UpstreamOptions{}, nil, protocol2026)
	if _, _, err := plain.call(t, "remote__sample_op", nil); err == nil || !strings.Contains(err.Error(), "needs the sampling capability") {
		t.Errorf("sampling not declared: %v", err)
	}
}
