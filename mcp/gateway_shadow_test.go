//go:build linux

package mcp

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLaterToolNeverTakesAnExposedName: server "a_" offers b, exposed as
// a___b. Server "a" (first in order) then adds a tool "_b" through
// list_changed, whose prefixed name is a___b too. The name is a_'s (the
// longest server prefix it begins with), which an assistant listed and may
// have approved; the newcomer is not listed on the aggregate route, and a
// call of a___b still reaches a_'s b with the arguments meant for it — or,
// while b is off, is refused.
func TestLaterToolNeverTakesAnExposedName(t *testing.T) {
	g, tl := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "a", "changing")
	addServer(t, g, "a_", "echo", withEnv(mcptest.ToolsEnv+"=b"))
	var changed atomic.Int32
	c := connectStream(t, g, UpstreamOptions{}, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		changed.Add(1)
	}})
	if res, _, err := c.call(t, "a___b", map[string]any{}); err != nil || res.IsError || textOf(t, res) != "b" {
		t.Fatalf("a___b before: %v %+v", err, res)
	}
	if res, _, err := c.call(t, "a__add_tool", map[string]any{"name": "_b"}); err != nil || res.IsError {
		t.Fatalf("add_tool: %v %+v", err, res)
	}
	testkit.WaitFor(t, "a's _b seen", func() bool { return strings.Contains(tl.String(), "a/_b is not exposed as a___b") })
	if names := toolNames(t, c.ClientSession); !slices.Contains(names, "a___b") || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "a___b_") }) {
		t.Errorf("tools: %v (want a___b, a_'s b, and no other a___b…)", names)
	}
	if res, _, err := c.call(t, "a___b", map[string]any{}); err != nil || res.IsError || textOf(t, res) != "b" {
		t.Errorf("a___b after a added _b: %v %q (want a_'s b)", err, textOf(t, res))
	}

	// Turned off (or held back), a_'s b keeps its name: a call of a___b is
	// refused saying so, and never reaches a's _b.
	g.SetPolicy("a_", &ToolPolicy{Disabled: []string{"b"}})
	if res, _, err := c.call(t, "a___b", map[string]any{}); err != nil || !res.IsError || !strings.Contains(textOf(t, res), "turned off in mcptray") {
		t.Errorf("a___b with a_'s b off: %v %q", err, textOf(t, res))
	}
	g.SetPolicy("a_", nil)
	if res, _, err := c.call(t, "a___b", map[string]any{}); err != nil || res.IsError || textOf(t, res) != "b" {
		t.Errorf("a___b with a_'s b on again: %v %q", err, textOf(t, res))
	}
}
