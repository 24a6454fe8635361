//go:build linux

package mcp

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/mcp/downstream"
)

// A server that waits for the person to sign in answers an assistant's
// call, direct (stable mode) or through the meta tool, with an isError
// text that says the person was asked: never an address, never a way for
// the assistant to start the sign-in.
func TestGatewayNeedsSignInText(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	cached := []*downstream.Tool{{Name: "search", Description: "Searches.", InputSchema: map[string]any{"type": "object"}}}
	g.SetConfigured([]ConfiguredServer{{Name: "linear", Enabled: true, State: "needs-sign-in", CachedTools: cached}, {Name: "fresh", Enabled: true, State: "needs-sign-in"}})
	want := "linear needs you to sign in; mcptray has asked you in its tray."
	stable := connectStream(t, g, UpstreamOptions{Tools: ToolsStable}, nil)
	res, _, err := stable.call(t, "linear__search", map[string]any{})
	if err != nil || !res.IsError || textOf(t, res) != want {
		t.Errorf("stable: %v %v %q", res, err, textOf(t, res))
	}
	dynamic := connectStream(t, g, UpstreamOptions{Tools: ToolsDynamic}, nil)
	res, _, err = dynamic.call(t, "mcptray__call_tool", map[string]any{"server": "linear", "tool": "search"})
	if err != nil || !res.IsError || !strings.Contains(textOf(t, res), want) {
		t.Errorf("dynamic: %v %v %q", res, err, textOf(t, res))
	}
	// A server never signed in has no tools known yet: the same answer.
	res, _, err = dynamic.call(t, "mcptray__call_tool", map[string]any{"server": "fresh", "tool": "anything"})
	if err != nil || !res.IsError || textOf(t, res) != "fresh needs you to sign in; mcptray has asked you in its tray." {
		t.Errorf("dynamic, no tools known: %v %v %q", res, err, textOf(t, res))
	}
}
