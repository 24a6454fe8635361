package app

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// newGateway builds the MCP gateway the assistants talk to, with mcptray's
// own tools (mcptray__*).
func (c *Core) newGateway() *mcp.Gateway {
	return mcp.NewGateway(mcp.GatewayOptions{
		Logger:         c.log,
		Elicit:         c.elicit,
		Approve:        c.approveCall,
		CheckTools:     c.checkTools,
		ElicitComplete: c.elicitComplete,
		Builtins: append([]mcp.BuiltinTool{{
			Name:        "servers",
			Description: "The state of every MCP server mcptray supervises: name, state (ready, disabled, error, crash-loop, …), pid, tool count, restarts and the last error.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			Call: func(ctx context.Context, _ json.RawMessage) (any, string, error) {
				st := c.Status()
				b, err := json.MarshalIndent(st, "", "  ")
				return st, string(b), err
			},
		}}, c.events.Tools()...),
		BuiltinResources: c.events.Resources(),
		OnToolCall:       c.history.record,
	})
}

// serverReady tells the gateway a server's session is up (or its tools
// changed) and caches its tools for the stable tool-list mode.
func (c *Core) serverReady(name string, sess *downstream.Session) {
	tools, raw := sess.ToolsWithRaw()
	c.redactInputs(sess) // inbox_inputs.go
	c.gw.SetServer(name, sess)
	c.mu.Lock()
	c.cachedTools[name] = tools
	c.cachedRaw[name] = raw
	c.mu.Unlock()
	if b, err := cachedJSON(tools, raw); err == nil {
		if err := c.store.SaveTools(context.Background(), name, b, time.Now()); err != nil {
			c.log.Warn("caching tools", "server", name, "err", err)
		}
	}
}

// serverDown tells the gateway a server's session is gone.
func (c *Core) serverDown(name string) { c.gw.SetServer(name, nil) }

// loadCachedTools reads the tools cache into memory (at start).
func (c *Core) loadCachedTools(ctx context.Context) {
	cached, err := c.store.CachedTools(ctx)
	if err != nil {
		c.log.Warn("reading the tools cache", "err", err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, raw := range cached {
		var tools []*downstream.Tool
		var entries []json.RawMessage
		if json.Unmarshal(raw, &tools) == nil && json.Unmarshal(raw, &entries) == nil && len(entries) == len(tools) {
			c.cachedTools[name] = tools
			c.cachedRaw[name] = entries
		}
	}
}

// cachedJSON is a server's tools for the cache: a JSON array of the
// definitions as the server sent them (so stable mode lists them
// unchanged after a restart), or as the SDK decoded them when their
// bytes are not known.
func cachedJSON(tools []*downstream.Tool, raw []json.RawMessage) ([]byte, error) {
	if len(raw) != len(tools) || slices.ContainsFunc(raw, func(r json.RawMessage) bool { return r == nil }) {
		return json.Marshal(tools)
	}
	return json.Marshal(raw)
}

// configured is what the gateway needs to know of every configured server
// for the stable and dynamic modes. Called with c.mu held.
func (c *Core) configured() []mcp.ConfiguredServer {
	out := make([]mcp.ConfiguredServer, 0, len(c.order))
	for _, name := range c.order {
		s, ok := c.servers[name]
		if !ok {
			continue
		}
		out = append(out, mcp.ConfiguredServer{
			Name:        name,
			Enabled:     s.status.Enabled,
			State:       s.status.State,
			CachedTools: c.cachedTools[name],
			CachedRaw:   c.cachedRaw[name],
		})
	}
	return out
}
