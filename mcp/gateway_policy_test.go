//go:build linux

package mcp

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOffToolNeitherListedNorCalled: a tool the policy turns off leaves
// tools/list (list_changed goes out), and its calls get isError text that
// says so and how to turn it on — on the stream, over HTTP, and in dynamic
// mode; turned on again, it is back.
func TestOffToolNeitherListedNorCalled(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "e", "echo")
	var changed atomic.Int32
	stream := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		changed.Add(1)
	}})
	web := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", nil)
	dyn := connectStream(t, g, UpstreamOptions{Tools: ToolsDynamic}, nil)
	single := connectStream(t, g, UpstreamOptions{Server: "e"}, nil)
	if names := toolNames(t, stream.ClientSession); !slices.Contains(names, "e__add") {
		t.Fatalf("e__add not listed: %v", names)
	}

	g.SetPolicy("e", &ToolPolicy{Disabled: []string{"ad*"}})
	testkit.WaitFor(t, "tools/list_changed", func() bool { return changed.Load() > 0 })
	for name, c := range map[string]*testClient{"stream": stream, "http": web} {
		names := toolNames(t, c.ClientSession)
		if slices.Contains(names, "e__add") || !slices.Contains(names, "e__echo") {
			t.Errorf("%s: tools %v", name, names)
		}
		res, _, err := c.call(t, "e__add", map[string]any{"a": 1, "b": 2})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if txt := textOf(t, res); !res.IsError || !strings.Contains(txt, "turned off in mcptray") || !strings.Contains(txt, "mcptray tools e on add") {
			t.Errorf("%s: call of an off tool: %+v %q", name, res, txt)
		}
		if res, _, err := c.call(t, "e__echo", map[string]any{"message": "hi"}); err != nil || res.IsError || textOf(t, res) != "hi" {
			t.Errorf("%s: echo: %v %+v", name, err, res)
		}
	}
	if names := toolNames(t, single.ClientSession); slices.Contains(names, "add") {
		t.Errorf("single-server route lists add: %v", names)
	}
	if res, _, _ := single.call(t, "add", map[string]any{"a": 1, "b": 2}); res == nil || !res.IsError {
		t.Errorf("single-server route calls add: %+v", res)
	}
	list, _, err := dyn.call(t, metaList, map[string]any{})
	if err != nil || strings.Contains(textOf(t, list), "- add") || !strings.Contains(textOf(t, list), "- echo") {
		t.Errorf("dynamic list: %v %q", err, textOf(t, list))
	}
	res, _, err := dyn.call(t, metaCall, map[string]any{"server": "e", "tool": "add", "arguments": map[string]any{"a": 1, "b": 2}})
	if err != nil || !res.IsError || !strings.Contains(textOf(t, res), "turned off") {
		t.Errorf("dynamic call of an off tool: %v %+v", err, res)
	}

	n := changed.Load()
	g.SetPolicy("e", nil)
	testkit.WaitFor(t, "tools/list_changed", func() bool { return changed.Load() > n })
	if res, _, err := stream.call(t, "e__add", map[string]any{"a": 1, "b": 2}); err != nil || res.IsError || textOf(t, res) != "3" {
		t.Errorf("add turned on again: %v %+v", err, res)
	}
}

func TestNeedsApproval(t *testing.T) {
	yes, no := true, false
	read := &sdk.Tool{Name: "read", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}
	write := &sdk.Tool{Name: "write"}
	safeWrite := &sdk.Tool{Name: "safe", Annotations: &sdk.ToolAnnotations{DestructiveHint: &no}}
	del := &sdk.Tool{Name: "delete", Annotations: &sdk.ToolAnnotations{DestructiveHint: &yes}}
	unsaid := &sdk.Tool{Name: "unsaid", Annotations: &sdk.ToolAnnotations{Title: "Says nothing"}}
	rw := &sdk.Tool{Name: "rw", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: false, OpenWorldHint: &no}}
	globW, globClass := &sdk.Tool{Name: "w*"}, &sdk.Tool{Name: "[a-z]*"}
	for _, tt := range []struct {
		p    *ToolPolicy
		want []string // the tools that wait
	}{
		{nil, nil},
		{&ToolPolicy{Approve: ApproveOff}, nil},
		{&ToolPolicy{Approve: ApproveDestructive}, []string{"write", "delete", "unsaid", "rw", "w*", "[a-z]*"}},
		{&ToolPolicy{Approve: ApproveWrites}, []string{"write", "safe", "delete", "unsaid", "rw", "w*", "[a-z]*"}},
		{&ToolPolicy{Approve: ApproveAll}, []string{"read", "write", "safe", "delete", "unsaid", "rw", "w*", "[a-z]*"}},
		{&ToolPolicy{Approve: ApproveAll, Allowed: []string{"re*", "delete"}}, []string{"write", "safe", "unsaid", "rw", "w*", "[a-z]*"}},
		// What "Always" writes for the tools "w*" and "[a-z]*" allows them
		// alone; a glob that does not parse matches only itself.
		{&ToolPolicy{Approve: ApproveAll, Allowed: []string{`w\*`, `\[a-z]\*`, "[", "wri"}}, []string{"read", "write", "safe", "delete", "unsaid", "rw"}},
		// A glob is read as a glob only: "[a-z]*" does not match a tool
		// named "[a-z]*" merely by being spelled the same.
		{&ToolPolicy{Approve: ApproveAll, Allowed: []string{"[a-z]*"}}, []string{"[a-z]*"}},
	} {
		var got []string
		for _, tool := range []*sdk.Tool{read, write, safeWrite, del, unsaid, rw, globW, globClass} {
			if tt.p.NeedsApproval(tool) {
				got = append(got, tool.Name)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v: %v wait, want %v", tt.p, got, tt.want)
		}
	}
}

// approver is a GatewayOptions.Approve that hands each request to the
// test and waits for its answer.
type approver struct {
	reqs    chan ApprovalRequest
	answers chan Approval
}

func newApprover() *approver {
	return &approver{reqs: make(chan ApprovalRequest, 8), answers: make(chan Approval, 8)}
}

func (a *approver) approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	a.reqs <- req
	select {
	case ans := <-a.answers:
		return ans, nil
	case <-ctx.Done():
		return Deny, ctx.Err()
	}
}

// A call that needs approval waits for the person's answer (asked through
// Approve, never the assistant, even one that declares elicitation): once,
// for the session (the next call of that tool in the same session does not
// ask; another session does), and denied (isError "The person declined
// this call."). A call that needs none never asks.
func TestApprovalBeforeACall(t *testing.T) {
	ap := newApprover()
	g, _ := newTestGateway(t, GatewayOptions{Approve: ap.approve})
	addServer(t, g, "n", "echo", withEnv(mcptest.AnnotatedEnv+"=1"))
	g.SetPolicy("n", &ToolPolicy{Approve: ApproveDestructive})
	var elicited atomic.Int32
	co := &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		elicited.Add(1)
		return &sdk.ElicitResult{Action: "accept"}, nil
	}}
	a := connectStream(t, g, UpstreamOptions{}, co)
	b := connectStream(t, g, UpstreamOptions{}, nil)
	web := connectHTTP(t, httpGateway(t, g, "tok").URL+"/mcp", "tok", nil)

	call := func(c *testClient, answer Approval, ask bool) (string, bool) {
		t.Helper()
		type result struct {
			res *sdk.CallToolResult
			err error
		}
		done := make(chan result, 1)
		go func() {
			res, _, err := c.call(t, "n__delete_note", map[string]any{"id": 7, "token": "s3cret"})
			done <- result{res, err}
		}()
		if ask {
			req := <-ap.reqs
			if req.Server != "n" || req.Tool != "delete_note" || !strings.HasPrefix(req.Client, "test-") || string(req.Arguments) != `{"id":7,"token":"s3cret"}` ||
				req.Annotations == nil || req.Annotations.DestructiveHint == nil || !*req.Annotations.DestructiveHint {
				t.Errorf("approval request %+v %s", req, req.Arguments)
			}
			ap.answers <- answer
		}
		r := <-done
		if r.err != nil {
			t.Fatal(r.err)
		}
		return textOf(t, r.res), r.res.IsError
	}
	if text, isErr := call(a, AllowOnce, true); isErr || text != `delete_note: {"id":7,"token":"s3cret"}` {
		t.Errorf("allowed once: %q %t", text, isErr)
	}
	if text, isErr := call(a, Deny, true); !isErr || text != DeclinedText {
		t.Errorf("denied: %q %t", text, isErr)
	}
	if _, isErr := call(a, AllowSession, true); isErr {
		t.Error("allowed for the session: refused")
	}
	if _, isErr := call(a, 0, false); isErr { // no question this time
		t.Error("second call in the session refused")
	}
	if _, isErr := call(b, AllowOnce, true); isErr { // another session asks
		t.Error("other session refused")
	}
	if _, isErr := call(web, AllowOnce, true); isErr { // and HTTP too
		t.Error("HTTP refused")
	}
	if res, _, err := a.call(t, "n__read_note", map[string]any{}); err != nil || res.IsError {
		t.Errorf("read_note (read-only) under approve destructive: %v %+v", err, res)
	}
	if elicited.Load() != 0 {
		t.Error("an approval went to the assistant")
	}
	select {
	case req := <-ap.reqs:
		t.Errorf("unexpected approval request %+v", req)
	default:
	}
}

// TestUnannotatedToolAsksUnderDestructive: under approve "destructive" a
// tool that says nothing (write_note: no annotations) asks, as the MCP
// spec's defaults (readOnlyHint false, destructiveHint true) say it may
// destroy data; one that says readOnlyHint: true (read_note) or
// destructiveHint: false (echo) does not.
func TestUnannotatedToolAsksUnderDestructive(t *testing.T) {
	ap := newApprover()
	g, _ := newTestGateway(t, GatewayOptions{Approve: ap.approve})
	addServer(t, g, "n", "echo", withEnv(mcptest.AnnotatedEnv+"=1"))
	g.SetPolicy("n", &ToolPolicy{Approve: ApproveDestructive})
	c := connectStream(t, g, UpstreamOptions{}, nil)
	for _, name := range []string{"n__read_note", "n__echo"} {
		if res, _, err := c.call(t, name, map[string]any{"message": "hi"}); err != nil || res.IsError {
			t.Errorf("%s asked or failed: %v %+v", name, err, res)
		}
	}
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, _, _ := c.call(t, "n__write_note", map[string]any{})
		done <- res
	}()
	select {
	case req := <-ap.reqs:
		if req.Tool != "write_note" || req.Annotations != nil {
			t.Errorf("approval request %+v", req)
		}
		ap.answers <- Deny
	case res := <-done:
		t.Fatalf("write_note (no annotations) ran without a question: %+v", res)
	}
	if res := <-done; res == nil || !res.IsError || textOf(t, res) != DeclinedText {
		t.Errorf("declined write_note: %+v", res)
	}
}

// A tool CheckTools holds back is neither listed nor called until SetHeld
// lets it go; CheckTools sees every listing before a view shows it.
func TestHeldToolNeitherListedNorCalled(t *testing.T) {
	var seen atomic.Int32
	g, _ := newTestGateway(t, GatewayOptions{CheckTools: func(server string, _ *downstream.Session, tools []*downstream.Tool) map[string]string {
		seen.Add(1)
		return map[string]string{"add": "its description changed"}
	}})
	addServer(t, g, "e", "echo")
	c := connectStream(t, g, UpstreamOptions{}, nil)
	if names := toolNames(t, c.ClientSession); slices.Contains(names, "e__add") || !slices.Contains(names, "e__echo") || seen.Load() == 0 {
		t.Errorf("tools %v (CheckTools called %d times)", names, seen.Load())
	}
	res, _, err := c.call(t, "e__add", map[string]any{"a": 1, "b": 2})
	if err != nil || !res.IsError || !strings.Contains(textOf(t, res), "held back by mcptray: its description changed") {
		t.Errorf("call of a held tool: %v %+v", err, res)
	}
	g.SetHeld("e", nil)
	if res, _, err := c.call(t, "e__add", map[string]any{"a": 1, "b": 2}); err != nil || res.IsError {
		t.Errorf("released: %v %+v", err, res)
	}
}
