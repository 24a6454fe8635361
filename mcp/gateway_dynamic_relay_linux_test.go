package mcp

import (
	"context"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInputRequiredThroughCallTool: a server's question during a
// call_tool on 2026-07-28 reaches the assistant as input_required, and
// its retry of call_tool, with the sealed requestState, reaches the
// server with its answer — once.
func TestInputRequiredThroughCallTool(t *testing.T) {
	g, _ := newTestGateway(t, GatewayOptions{})
	addServer(t, g, "nw", "new-wire")
	var asked atomic.Int32
	eager := &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Add(1)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}
	c := connectStreamWire(t, g, UpstreamOptions{Tools: ToolsDynamic}, eager, protocol2026)
	res, _, err := c.call(t, metaCall, map[string]any{"server": "nw", "tool": "ask"})
	if err != nil || textOf(t, res) != `answer {"action":"accept","content":{"name":"Ada"}}` {
		t.Errorf("call_tool ask: %v %v", res, err)
	}
	if asked.Load() != 1 {
		t.Errorf("the assistant was asked %d times, want 1", asked.Load())
	}
}
