package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// A server's tools, one by one (DESIGN.md §14): what `mcptray tools NAME`
// and the Servers tab show, and the per-tool switches, kept in the entry's
// "x-mcptray".disabledTools (globs) and applied by the gateway.

// ToolInfo is one tool of a server, as `mcptray tools NAME --json` prints
// it.
type ToolInfo struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"` // its first line
	ReadOnly    bool   `json:"readOnly"`    // annotated readOnlyHint: true
	Destructive bool   `json:"destructive"` // annotated destructiveHint: true
	Idempotent  bool   `json:"idempotent"`  // annotated idempotentHint: true
	OpenWorld   bool   `json:"openWorld"`   // annotated openWorldHint: true
	// Enabled is false when a glob of disabledTools turns it off; OffBy is
	// that glob.
	Enabled bool   `json:"enabled"`
	OffBy   string `json:"offBy,omitempty"`
	// Approval: its calls wait for the person's yes (x-mcptray.approve).
	Approval bool `json:"approval"`
	// Held says why the tool is held back (its description changed since
	// it was pinned); "" when it is not.
	Held string `json:"held,omitempty"`
}

// ToolList is a server's tools: the live ones when it is ready, else the
// last ones seen (Cached).
type ToolList struct {
	Server string     `json:"server"`
	State  string     `json:"state"`
	Cached bool       `json:"cached"` // the server is not ready: its last known tools
	Tools  []ToolInfo `json:"tools"`
}

// Tools lists the tools of the server name with their switches.
func (c *Core) Tools(name string) (ToolList, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.servers[name]
	if !ok {
		return ToolList{}, fmt.Errorf("%w: %q", ErrNoServer, name)
	}
	l := ToolList{Server: name, State: s.status.State, Cached: s.status.State != StateReady, Tools: []ToolInfo{}}
	pol := c.policyLocked(name)
	pol.Held = c.pins.Held(name)
	for _, t := range c.cachedTools[name] {
		l.Tools = append(l.Tools, toolInfo(t, c.rules[name], pol))
	}
	return l, nil
}

func toolInfo(t *downstream.Tool, rules config.ToolRules, pol *mcp.ToolPolicy) ToolInfo {
	desc, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
	ti := ToolInfo{Name: t.Name, Title: t.Title, Description: desc, Enabled: true}
	if a := t.Annotations; a != nil {
		ti.ReadOnly, ti.Idempotent = a.ReadOnlyHint, a.IdempotentHint
		ti.Destructive = a.DestructiveHint != nil && *a.DestructiveHint
		ti.OpenWorld = a.OpenWorldHint != nil && *a.OpenWorldHint
		if ti.Title == "" {
			ti.Title = a.Title
		}
	}
	if glob, off := rules.ToolOff(t.Name); off {
		ti.Enabled, ti.OffBy = false, glob
	}
	ti.Approval = pol.NeedsApproval(t)
	if pol != nil {
		ti.Held = pol.Held[t.Name]
	}
	return ti
}

// SetToolEnabled turns one tool of the server name on or off by rewriting
// the entry's "x-mcptray".disabledTools in mcp.json (every other byte
// kept); the watcher applies it, and the server keeps running.
func (c *Core) SetToolEnabled(server, tool string, on bool) error {
	c.mu.Lock()
	_, ok := c.servers[server]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrNoServer, server)
	}
	return c.configFile.SetToolEnabled(server, tool, on)
}

// policyLocked is the gateway policy of the server name: its rules, the
// approval mode, and the tools held back. Called with c.mu held.
func (c *Core) policyLocked(name string) *mcp.ToolPolicy {
	r := c.rules[name]
	p := &mcp.ToolPolicy{Disabled: r.DisabledTools, Allowed: r.AllowTools, Approve: r.Approve}
	if p.Approve == "" {
		p.Approve = c.approveDefault
	}
	return p
}

// setRules takes every entry's rules from cfg and gives the gateway the
// policies before any server of cfg starts, so that no tool is listed
// before its switch is known.
func (c *Core) setRules(cfg *config.Config) {
	c.mu.Lock()
	seen := make(map[string]bool, len(cfg.Servers))
	changed := c.approveDefault != cfg.Settings.Approve
	c.approveDefault = cfg.Settings.Approve
	for _, spec := range cfg.Servers {
		if !seen[spec.Name] {
			seen[spec.Name] = true
			changed = changed || !sameRules(c.rules[spec.Name], spec.Rules)
			c.rules[spec.Name] = spec.Rules
		}
	}
	var gone, unpinned []string
	for name, r := range c.rules {
		if !seen[name] {
			gone = append(gone, name)
			delete(c.rules, name)
		}
		if !seen[name] || !r.Pins() {
			unpinned = append(unpinned, name)
		}
	}
	c.mu.Unlock()
	for _, name := range unpinned {
		c.pins.Forget(name)
		c.gw.SetHeld(name, nil)
	}
	c.applyPolicies(gone)
	if changed {
		c.broadcast() // the UI shows the switches with the status
	}
}

func sameRules(a, b config.ToolRules) bool {
	return slices.Equal(a.DisabledTools, b.DisabledTools) && slices.Equal(a.AllowTools, b.AllowTools) &&
		a.Approve == b.Approve && (a.PinTools == nil) == (b.PinTools == nil) && (a.PinTools == nil || *a.PinTools == *b.PinTools)
}

// applyPolicies gives the gateway every server's policy, and forgets
// those of the servers in gone.
func (c *Core) applyPolicies(gone []string) {
	c.mu.Lock()
	pols := make(map[string]*mcp.ToolPolicy, len(c.rules))
	for name := range c.rules {
		pols[name] = c.policyLocked(name)
	}
	c.mu.Unlock()
	for _, name := range gone {
		pols[name] = nil
	}
	c.gw.SetPolicies(pols)
}
