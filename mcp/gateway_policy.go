package mcp

import (
	"fmt"
	"maps"
	"path"
	"slices"

	"github.com/mcptray/mcptray/mcp/downstream"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// What the person decided about a server's tools (DESIGN.md §14), as the
// gateway applies it: a tool that is off or held back is neither listed
// nor called (a call gets isError text saying why), and a tool that needs
// approval is routed with route.approve set, which sends its calls past
// the fast path to the approval gate (gateway_approve.go). The checks run
// when the views sync, not per call: a call that needs no approval costs
// nothing more than before.

// Approval modes of ToolPolicy.Approve.
const (
	ApproveOff         = "off"
	ApproveDestructive = "destructive" // tools that may destroy data, by the spec's defaults (MayDestroy)
	ApproveWrites      = "writes"      // tools not annotated readOnlyHint: true
	ApproveAll         = "all"
)

// ToolPolicy is the person's say over one server's tools.
type ToolPolicy struct {
	// Disabled are globs (path.Match) of the tools that are off.
	Disabled []string
	// Approve says which calls wait for the person: off, destructive,
	// writes or all ("" is off).
	Approve string
	// Allowed are globs of the tools whose calls never wait.
	Allowed []string
	// Held are tools held back, by name, with why (the person has not
	// approved a change of their description yet).
	Held map[string]string
}

func (p *ToolPolicy) equal(q *ToolPolicy) bool {
	if p == nil || q == nil {
		return p == q
	}
	return p.Approve == q.Approve && slices.Equal(p.Disabled, q.Disabled) &&
		slices.Equal(p.Allowed, q.Allowed) && maps.Equal(p.Held, q.Held)
}

// matchGlob reports whether a glob of globs matches name, read as
// path.Match reads it and only so (config.ExactGlob writes a tool named
// "w*" as `w\*`, which no other tool matches); a glob that path.Match
// cannot read matches only itself.
func matchGlob(globs []string, name string) bool {
	for _, g := range globs {
		ok, err := path.Match(g, name)
		if err != nil {
			ok = g == name
		}
		if ok {
			return true
		}
	}
	return false
}

// ToolOff reports whether the policy turns tool off.
func (p *ToolPolicy) ToolOff(tool string) bool {
	return p != nil && matchGlob(p.Disabled, tool)
}

// refusal is why a call of server's tool is refused, or "" when it is
// not: the tool is off, or held back.
func (p *ToolPolicy) refusal(server, tool string) string {
	if p == nil {
		return ""
	}
	if matchGlob(p.Disabled, tool) {
		return fmt.Sprintf("The tool %q of the MCP server %q is turned off in mcptray. The person can turn it on with: mcptray tools %s on %s", tool, server, server, tool)
	}
	if why, ok := p.Held[tool]; ok {
		return fmt.Sprintf("The tool %q of the MCP server %q is held back by mcptray: %s. The person can approve the change in mcptray's inbox (the tray, or: mcptray inbox).", tool, server, why)
	}
	return ""
}

// NeedsApproval reports whether a call of t waits for the person's yes.
func (p *ToolPolicy) NeedsApproval(t *downstream.Tool) bool {
	if p == nil || matchGlob(p.Allowed, t.Name) {
		return false
	}
	switch p.Approve {
	case ApproveAll:
		return true
	case ApproveWrites:
		return t.Annotations == nil || !t.Annotations.ReadOnlyHint
	case ApproveDestructive:
		return MayDestroy(t.Annotations)
	}
	return false
}

// MayDestroy reads a tool's annotations as the MCP spec defines them: a
// hint left out takes its default (readOnlyHint false, destructiveHint
// true), so a tool may destroy data unless it says readOnlyHint: true or
// destructiveHint: false. A tool with no annotations at all may.
func MayDestroy(a *sdk.ToolAnnotations) bool {
	if a == nil {
		return true
	}
	return !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint)
}

// SetPolicy gives the gateway the person's say over the tools of the
// server name (nil: every tool on, none waits). It returns once every
// view shows the change; the SDK sends tools/list_changed to the
// sessions whose list changed.
func (g *Gateway) SetPolicy(name string, p *ToolPolicy) {
	g.SetPolicies(map[string]*ToolPolicy{name: p})
}

// SetPolicies is SetPolicy for several servers at once (a nil policy
// forgets the server's), with one refresh of the views when any changed.
func (g *Gateway) SetPolicies(pols map[string]*ToolPolicy) {
	changed := false
	g.mu.Lock()
	for name, p := range pols {
		if g.policies[name].equal(p) {
			continue
		}
		changed = true
		if p == nil {
			delete(g.policies, name)
			continue
		}
		cp := *p
		cp.Disabled, cp.Allowed, cp.Held = slices.Clone(p.Disabled), slices.Clone(p.Allowed), maps.Clone(p.Held)
		g.policies[name] = &cp
	}
	g.mu.Unlock()
	if changed {
		g.refresh()
	}
}

// SetHeld replaces the tools of server held back (by name, with why):
// the person approved a change, or it went back to what was pinned. It
// returns once every view shows the change.
func (g *Gateway) SetHeld(server string, held map[string]string) {
	g.mu.Lock()
	changed := !maps.Equal(g.held[server], held)
	g.setHeldLocked(server, held)
	g.mu.Unlock()
	if changed {
		g.refresh()
	}
}

func (g *Gateway) setHeldLocked(server string, held map[string]string) {
	if len(held) == 0 {
		delete(g.held, server)
		return
	}
	g.held[server] = maps.Clone(held)
}

// policyLocked is the policy of server with the tools held back. Called
// with g.mu held; the result is never changed.
func (g *Gateway) policyLocked(server string) *ToolPolicy {
	p, held := g.policies[server], g.held[server]
	if len(held) == 0 {
		return p
	}
	cp := ToolPolicy{}
	if p != nil {
		cp = *p
	}
	cp.Held = held
	return &cp
}
