package app

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkit"
)

func TestSetToolsModeRewritesConfigAndApplies(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")))
	h.wait("a ready", func(st control.Status) bool { return len(st.Servers) == 1 && st.Servers[0].State == control.StateReady })
	if got := h.core.ToolsMode(); got != "live" {
		t.Errorf("ToolsMode() = %q before any change, want live", got)
	}
	if err := h.core.SetToolsMode("stable"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(h.cfgPath)
	if !strings.Contains(string(b), `"x-mcptray": {"tools": "stable"}`) {
		t.Errorf("mcp.json after SetToolsMode:\n%s", b)
	}
	testkit.WaitFor(t, "ToolsMode() to become stable after the rewrite", func() bool { return h.core.ToolsMode() == "stable" })
}

func TestSetToolsModeRefusesUnknownModes(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")))
	err := h.core.SetToolsMode("everything")
	want := `the tool-list mode must be "live", "stable" or "dynamic", got "everything"`
	if err == nil || err.Error() != want {
		t.Errorf("SetToolsMode(everything) = %v, want %q", err, want)
	}
}

func TestFollowLogAndToken(t *testing.T) {
	h := startCore(t, servers("a", fake(t, "echo")))
	h.wait("a ready", func(st control.Status) bool { return len(st.Servers) == 1 && st.Servers[0].State == control.StateReady })
	ctx, cancel := context.WithCancel(context.Background())
	var out testkit.Buffer
	done := make(chan error, 1)
	go func() { done <- h.core.FollowLog(ctx, "a", &out) }()
	if !testkit.Eventually(testkit.Deadline, func() bool { return strings.Contains(out.String(), "[lifecycle]") }) {
		t.Fatalf("FollowLog wrote no lifecycle line: %q", out.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("FollowLog = %v after cancel, want nil", err)
	}
	if tok, err := h.core.Token(); err != nil || tok != testToken {
		t.Errorf("Token() = %q, %v; want the configured token", tok, err)
	}
}
