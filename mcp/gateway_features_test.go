//go:build linux

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGatewaySampling: a server's sampling request goes to the assistant
// whose call caused it, and to no other.
func TestGatewaySampling(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	sampler := func(name string, calls *atomic.Int32) *sdk.ClientOptions {
		return &sdk.ClientOptions{CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			calls.Add(1)
			prompt := req.Params.Messages[0].Content.(*sdk.TextContent).Text
			return &sdk.CreateMessageResult{Model: "m", Role: "assistant", Content: &sdk.TextContent{Text: name + " answers " + prompt}}, nil
		}}
	}
	var aCalls, bCalls, hCalls atomic.Int32
	a := connectStream(t, g, UpstreamOptions{}, sampler("a", &aCalls))
	b := connectStream(t, g, UpstreamOptions{}, sampler("b", &bCalls))
	h := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", sampler("h", &hCalls))
	plain := connectStream(t, g, UpstreamOptions{}, nil)

	for name, c := range map[string]*testClient{"a": a, "h": h} {
		res, _, err := c.call(t, "r__sampler", map[string]any{"prompt": "hi"})
		if err != nil || textOf(t, res) != "sampled: "+name+" answers hi" {
			t.Errorf("%s: %v %v", name, res, err)
		}
	}
	if aCalls.Load() != 1 || hCalls.Load() != 1 || bCalls.Load() != 0 {
		t.Errorf("sampling calls: a %d, h %d, b %d", aCalls.Load(), hCalls.Load(), bCalls.Load())
	}
	_ = b
	res, _, err := plain.call(t, "r__sampler", map[string]any{"prompt": "hi"})
	if err != nil || !res.IsError || !strings.Contains(textOf(t, res), "sampling is not available: the assistant does not support it") {
		t.Errorf("client without sampling: %v %v", res, err)
	}
}

// inbox records what the gateway hands the inbox and answers it.
type inbox struct {
	mu    sync.Mutex
	infos []ElicitInfo // guarded by mu
	wait  time.Duration
	res   *sdk.ElicitResult
}

func (ib *inbox) elicit(ctx context.Context, info ElicitInfo) (*sdk.ElicitResult, error) {
	ib.mu.Lock()
	ib.infos = append(ib.infos, info)
	wait, res := ib.wait, ib.res
	ib.mu.Unlock()
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return res, nil
}

// answer sets what the inbox answers from now on, after wait.
func (ib *inbox) answer(res *sdk.ElicitResult, wait time.Duration) {
	ib.mu.Lock()
	ib.res, ib.wait = res, wait
	ib.mu.Unlock()
}

func (ib *inbox) all() []ElicitInfo {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	return slices.Clone(ib.infos)
}

// TestGatewayElicitation: a non-secret request from a call of an assistant
// that declared elicitation goes to it; a secret one, or one for an
// assistant that cannot take it, goes to the inbox; the call's deadline
// waits meanwhile and the assistant gets progress.
func TestGatewayElicitation(t *testing.T) {
	ib := &inbox{wait: 600 * time.Millisecond, res: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"password": "hunter22"}}}
	g, _ := newTestGateway(t, GatewayOptions{CallTimeout: 400 * time.Millisecond, Elicit: ib.elicit})
	g.keepAlive = 50 * time.Millisecond
	f := addServer(t, g, "r", "rich")
	var asked atomic.Int32
	eager := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Add(1)
		if SecretFields(req.Params.RequestedSchema) != nil {
			t.Errorf("a secret request reached the assistant: %+v", req.Params)
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"color": "teal"}}, nil
	}})
	web := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Add(1)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"color": "red"}}, nil
	}})
	plain := connectStream(t, g, UpstreamOptions{}, nil)

	res, _, err := eager.call(t, "r__elicitor", nil)
	if err != nil || textOf(t, res) != `action accept, color "teal"` {
		t.Errorf("stream, auto: %v %v", res, err)
	}
	res, _, err = web.call(t, "r__elicitor", nil)
	if err != nil || textOf(t, res) != `action accept, color "red"` {
		t.Errorf("http, auto: %v %v", res, err)
	}
	if asked.Load() != 2 || len(ib.all()) != 0 {
		t.Fatalf("assistant asked %d times, inbox %d", asked.Load(), len(ib.all()))
	}

	// A secret goes to the inbox, which takes longer than the call
	// timeout: the deadline waits, and progress keeps the call alive.
	params := &sdk.CallToolParams{Name: "r__elicitor", Arguments: map[string]any{"secret": true}, Meta: sdk.Meta{"progressToken": "p1"}}
	res, err = eager.CallTool(context.Background(), params)
	if err != nil || textOf(t, res) != "action accept, secret of 8 characters" {
		t.Fatalf("secret: %v %v", res, err)
	}
	infos := ib.all()
	if len(infos) != 1 || !infos[0].Secret || !slices.Equal(infos[0].SecretFields, []string{"password"}) || infos[0].Server != "r" ||
		infos[0].Tool != "elicitor" || infos[0].Client != "test-assistant" || infos[0].Reason != "secret field" || infos[0].Request.Mode != "form" {
		t.Errorf("inbox got %+v", infos)
	}
	if n := eager.cap.count(`"progressToken":"p1"`, "waiting for an answer in mcptray"); n == 0 {
		t.Error("no progress while the inbox waited")
	}
	if asked.Load() != 2 {
		t.Errorf("the assistant was asked for a secret")
	}
	for _, m := range eager.cap.msgs {
		if strings.Contains(m, "hunter22") {
			t.Errorf("the secret reached the assistant: %s", m)
		}
	}

	// What was typed for the secret is redacted from the server's results
	// and log lines from now on.
	res, _, err = eager.call(t, "r__echo", map[string]any{"message": "the password is hunter22"})
	if err != nil || textOf(t, res) != "the password is [redacted]" {
		t.Errorf("echo of the secret: %v %v", res, err)
	}
	if _, _, err := eager.call(t, "r__log", map[string]any{"message": "pw=hunter22"}); err != nil {
		t.Fatal(err)
	}
	f.log.Wait(t, "info|fake: pw=[redacted]")

	// A request the server marks for the person goes to the inbox, even
	// from the call of an assistant that could answer it.
	ib.answer(&sdk.ElicitResult{Action: "accept", Content: map[string]any{"color": "from the person"}}, 0)
	res, _, err = eager.call(t, "r__elicitor", map[string]any{"inbox": true})
	if err != nil || textOf(t, res) != `action accept, color "from the person"` {
		t.Errorf("marked for the inbox: %v %v", res, err)
	}
	if infos := ib.all(); len(infos) != 2 || infos[1].Reason != "the server asks the person" || infos[1].Tool != "elicitor" {
		t.Errorf("inbox got %+v", infos)
	}
	if asked.Load() != 2 {
		t.Errorf("the assistant was asked for a request marked %s", InboxOnlyMeta)
	}

	// An assistant without elicitation: the inbox.
	ib.answer(&sdk.ElicitResult{Action: "decline"}, 0)
	res, _, err = plain.call(t, "r__elicitor", nil)
	if err != nil || textOf(t, res) != `action decline, color ""` {
		t.Errorf("plain: %v %v", res, err)
	}
	if infos := ib.all(); len(infos) != 3 || infos[2].Reason != "the assistant does not support elicitation" || infos[2].Secret {
		t.Errorf("inbox got %+v", infos)
	}
}

// TestGatewayElicitationLocal: with elicitation "local" and no inbox, the
// answer is cancel and the assistant is never asked.
func TestGatewayElicitationLocal(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{Elicitation: ElicitLocal})
	addServer(t, g, "r", "rich")
	c := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		t.Error("the assistant was asked")
		return nil, errors.New("no")
	}})
	res, _, err := c.call(t, "r__elicitor", nil)
	if err != nil || textOf(t, res) != `action cancel, color ""` {
		t.Errorf("%v %v", res, err)
	}
}

func TestSecretFields(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"user":  map[string]any{"type": "string"},
		"pw":    map[string]any{"type": "string", "format": "password"},
		"code":  map[string]any{"type": "string", "writeOnly": true},
		"x":     map[string]any{"type": "string", "title": "API Key"},
		"Token": map[string]any{"type": "string"},
		"color": map[string]any{"type": "string", "title": "Colour"},
	}}
	if got := SecretFields(schema); !slices.Equal(got, []string{"Token", "code", "pw", "x"}) {
		t.Errorf("SecretFields: %v", got)
	}
	if got := SecretFields(nil); got != nil {
		t.Errorf("no schema: %v", got)
	}
	if got := SecretFields(map[string]any{"type": "object"}); got != nil {
		t.Errorf("no properties: %v", got)
	}
}

// TestGatewayResourcesPromptsCompletionLogging: resources (list, read,
// templates, subscribe and updates), prompts (prefixed), completion and
// logging pass through.
func TestGatewayResourcesPromptsCompletionLogging(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	updated := make(chan string, 10)
	logs := make(chan string, 10)
	c := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
		LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) {
			logs <- req.Params.Logger + ": " + req.Params.Data.(string)
		},
	})
	single := connectStream(t, g, UpstreamOptions{Server: "r"}, nil)
	ctx := context.Background()

	testkit.WaitFor(t, "resources", func() bool {
		res, err := c.ListResources(ctx, nil)
		return err == nil && len(res.Resources) == 1 && res.Resources[0].URI == "fake://readme"
	})
	tmpl, err := c.ListResourceTemplates(ctx, nil)
	if err != nil || len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "fake://items/{id}" {
		t.Errorf("templates: %+v %v", tmpl, err)
	}
	for uri, want := range map[string]string{"fake://readme": "read me", "fake://items/3": "item 3"} {
		rr, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != want {
			t.Errorf("read %s: %+v %v", uri, rr, err)
		}
	}
	if _, err := c.ReadResource(ctx, &sdk.ReadResourceParams{URI: "nope://x"}); err == nil {
		t.Error("read of an unknown URI: no error")
	}

	prompts, err := c.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "r__greet" {
		t.Fatalf("prompts: %+v %v", prompts, err)
	}
	gp, err := c.GetPrompt(ctx, &sdk.GetPromptParams{Name: "r__greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil || gp.Messages[0].Content.(*sdk.TextContent).Text != "Hello, Ada!" {
		t.Errorf("get prompt: %+v %v", gp, err)
	}
	testkit.WaitFor(t, "the single route's prompts", func() bool {
		sp, err := single.ListPrompts(ctx, nil)
		return err == nil && len(sp.Prompts) == 1 && sp.Prompts[0].Name == "greet"
	})
	comp, err := c.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "r__greet"}, Argument: sdk.CompleteParamsArgument{Name: "name", Value: "al"}})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"alice", "albert"}) {
		t.Errorf("complete: %+v %v", comp, err)
	}

	if err := c.Subscribe(ctx, &sdk.SubscribeParams{URI: "fake://readme"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.call(t, "r__touch", map[string]any{"uri": "fake://readme"}); err != nil {
		t.Fatal(err)
	}
	select {
	case uri := <-updated:
		if uri != "fake://readme" {
			t.Errorf("updated %s", uri)
		}
	case <-time.After(5 * time.Second):
		t.Error("no notifications/resources/updated")
	}

	if err := c.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.call(t, "r__log", map[string]any{"message": "hello log"}); err != nil {
		t.Fatal(err)
	}
	select {
	case l := <-logs:
		if l != "r/fake: hello log" {
			t.Errorf("log %q", l)
		}
	case <-time.After(5 * time.Second):
		t.Error("no notifications/message")
	}
}

// TestGatewayHTTPServer: a remote (streamable HTTP) server behind the
// gateway goes the typed way: results, progress, elicitation, cancellation.
func TestGatewayHTTPServer(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	t.Setenv(mcptest.CancelFileEnv, cancelFile)
	server := mcptest.NewServer("rich")
	remote := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(remote.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := downstream.StartHTTP(ctx, downstream.HTTPSpec{Name: "remote", URL: remote.URL}, downstream.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	g, _ := newTestGateway(t, GatewayOptions{})
	g.SetServer("remote", sess)
	progress := make(chan string, 10)
	c := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			progress <- mustJSON(t, req.Params)
		},
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
		},
	})
	direct := connectDirect(t, "rich", nil)

	_, want, err := direct.call(t, "rich", map[string]any{"note": "x"})
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := c.call(t, "remote__rich", map[string]any{"note": "x"})
	if err != nil {
		t.Fatal(err)
	}
	var gv, wv any
	json.Unmarshal(got, &gv)
	json.Unmarshal(want, &wv)
	if !reflect.DeepEqual(gv, wv) {
		t.Errorf("result differs:\n got %s\nwant %s", got, want)
	}
	res, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "remote__slow", Arguments: map[string]any{"steps": 2, "ms": 1}, Meta: sdk.Meta{"progressToken": "rp"}})
	if err != nil || textOf(t, res) != "done after 2 steps" {
		t.Fatalf("slow: %v %v", res, err)
	}
	// Every step's progress arrives, although the result follows the last
	// one at once (the SDK's client would otherwise let it overtake).
	for step := range 2 {
		select {
		case p := <-progress:
			if !strings.Contains(p, `"progressToken":"rp"`) {
				t.Errorf("progress %s", p)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("progress %d of 2 from the remote server never came", step+1)
		}
	}
	res, _, err = c.call(t, "remote__elicitor", nil)
	if err != nil || textOf(t, res) != `action accept, color "blue"` {
		t.Errorf("elicitor: %v %v", res, err)
	}

	for len(progress) > 0 {
		<-progress
	}
	cctx, ccancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(cctx, &sdk.CallToolParams{Name: "remote__slow", Arguments: map[string]any{"steps": 100, "ms": 100}, Meta: sdk.Meta{"progressToken": "rq"}})
		errc <- err
	}()
	select {
	case <-progress:
	case <-time.After(5 * time.Second):
		t.Fatal("the slow call never started")
	}
	ccancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	testkit.WaitFor(t, "the remote server to see the cancellation", func() bool { return fileHas(cancelFile, "cancelled slow") })
}

// TestHTTPClientGoneCancels: an HTTP client that ends its session mid-call
// gets the call cancelled downstream.
func TestHTTPClientGoneCancels(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich", withEnv(mcptest.CancelFileEnv+"="+cancelFile))
	url := httpGateway(t, g, "tok").URL + "/mcp"
	c := connectHTTP(t, url, "tok", nil)
	go c.CallTool(context.Background(), &sdk.CallToolParams{Name: "r__slow", Arguments: map[string]any{"steps": 100, "ms": 100}})
	testkit.WaitFor(t, "the slow tool to start", func() bool { return fileHas(cancelFile, "started slow") })
	// The client ends its session. (The SDK's client would wait for its
	// call to finish before it sends this.)
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Mcp-Session-Id", c.ID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("DELETE: %s", resp.Status)
	}
	testkit.WaitFor(t, "the server to see the cancellation", func() bool { return fileHas(cancelFile, "cancelled slow") })
}

// TestGatewayCancelsElicitation: when the assistant cancels a call whose
// server is asking it something, the server withdraws its question and
// the assistant is told: cancellation goes both ways.
func TestGatewayCancelsElicitation(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "r", "rich")
	asked, withdrawn := make(chan struct{}), make(chan struct{})
	c := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		close(asked)
		<-ctx.Done()
		close(withdrawn)
		return nil, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "r__elicitor", Arguments: map[string]any{}})
		errc <- err
	}()
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the assistant was never asked")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("call: %v", err)
	}
	select {
	case <-withdrawn:
	case <-time.After(10 * time.Second):
		t.Fatal("the question was not withdrawn from the assistant")
	}
}
