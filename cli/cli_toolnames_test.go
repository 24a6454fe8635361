//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// asks waits for the approval request of the call done; a call that ends
// first ran without a question, and fails the test.
func (w *inboxWatch) asks(done <-chan [2]string, what string) inbox.Request {
	w.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-w.ch:
			if !ok {
				w.t.Fatal("the inbox watch ended")
			}
			if ev.Kind == inbox.Added && ev.Request.Kind == inbox.KindApproval {
				return ev.Request
			}
		case r := <-done:
			w.t.Fatalf("%s ran without a question: %q %s", what, r[0], r[1])
		case <-deadline:
			w.t.Fatalf("%s: no approval request in the inbox", what)
		}
	}
}

// toolsByName is `mcptray tools NAME --json`, by tool name.
func toolsByName(t *testing.T, in *instance, server string) map[string]control.ToolInfo {
	t.Helper()
	code, out, errs := in.Run("tools", server, "--json")
	if code != 0 {
		t.Fatalf("tools --json: %d %s", code, errs)
	}
	var l control.ToolList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := map[string]control.ToolInfo{}
	for _, ti := range l.Tools {
		m[ti.Name] = ti
	}
	return m
}

// A server's tools named like globs ("w*", "[a-z]*", "*") are never read
// as patterns over its other tools: "Always" on w* writes `w\*` to
// allowTools, after which wipe still asks (and [a-z]* does not let zap
// through); `tools NAME off '*'` turns off the tool named * only; and
// `tools NAME on 'w*'` never removes the person's own glob w* (wipe stays
// off, with an error that says why).
func TestToolsNamedLikeGlobs(t *testing.T) {
	entry := fakeEntry(t, "echo", mcptest.ToolsEnv, "w*,wipe,[a-z]*,zap,*")
	entry["x-mcptray"] = map[string]any{"approve": "all"}
	in := startDaemon(t, map[string]any{"n": entry})
	in.WaitFor("n ready", states("n", "ready"))
	w := watchInbox(t, in.Data)
	g := openGateway(t, in.Data)

	always := func(exposed, tool string) {
		t.Helper()
		done := callAsync(t, g, exposed, map[string]any{})
		req := w.asks(done, tool)
		if req.Tool != tool {
			t.Fatalf("approval of %q, want %q", req.Tool, tool)
		}
		if code, _, errs := in.Run("inbox", "answer", req.ID, "--always"); code != 0 {
			t.Fatal(errs)
		}
		if text, isErr := awaitCall(t, done); isErr != "" || text != tool {
			t.Fatalf("%s allowed always: %q %s", tool, text, isErr)
		}
		in.WaitFor(tool+" allowed", func(statusJSON) bool { return !toolsByName(t, in, "n")[tool].Approval })
	}
	mustAsk := func(exposed, tool string) {
		t.Helper()
		done := callAsync(t, g, exposed, map[string]any{})
		req := w.asks(done, tool)
		if req.Tool != tool {
			t.Errorf("approval of %q, want %q", req.Tool, tool)
		}
		if code, _, errs := in.Run("inbox", "answer", req.ID, "--decline"); code != 0 {
			t.Fatal(errs)
		}
		awaitCall(t, done)
	}

	always("n__w_", "w*")
	cfg, _ := os.ReadFile(in.Config)
	if !strings.Contains(string(cfg), `"allowTools": ["w\\*"]`) {
		t.Errorf("allowTools after Always on w*:\n%s", cfg)
	}
	if tools := toolsByName(t, in, "n"); !tools["wipe"].Approval || tools["w*"].Approval {
		t.Errorf("after Always on w*: wipe %+v, w* %+v", tools["wipe"], tools["w*"])
	}
	mustAsk("n__wipe", "wipe")
	always("n___a-z__", "[a-z]*")
	mustAsk("n__zap", "zap")

	// Off: the tool named * only.
	if code, _, errs := in.Run("tools", "n", "off", "*"); code != 0 {
		t.Fatal(errs)
	}
	in.WaitFor("* off", func(statusJSON) bool { return !toolsByName(t, in, "n")["*"].Enabled })
	if tools := toolsByName(t, in, "n"); !tools["wipe"].Enabled || !tools["echo"].Enabled {
		t.Errorf("turning off the tool * turned off others: %+v", tools)
	}
	cfg, _ = os.ReadFile(in.Config)
	if !strings.Contains(string(cfg), `"disabledTools": ["\\*"]`) {
		t.Errorf("disabledTools after off *:\n%s", cfg)
	}

	// On: the person's own glob w* stays.
	os.WriteFile(in.Config, []byte(strings.Replace(string(cfg), `"disabledTools": ["\\*"]`, `"disabledTools": ["\\*", "w*"]`, 1)), 0o600)
	in.WaitFor("w* off", func(statusJSON) bool { return !toolsByName(t, in, "n")["wipe"].Enabled })
	if code, _, errs := in.Run("tools", "n", "on", "w*"); code != 1 || !strings.Contains(errs, `the pattern "w*"`) {
		t.Errorf("on w* under the glob w*: %d %s", code, errs)
	}
	cfg, _ = os.ReadFile(in.Config)
	if !strings.Contains(string(cfg), `"disabledTools": ["\\*", "w*"]`) {
		t.Errorf("disabledTools after on w*:\n%s", cfg)
	}
	if code, _, errs := in.Run("tools", "n", "on", "*"); code != 0 {
		t.Fatal(errs)
	}
	cfg, _ = os.ReadFile(in.Config)
	if !strings.Contains(string(cfg), `"disabledTools": ["w*"]`) {
		t.Errorf("disabledTools after on *:\n%s", cfg)
	}
}

// Server a_'s tool b is a___b. Server a (first in the file) then adds,
// through list_changed, a tool "_b", whose prefixed name is a___b too: the
// name is a_'s (the longest server prefix it begins with), so a call of
// a___b never reaches a with the arguments meant for a_; a's newcomer is
// not listed on the aggregate route (it is _b on a's own).
func TestRenamedToolNeverTakesAnotherServersName(t *testing.T) {
	in := startDaemon(t, map[string]any{
		"a":  fakeEntry(t, "changing"),
		"a_": fakeEntry(t, "echo", mcptest.ToolsEnv, "b"),
	})
	in.WaitFor("both ready", states("a", "ready", "a_", "ready"))
	g := openGateway(t, in.Data)
	if text, isErr := callResult(t, g.tool("a___b", map[string]any{})); isErr || text != "b" {
		t.Fatalf("a___b: %q", text)
	}
	if _, isErr := callResult(t, g.tool("a__add_tool", map[string]any{"name": "_b"})); isErr {
		t.Fatal("add_tool failed")
	}
	in.WaitFor("a lists _b", func(statusJSON) bool { _, ok := toolsByName(t, in, "a")["_b"]; return ok })
	if text, isErr := callResult(t, g.tool("a___b", map[string]any{})); isErr || text != "b" {
		t.Errorf("a___b after a added _b: %q (want a_'s b)", text)
	}
	for _, name := range g.listedTools() {
		if strings.HasPrefix(name, "a___b_") {
			t.Errorf("a's _b listed on the aggregate route as %s", name)
		}
	}
}
