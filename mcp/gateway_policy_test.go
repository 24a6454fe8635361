//go:build linux

package mcp

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

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
	waitFor(t, "tools/list_changed", func() bool { return changed.Load() > 0 })
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
	waitFor(t, "tools/list_changed", func() bool { return changed.Load() > n })
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
	for _, tt := range []struct {
		p    *ToolPolicy
		want []string // the tools that wait
	}{
		{nil, nil},
		{&ToolPolicy{Approve: ApproveOff}, nil},
		{&ToolPolicy{Approve: ApproveDestructive}, []string{"delete"}},
		{&ToolPolicy{Approve: ApproveWrites}, []string{"write", "safe", "delete"}},
		{&ToolPolicy{Approve: ApproveAll}, []string{"read", "write", "safe", "delete"}},
		{&ToolPolicy{Approve: ApproveAll, Allowed: []string{"re*", "delete"}}, []string{"write", "safe"}},
	} {
		var got []string
		for _, tool := range []*sdk.Tool{read, write, safeWrite, del} {
			if tt.p.NeedsApproval(tool) {
				got = append(got, tool.Name)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%+v: %v wait, want %v", tt.p, got, tt.want)
		}
	}
}
