package assistants

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestWindowsAssistantPaths: in the real profile's folders (under Wine,
// the prefix's C:\users\<name>), setup finds Claude Desktop's config in
// %APPDATA%\Claude without a package, in its MSIX package's folder
// (%LOCALAPPDATA%\Packages\Claude_<id>\LocalCache\Roaming\Claude) with
// one, writes the mcptray entry there, and Detect sees it installed.
func TestWindowsAssistantPaths(t *testing.T) {
	e, err := DefaultEnv()
	if err != nil {
		t.Fatal(err)
	}
	local, roaming := os.Getenv("LOCALAPPDATA"), os.Getenv("APPDATA")
	if local == "" || roaming == "" {
		t.Fatal("no %LOCALAPPDATA% or %APPDATA%")
	}
	if real, _ := filepath.Glob(filepath.Join(local, "Packages", "Claude_*")); len(real) > 0 {
		t.Skipf("a Claude Desktop package is installed (%s): not touching it", real[0])
	}
	c, _ := Find("claude-desktop")
	if got, err := c.Path(e); err != nil || got != filepath.Join(roaming, "Claude", "claude_desktop_config.json") {
		t.Errorf("without a package: %q, %v; want it in %%APPDATA%%\\Claude", got, err)
	}

	pkg := filepath.Join(local, "Packages", "Claude_mcptraytest0")
	t.Cleanup(func() { removeTree(pkg) })
	if err := os.MkdirAll(pkg, 0o700); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(pkg, "LocalCache", "Roaming", "Claude", "claude_desktop_config.json")
	if got, err := c.Path(e); err != nil || got != want {
		t.Fatalf("with the package: %q, %v; want %q", got, err, want)
	}
	p, err := c.Plan(e, Add)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("setup wrote no config in the package: %v", err)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.MCPServers["mcptray"].Command != e.Self {
		t.Errorf("the config setup wrote: %s (%v); want mcpServers.mcptray running %s", b, err, e.Self)
	}
	for _, s := range Detect(e) {
		if s.Client.Name == "claude-desktop" && (s.Path != want || !s.Installed || !s.Current) {
			t.Errorf("Detect: %+v, want it installed and current at %s", s, want)
		}
	}
}

// removeTree removes dir and what it holds, deepest first (os.RemoveAll
// fails under Wine 8).
func removeTree(dir string) {
	var paths []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		paths = append(paths, p)
		return nil
	})
	for i := len(paths) - 1; i >= 0; i-- {
		os.Remove(paths[i])
	}
}
