//go:build linux

package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// promptsListed is the aggregate prompts/list: name → description.
func (g *gatewayConn) promptsListed() map[string]string {
	g.t.Helper()
	res, errText := g.call("prompts/list", map[string]any{})
	if errText != "" {
		g.t.Fatalf("prompts/list: %s", errText)
	}
	var l struct {
		Prompts []struct{ Name, Description string } `json:"prompts"`
	}
	json.Unmarshal(res, &l)
	m := map[string]string{}
	for _, p := range l.Prompts {
		m[p.Name] = p.Description
	}
	return m
}

// promptText is prompts/get's first message text, or the error.
func (g *gatewayConn) promptText(name string) (text, errText string) {
	g.t.Helper()
	res, errText := g.call("prompts/get", map[string]any{"name": name, "arguments": map[string]any{}})
	var r struct {
		Messages []struct {
			Content struct{ Text string } `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(res, &r)
	if len(r.Messages) > 0 {
		text = r.Messages[0].Content.Text
	}
	return text, errText
}

// A prefixed name belongs to one server, fixed by the configured server
// names alone, not by who listed it first: a___b is server a_'s tool b
// (the longest server prefix it begins with), never server a's tool _b —
// not while a_ is off or restarting, not while a_'s b is off from the
// start; the same for prompts; and of two servers whose names sanitise
// alike (x.y, x_y) the later one's names carry a hash of its name, so the
// first can never take them over.
func TestNameBelongsToOneServer(t *testing.T) {
	off := fakeEntry(t, "echo", mcptest.ToolsEnv, "d")
	off["x-mcptray"] = map[string]any{"disabledTools": []string{"d"}}
	in := startDaemon(t, map[string]any{
		"a":   fakeEntry(t, "changing"),
		"a_":  fakeEntry(t, "echo", mcptest.ToolsEnv, "b"),
		"c":   fakeEntry(t, "echo", mcptest.ToolsEnv, "_d"),
		"c_":  off,
		"p":   fakeEntry(t, "echo", mcptest.PromptsEnv, "_q"),
		"p_":  fakeEntry(t, "echo", mcptest.PromptsEnv, "q"),
		"x.y": fakeEntry(t, "changing"),
		"x_y": fakeEntry(t, "echo", mcptest.ToolsEnv, "k.m"),
	})
	in.WaitFor("all ready", states("a", "ready", "a_", "ready", "c", "ready", "c_", "ready", "p", "ready", "p_", "ready", "x.y", "ready", "x_y", "ready"))
	g := openGateway(t, in.Data)

	t.Run("restart", func(t *testing.T) {
		if text, isErr := callResult(t, g.tool("a___b", map[string]any{})); isErr || text != "b" {
			t.Fatalf("a___b: %q", text)
		}
		if _, isErr := callResult(t, g.tool("a__add_tool", map[string]any{"name": "_b"})); isErr {
			t.Fatal("add_tool failed")
		}
		in.WaitFor("a lists _b", func(statusJSON) bool { _, ok := toolsByName(t, in, "a")["_b"]; return ok })
		if code, _, errs := in.Run("toggle", "a_", "off"); code != 0 {
			t.Fatal(errs)
		}
		in.WaitFor("a_ off", states("a_", "disabled"))
		var text string
		var isErr bool
		testkit.WaitFor(t, "a___b no longer a_'s b", func() bool {
			text, isErr = callResult(t, g.tool("a___b", map[string]any{}))
			return isErr || text != "b"
		})
		if !isErr {
			t.Errorf("a___b while a_ is off reached %q (server a's tool)", text)
		}
		if code, _, errs := in.Run("toggle", "a_", "on"); code != 0 {
			t.Fatal(errs)
		}
		in.WaitFor("a_ ready again", states("a_", "ready"))
		testkit.WaitFor(t, "a___b served again", func() bool {
			text, isErr = callResult(t, g.tool("a___b", map[string]any{}))
			return !isErr
		})
		if text != "b" {
			t.Errorf("a___b after a_ is back: %q (want a_'s b)", text)
		}
	})

	t.Run("off from the start", func(t *testing.T) {
		testkit.WaitFor(t, "c's _d seen", func() bool {
			_, ok := toolsByName(t, in, "c")["_d"]
			return ok
		})
		if text, isErr := callResult(t, g.tool("c___d", map[string]any{})); !isErr {
			t.Errorf("c___d with c_'s d off from the start reached %q (server c's tool)", text)
		}
		if slices.Contains(g.listedTools(), "c___d") {
			t.Errorf("c___d listed: %v", g.listedTools())
		}
	})

	t.Run("prompts", func(t *testing.T) {
		testkit.WaitFor(t, "p___q listed", func() bool { return g.promptsListed()["p___q"] == "q" })
		if text, errText := g.promptText("p___q"); text != "q" {
			t.Errorf("p___q: %q %s (want p_'s q)", text, errText)
		}
		if code, _, errs := in.Run("toggle", "p_", "off"); code != 0 {
			t.Fatal(errs)
		}
		in.WaitFor("p_ off", states("p_", "disabled"))
		testkit.WaitFor(t, "p_'s q gone", func() bool { return g.promptsListed()["p___q"] != "q" })
		if text, errText := g.promptText("p___q"); errText == "" {
			t.Errorf("p___q while p_ is off reached %q (server p's prompt)", text)
		}
	})

	t.Run("names that sanitise alike", func(t *testing.T) {
		var mine string // x_y's k.m
		testkit.WaitFor(t, "x_y's k.m listed", func() bool {
			for _, n := range g.listedTools() {
				if strings.HasPrefix(n, "x_y") && strings.HasSuffix(n, "__k_m") {
					mine = n
				}
			}
			return mine != ""
		})
		if mine == "x_y__k_m" {
			t.Errorf("x_y (second in the file) has the plain prefix: %s", mine)
		}
		if _, isErr := callResult(t, g.tool("x_y__add_tool", map[string]any{"name": "k_m"})); isErr {
			t.Fatal("add_tool failed")
		}
		in.WaitFor("x.y lists k_m", func(statusJSON) bool { _, ok := toolsByName(t, in, "x.y")["k_m"]; return ok })
		if code, _, errs := in.Run("toggle", "x_y", "off"); code != 0 {
			t.Fatal(errs)
		}
		in.WaitFor("x_y off", states("x_y", "disabled"))
		var text string
		testkit.WaitFor(t, mine+" no longer x_y's k.m", func() bool {
			res, errText := g.call("tools/call", map[string]any{"name": mine, "arguments": map[string]any{}})
			text = ""
			if errText == "" {
				if tx, isErr := callResult(t, res); !isErr {
					text = tx
				}
			}
			return text != "k.m"
		})
		if text != "" {
			t.Errorf("%s (x_y's k.m) while x_y is off reached %q", mine, text)
		}
	})
}
