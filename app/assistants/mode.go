package assistants

import (
	"fmt"
	"slices"
)

// The tool-list modes a client's entry runs `mcptray connect` with
// (--tools): every ready server's tools, every configured server's last
// known tools, or a handful of meta tools with a search (dynamic).
const (
	ModeLive    = "live"
	ModeStable  = "stable"
	ModeDynamic = "dynamic"
)

var modes = []string{ModeLive, ModeStable, ModeDynamic}

// DynamicThreshold is how many tools an assistant that loads every tool
// into its context (Claude Desktop, Gemini CLI, Windsurf, Zed) is given
// before setup offers dynamic mode (README: "Many servers, few tokens").
// Cursor's own cap is lower (CursorToolLimit); Claude Code and Codex
// search tools themselves and VS Code groups them, so they are never
// offered it.
const DynamicThreshold = 60

// CursorToolLimit is the number of tools Cursor takes before it drops
// the rest.
const CursorToolLimit = 40

// ToolBudget is how many tools the client handles well: past it, setup
// offers dynamic mode. 0: never (the client searches or groups tools
// itself).
func (c *Client) ToolBudget() int { return c.budget }

// Mode is the tool-list mode of the client's entry: live unless its
// arguments say --tools.
func (c *Client) Mode() string { return modeOf(c.args) }

func modeOf(args []string) string {
	if i := slices.Index(args, "--tools"); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ModeLive
}

// WithMode is the client with an entry that runs connect in mode (live,
// stable or dynamic): `connect`, or `connect --tools MODE`.
func (c *Client) WithMode(mode string) (*Client, error) {
	if !slices.Contains(modes, mode) {
		return nil, fmt.Errorf("unknown tools mode %q (want live, stable or dynamic)", mode)
	}
	cp := *c
	cp.args = []string{"connect"}
	if mode != ModeLive {
		cp.args = append(cp.args, "--tools", mode)
	}
	return &cp, nil
}

// variants are the client in each mode, its own first.
func (c *Client) variants() []*Client {
	out := []*Client{c}
	for _, m := range modes {
		if m != c.Mode() {
			v, _ := c.WithMode(m)
			out = append(out, v)
		}
	}
	return out
}

// DynamicToolCount is how many tools dynamic mode lists:
// mcptray__search_tools, list_tools, describe_tool and call_tool
// (mcp/gateway_dynamic.go).
const DynamicToolCount = 4

// ToolsSeen is how many tools an assistant whose entry runs in mode is
// given while the ready servers list ready tools: dynamic mode's meta
// tools, else those.
func ToolsSeen(mode string, ready int) int {
	if mode == ModeDynamic {
		return DynamicToolCount
	}
	return ready
}

// modeOfStatus is the mode of the client's entry: the current entry's,
// else the one setup would write.
func modeOfStatus(st Status) string {
	if st.Current && st.Mode != "" {
		return st.Mode
	}
	return st.Client.Mode()
}
