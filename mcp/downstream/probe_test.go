//go:build linux

package downstream

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProbeVersions starts servers of every kind, in either order of
// the first request, and checks the version each session speaks, what is
// remembered, and that a call works (the new-wire server refuses a call
// without the revision's _meta).
func TestProbeVersions(t *testing.T) {
	for _, tc := range []struct {
		mode          string
		discoverFirst bool
		want          string
		remembered    string // what the memory holds after the start
	}{
		// initialize first (the default)
		{"echo", false, ProtocolVersion, ""},                  // go-sdk v1.8's own server serves both: initialize
		{"old-wire", false, ProtocolVersion, ""},              // 2025-11-25 only
		{"new-wire", false, NewWireVersion, NewWireVersion},   // refuses initialize: started again with the probe
		{"new-strict", false, NewWireVersion, NewWireVersion}, // exits on initialize: started again with the probe
		{"old-strict", false, ProtocolVersion, ""},            // never sees the probe
		// server/discover first (StdioSpec.DiscoverFirst)
		{"echo", true, NewWireVersion, ""},                     // answers it
		{"new-wire", true, NewWireVersion, ""},                 // answers it
		{"old-wire", true, ProtocolVersion, ""},                // answers -32601: the SDK falls back to initialize
		{"old-strict", true, ProtocolVersion, ProtocolVersion}, // exits on it: started again with initialize
	} {
		name := tc.mode
		if tc.discoverFirst {
			name += "/discover-first"
		}
		t.Run(name, func(t *testing.T) {
			mem := NewProbeMemory(nil, nil)
			spec, marker := fakeSpec(tc.mode, func(s *StdioSpec) { s.Probes, s.DiscoverFirst = mem, tc.discoverFirst })
			f := mcptest.StartFake(t, tc.mode, marker, func(ctx context.Context) (*Session, error) { return Start(ctx, spec, Hooks{}) })
			if got := f.ProtocolVersion(); got != tc.want {
				t.Errorf("version %q, want %q", got, tc.want)
			}
			if f.NewWire() != (tc.want == NewWireVersion) {
				t.Errorf("NewWire() = %v", f.NewWire())
			}
			res, err := f.CallTool(context.Background(), "echo", map[string]any{"message": "hi"})
			if err != nil {
				t.Fatal(err)
			}
			if txt := res.Content[0].(*sdk.TextContent).Text; txt != "hi" {
				t.Errorf("echo answered %q", txt)
			}
			if got := mem.version(spec); got != tc.remembered {
				t.Errorf("remembered %q, want %q", got, tc.remembered)
			}
		})
	}
}

// TestProbeRestartsOnce: a server that refuses the first request of its
// start is started again with the other one, said so in its log, and
// remembered, so that its next start goes straight to what it took.
func TestProbeRestartsOnce(t *testing.T) {
	for _, tc := range []struct {
		mode          string
		discoverFirst bool
		refused, took string
	}{
		{"new-wire", false, "initialize", "server/discover"},
		{"new-strict", false, "initialize", "server/discover"},
		{"old-strict", true, "server/discover", "initialize"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			mem := NewProbeMemory(nil, nil)
			spec, marker := fakeSpec(tc.mode, func(s *StdioSpec) { s.Probes, s.DiscoverFirst = mem, tc.discoverFirst })
			first, second := &mcptest.Log{}, &mcptest.Log{}
			s1, err := Start(context.Background(), spec, Hooks{Log: first.Add})
			if err != nil {
				t.Fatal(err)
			}
			s1.Close()
			if want := "the server did not take " + tc.refused; !strings.Contains(first.String(), want) ||
				!strings.Contains(first.String(), "starting it again with "+tc.took) {
				t.Errorf("the log does not say why it started again:\n%s", first)
			}
			g := mcptest.StartFake(t, tc.mode, marker, func(ctx context.Context) (*Session, error) { return Start(ctx, spec, Hooks{Log: second.Add}) })
			if strings.Contains(second.String(), "did not take") {
				t.Errorf("the second start tried %s again:\n%s", tc.refused, second)
			}
			if got := firstRequest(g.ProtocolVersion()); got != tc.took {
				t.Errorf("the second start speaks %s", g.ProtocolVersion())
			}
		})
	}
}

// TestProbeSilentIsRemembered: a server that never answers the probe
// fails its start at the deadline, and the next start goes straight to
// initialize.
func TestProbeSilentIsRemembered(t *testing.T) {
	mem := NewProbeMemory(nil, nil)
	spec, _ := fakeSpec("silent", func(s *StdioSpec) { s.Probes, s.DiscoverFirst = mem, true })
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := Start(ctx, spec, Hooks{}); err == nil || !strings.Contains(err.Error(), "no answer to server/discover") {
		t.Fatalf("Start: %v", err)
	}
	if got := mem.version(spec); got != ProtocolVersion {
		t.Errorf("remembered %q", got)
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
	mem := NewProbeMemory(nil, nil)
	mem.remember(a, NewWireVersion)
	for fp := range mem.m {
		if strings.Contains(string(fp[:]), "s3cret") {
			t.Error("the memory holds the value")
		}
	}
}

// TestProbeTakesNeither: a server that exits at every start is started
// once more the other way, fails with the first way's error, and is not
// remembered (its next start asks both ways again).
func TestProbeTakesNeither(t *testing.T) {
	mem := NewProbeMemory(nil, nil)
	spec, _ := fakeSpec("crash", func(s *StdioSpec) { s.Probes = mem })
	log := &mcptest.Log{}
	_, err := Start(context.Background(), spec, Hooks{Log: log.Add})
	if want := "exited with code 3 before initialize: panic: boom"; err == nil || err.Error() != want {
		t.Fatalf("Start: %v, want %s", err, want)
	}
	if !strings.Contains(log.String(), "did not take server/discover either") {
		t.Errorf("the log does not say both ways failed:\n%s", log)
	}
	if got := mem.version(spec); got != "" {
		t.Errorf("remembered %q", got)
	}
}

// TestProbeForgetsStale: a remembered way the server refuses now (it
// was updated in place) is dropped, and both ways are asked again.
func TestProbeForgetsStale(t *testing.T) {
	mem := NewProbeMemory(nil, nil)
	spec, marker := fakeSpec("new-strict", func(s *StdioSpec) { s.Probes = mem })
	mem.remember(spec, ProtocolVersion) // as if it spoke 2025-11-25 before
	log := &mcptest.Log{}
	f := mcptest.StartFake(t, "new-strict", marker, func(ctx context.Context) (*Session, error) { return Start(ctx, spec, Hooks{Log: log.Add}) })
	if !f.NewWire() {
		t.Errorf("version %q", f.ProtocolVersion())
	}
	if !strings.Contains(log.String(), "no longer takes initialize") {
		t.Errorf("the log does not say why:\n%s", log)
	}
	if got := mem.version(spec); got != NewWireVersion {
		t.Errorf("remembered %q", got)
	}
}

// TestProbeMemorySaves: what a memory learns goes to its save function
// under the spec's ProbeKey, and a memory made from what was saved (the
// next mcptray) starts the server straight the remembered way.
func TestProbeMemorySaves(t *testing.T) {
	saved := map[ProbeKey]string{}
	var mu sync.Mutex
	save := func(k ProbeKey, v string) {
		mu.Lock()
		defer mu.Unlock()
		if v == "" {
			delete(saved, k)
		} else {
			saved[k] = v
		}
	}
	key := ProbeKey{1, 2, 3}
	spec, marker := fakeSpec("new-strict", func(s *StdioSpec) { s.Probes, s.ProbeKey = NewProbeMemory(nil, save), key })
	s1, err := Start(context.Background(), spec, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	s1.Close()
	mu.Lock()
	if len(saved) != 1 || saved[key] != NewWireVersion {
		t.Fatalf("saved %v, want %s under the spec's key", saved, NewWireVersion)
	}
	known := maps.Clone(saved)
	mu.Unlock()

	known[ProbeKey{9}] = "1999-01-01" // not a version it starts with: left out
	spec.Probes = NewProbeMemory(known, save)
	log := &mcptest.Log{}
	f := mcptest.StartFake(t, "new-strict", marker, func(ctx context.Context) (*Session, error) { return Start(ctx, spec, Hooks{Log: log.Add}) })
	if !f.NewWire() || strings.Contains(log.String(), "did not take") {
		t.Errorf("the next start did not go straight to server/discover (%s):\n%s", f.ProtocolVersion(), log)
	}
	if got := spec.Probes.version(StdioSpec{ProbeKey: ProbeKey{9}}); got != "" {
		t.Errorf("kept %q", got)
	}
}
