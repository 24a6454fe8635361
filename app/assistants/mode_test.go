package assistants

import (
	"strings"
	"testing"
)

// Each client's budget: Claude Code and Codex search tools themselves and
// VS Code groups them (never offered dynamic mode); Cursor stops at 40;
// the others load everything (DynamicThreshold).
func TestToolBudgets(t *testing.T) {
	want := map[string]int{"claude-desktop": DynamicThreshold, "claude-code": 0, "cursor": CursorToolLimit, "vscode": 0,
		"windsurf": DynamicThreshold, "codex": 0, "gemini": DynamicThreshold, "zed": DynamicThreshold}
	for _, c := range Clients() {
		if got, ok := want[c.Name]; !ok || c.ToolBudget() != got {
			t.Errorf("%s: budget %d, want %d", c.Name, c.ToolBudget(), got)
		}
	}
}

// An entry written in dynamic mode (JSON and TOML) is setup's own: Detect
// says it is current, in mode dynamic; a bad mode is refused.
func TestEntryInDynamicMode(t *testing.T) {
	e := testEnv(t)
	for _, name := range []string{"cursor", "codex", "claude-desktop"} {
		c, _ := Find(name)
		if c.Mode() == ModeDynamic {
			t.Fatalf("%s defaults to dynamic", name)
		}
		d, err := c.WithMode(ModeDynamic)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(d.Entry(self)), `"args":["connect","--tools","dynamic"]`) {
			t.Errorf("%s dynamic entry: %s", name, d.Entry(self))
		}
		p, err := d.Plan(e, Add)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Apply(); err != nil {
			t.Fatal(err)
		}
		for _, s := range Detect(e) {
			if s.Client.Name == name && (!s.Installed || !s.Current || s.Mode != ModeDynamic) {
				t.Errorf("%s: installed %v current %v mode %q", name, s.Installed, s.Current, s.Mode)
			}
		}
		live, _ := c.WithMode(ModeLive)
		if got := string(live.Entry(self)); !strings.HasSuffix(got, `"args":["connect"]}`) {
			t.Errorf("%s live entry: %s", name, got)
		}
	}
	c, _ := Find("cursor")
	if _, err := c.WithMode("fast"); err == nil || err.Error() != `unknown tools mode "fast" (want live, stable or dynamic)` {
		t.Errorf("mode fast: %v", err)
	}
}
