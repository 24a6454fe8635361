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

// TestInputRequiredRelayedToNewWire: an assistant on 2026-07-28 that
// declared elicitation gets a server's non-secret question as
// input_required, with a sealed requestState; its retry (the SDK's
// client retries by itself) reaches the server with the server's own
// state (the server checks it) and the assistant's answer. A secret
// still goes to the inbox, and so does any question for an assistant
// that cannot take it.
func TestInputRequiredRelayedToNewWire(t *testing.T) {
	ib := &inbox{res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"password": "pw-from-the-inbox", "name": "from the inbox"}}}
	g, _ := newTestGateway(t, GatewayOptions{Elicit: ib.elicit})
	addServer(t, g, "nw", "new-wire")
	var asked atomic.Int32
	eager := &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Add(1)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}
	base := httpGateway(t, g, "tok").URL
	clients := map[string]*testClient{
		"stream": connectStreamWire(t, g, UpstreamOptions{}, eager, protocol2026),
		"http":   connectHTTPWire(t, base+"/mcp", "tok", eager, protocol2026),
	}
	for kind, c := range clients {
		before := asked.Load()
		res, raw, err := c.call(t, "nw__ask", nil)
		if err != nil || textOf(t, res) != `answer {"action":"accept","content":{"name":"Ada"}}` {
			t.Errorf("%s: %v %v", kind, res, err)
		}
		if asked.Load() != before+1 {
			t.Errorf("%s: the assistant was asked %d times", kind, asked.Load()-before)
		}
		if !strings.Contains(string(raw), `"resultType":"complete"`) {
			t.Errorf("%s: result %s", kind, raw)
		}
		if n := c.cap.count(`"requestState":"mcptray.1.`); n != 1 {
			t.Errorf("%s: the assistant read %d sealed requestStates, want 1", kind, n)
		}
		if n := c.cap.count(`"ask"`); n != 0 {
			t.Errorf("%s: the server's own requestState reached the assistant", kind)
		}
		// A secret: the inbox, not the assistant.
		res, _, err = c.call(t, "nw__login", map[string]any{"user": "ada"})
		if err != nil || textOf(t, res) != "action accept, logged in ada with [redacted]" {
			t.Errorf("%s, login: %v %v", kind, res, err)
		}
		if asked.Load() != before+1 {
			t.Errorf("%s: the password question reached the assistant", kind)
		}
	}
	if n := len(ib.all()); n != 2 {
		t.Errorf("inbox asked %d times, want 2 (the passwords)", n)
	}
	ib.answer(&sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "from the inbox"}}, 0)
	plain := connectStreamWire(t, g, UpstreamOptions{}, nil, protocol2026)
	res, _, err := plain.call(t, "nw__ask", nil)
	if err != nil || textOf(t, res) != `answer {"action":"accept","content":{"name":"from the inbox"}}` {
		t.Errorf("an assistant without elicitation: %q %v", textOf(t, res), err)
	}
}

// TestInputRequiredSealedStateRefused: a retry whose requestState is not
// the one mcptray gave for that call — changed, made up, another tool's,
// or missing beside inputResponses — is refused with an error saying so,
// before anything reaches the server; the session goes on.
func TestInputRequiredSealedStateRefused(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "nw", "new-wire")
	c := connectStreamWire(t, g, UpstreamOptions{}, nil, protocol2026)
	good := g.seal.seal("nw", "ask", []byte(`"ask"`))
	changed := []byte(good)
	changed[len(sealPrefix)+2] ^= 1
	responses := sdk.InputResponseMap{"name": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Eve"}}}
	for name, tc := range map[string]struct {
		tool, state string
		want        string
	}{
		"changed":    {"nw__ask", string(changed), `server "nw", tool "ask": the requestState was changed`},
		"made up":    {"nw__ask", `{"step":1}`, `server "nw", tool "ask": the requestState was not made by this mcptray`},
		"other tool": {"nw__login", good, `belongs to a call of "ask" on server "nw", not of "login" on "nw"`},
		"missing":    {"nw__ask", "", `inputResponses without the requestState mcptray gave`},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, InputResponses: responses, RequestState: tc.state})
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
	// The one mcptray gave goes through, as the server's own state.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "nw__ask", InputResponses: responses, RequestState: good})
	if err != nil || textOf(t, res) != `answer {"action":"accept","content":{"name":"Eve"}}` {
		t.Errorf("the sealed state: %v %v", res, err)
	}
}

// TestInputRequiredRelayedFromHTTPServer: a remote server's round is
// relayed as a stdio server's is (the gateway runs the rounds of an HTTP
// session's tools/call), and the retry reaches it with its own state.
func TestInputRequiredRelayedFromHTTPServer(t *testing.T) {
	server := mcptest.NewMRTRServer()
	remote := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(remote.Close)
	ib := &inbox{res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "from the inbox"}}}
	g, _ := newTestGateway(t, GatewayOptions{Elicit: ib.elicit})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := downstream.StartHTTP(ctx, downstream.HTTPSpec{Name: "remote", URL: remote.URL, Router: g.Router("remote")}, downstream.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	g.SetServer("remote", sess)
	var asked atomic.Int32
	c := connectStreamWire(t, g, UpstreamOptions{}, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Add(1)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}, protocol2026)
	res, _, err := c.call(t, "remote__name_op", nil)
	if err != nil || textOf(t, res) != "action accept, name Ada" || asked.Load() != 1 {
		t.Errorf("new wire: %v %v (asked %d)", res, err, asked.Load())
	}
	old := connectStream(t, g, UpstreamOptions{}, nil)
	res, _, err = old.call(t, "remote__name_op", nil)
	if err != nil || textOf(t, res) != "action accept, name from the inbox" {
		t.Errorf("old wire, no elicitation: %v %v", res, err)
	}
}
