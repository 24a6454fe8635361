package downstream

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProbeVersions starts servers of every kind the probe meets and
// checks the version each session speaks, and that a call works.
func TestProbeVersions(t *testing.T) {
	for _, tc := range []struct {
		mode, want string
		newWire    bool
	}{
		{"echo", NewWireVersion, true},         // go-sdk v1.8's own server: both revisions
		{"new-wire", NewWireVersion, true},     // by hand: refuses a request without the _meta
		{"old-wire", ProtocolVersion, false},   // answers server/discover -32601
		{"old-strict", ProtocolVersion, false}, // exits on it: started again with initialize
	} {
		t.Run(tc.mode, func(t *testing.T) {
			mem := NewProbeMemory()
			spec, marker := fakeSpec(tc.mode, func(s *StdioSpec) { s.Probes = mem })
			f := mcptest.StartFake(t, tc.mode, marker, func(ctx context.Context) (*Session, error) { return Start(ctx, spec, Hooks{}) })
			if got := f.ProtocolVersion(); got != tc.want {
				t.Errorf("version %q, want %q", got, tc.want)
			}
			if f.NewWire() != tc.newWire {
				t.Errorf("NewWire() = %v", f.NewWire())
			}
			res, err := f.CallTool(context.Background(), "echo", map[string]any{"message": "hi"})
			if err != nil {
				t.Fatal(err)
			}
			if txt := res.Content[0].(*sdk.TextContent).Text; txt != "hi" {
				t.Errorf("echo answered %q", txt)
			}
			if remembered := mem.Skips(spec); remembered != (tc.mode == "old-strict") {
				t.Errorf("remembered %v", remembered)
			}
		})
	}
}

// TestProbeRestartsOnce: a server that exits on server/discover is
// started again with initialize, said so in its log, and remembered, so
// that its next start sends no probe at all.
func TestProbeRestartsOnce(t *testing.T) {
	mem := NewProbeMemory()
	spec, marker := fakeSpec("old-strict", func(s *StdioSpec) { s.Probes = mem })
	first, second := &mcptest.Log{}, &mcptest.Log{}
	s1, err := Start(context.Background(), spec, Hooks{Log: first.Add})
	if err != nil {
		t.Fatal(err)
	}
	s1.Close()
	testkit.WaitFor(t, "the first start's exit on the probe", func() bool {
		return strings.Contains(first.String(), `fatal: expected initialize, got "server/discover"`)
	})
	if !strings.Contains(first.String(), "did not take server/discover") {
		t.Errorf("log does not say why it restarted:\n%s", first)
	}
	g := mcptest.StartFake(t, "old-strict", marker, func(ctx context.Context) (*Session, error) { return Start(ctx, spec, Hooks{Log: second.Add}) })
	if strings.Contains(second.String(), "server/discover") {
		t.Errorf("the second start probed again:\n%s", second)
	}
	if g.ProtocolVersion() != ProtocolVersion {
		t.Errorf("version %q", g.ProtocolVersion())
	}
}

// TestProbeSilentIsRemembered: a server that never answers the probe
// fails its start at the deadline, and the next start skips the probe.
func TestProbeSilentIsRemembered(t *testing.T) {
	mem := NewProbeMemory()
	spec, _ := fakeSpec("silent", func(s *StdioSpec) { s.Probes = mem })
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := Start(ctx, spec, Hooks{}); err == nil || !strings.Contains(err.Error(), "no answer to server/discover") {
		t.Fatalf("Start: %v", err)
	}
	if !mem.Skips(spec) {
		t.Error("the silent server is not remembered")
	}
}

// TestFingerprintHoldsNoSecret: the memory keeps hashes; two command
// lines that differ in one environment value are told apart.
func TestFingerprintHoldsNoSecret(t *testing.T) {
	a := StdioSpec{Command: "srv", Args: []string{"x"}, Env: []string{"TOKEN=s3cret-value"}}
	b := a
	b.Env = []string{"TOKEN=other"}
	if Fingerprint(a) == Fingerprint(b) {
		t.Error("different environments hash alike")
	}
	c := StdioSpec{Command: "srv", Args: []string{"x", ""}, Env: a.Env}
	if Fingerprint(a) == Fingerprint(c) {
		t.Error("an extra empty argument hashes alike")
	}
	mem := NewProbeMemory()
	mem.remember(a)
	for fp := range mem.old {
		if strings.Contains(string(fp[:]), "s3cret") {
			t.Error("the memory holds the value")
		}
	}
}
