package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fileWith writes text as mcp.json in a temp dir and returns its File,
// whose Writer counts the writes (then writes atomically).
func fileWith(t *testing.T, text string) (*File, *int) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	writes := new(int)
	return NewFile(p, func(_, new []byte) error { *writes++; return WriteAtomic(p, new) }), writes
}

func fileText(t *testing.T, f *File) string {
	t.Helper()
	b, err := os.ReadFile(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const toolsConfig = `{
  // tools
  "mcpServers": {
    "gh": {"command": "x", "x-mcptray": {"disabledTools": ["delete_*"]}},
  },
}
`

// A tool's switch is a minimal edit of disabledTools: off appends the
// tool's own glob, on takes it out, and a glob of the person's that still
// turns it off is an error naming it; a switch that changes nothing
// writes nothing.
func TestFileSetToolEnabled(t *testing.T) {
	t.Parallel()
	f, writes := fileWith(t, toolsConfig)
	if err := f.SetToolEnabled("gh", "push*", false); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(toolsConfig, `["delete_*"]`, `["delete_*","push\\*"]`, 1)
	if got := fileText(t, f); got != want {
		t.Errorf("off:\n%s\nwant\n%s", got, want)
	}
	if err := f.SetToolEnabled("gh", "delete_repo", false); err != nil || *writes != 1 {
		t.Errorf("off by a glob already: %v, %d writes", err, *writes)
	}
	if err := f.SetToolEnabled("gh", "push*", true); err != nil {
		t.Fatal(err)
	}
	if got := fileText(t, f); got != toolsConfig {
		t.Errorf("on again:\n%s", got)
	}
	err := f.SetToolEnabled("gh", "delete_repo", true)
	if err == nil || !strings.Contains(err.Error(), `the pattern "delete_*" in the disabledTools of gh turns it off`) {
		t.Errorf("on under the person's glob: %v", err)
	}
	if err := f.SetToolEnabled("gh", "", false); err == nil {
		t.Error("no tool name: no error")
	}
	if err := f.SetToolEnabled("nope", "t", false); err == nil {
		t.Error("an unknown server: no error")
	}
	if *writes != 2 {
		t.Errorf("%d writes, want 2", *writes)
	}
}

// Allowing a tool for good appends its own glob to allowTools, once.
func TestFileAllowTool(t *testing.T) {
	t.Parallel()
	f, writes := fileWith(t, toolsConfig)
	for range 2 {
		if err := f.AllowTool("gh", "w*"); err != nil {
			t.Fatal(err)
		}
	}
	list, err := EntryList([]byte(fileText(t, f)), "gh", "allowTools")
	if err != nil || !slices.Equal(list, []string{`w\*`}) || *writes != 1 {
		t.Errorf("allowTools %q (%v), %d writes", list, err, *writes)
	}
	if !strings.Contains(fileText(t, f), "// tools") {
		t.Errorf("the comment is gone:\n%s", fileText(t, f))
	}
}

// The toggle and a setting are the byte edits SetDisabled and SetSetting,
// written through the File.
func TestFileSetEnabledAndSetting(t *testing.T) {
	t.Parallel()
	f, _ := fileWith(t, toolsConfig)
	if err := f.SetEnabled("gh", false); err != nil {
		t.Fatal(err)
	}
	if err := f.SetSetting("tools", "stable"); err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse([]byte(fileText(t, f)), testEnv())
	if err != nil || !cfg.Servers[0].Disabled || cfg.Settings.Tools != "stable" {
		t.Errorf("after the edits: %v\n%s", err, fileText(t, f))
	}
	if err := f.SetEnabled("nope", false); err == nil || !strings.Contains(err.Error(), `no server named "nope"`) {
		t.Errorf("toggling an unknown server: %v", err)
	}
	missing := NewFile(filepath.Join(t.TempDir(), "mcp.json"), nil)
	if err := missing.SetEnabled("gh", false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("toggling in a missing file: %v", err)
	}
}

// Replace writes the new file only over the old one it names: a stale old
// (or a file where there was none) is ErrChanged, and nothing is written.
func TestFileReplace(t *testing.T) {
	t.Parallel()
	f, writes := fileWith(t, toolsConfig)
	if err := f.Replace([]byte("stale"), []byte("{}")); !errors.Is(err, ErrChanged) {
		t.Errorf("a stale old: %v", err)
	}
	if err := f.Replace(nil, []byte("{}")); !errors.Is(err, ErrChanged) {
		t.Errorf("nil old over a file: %v", err)
	}
	if err := f.Replace([]byte(toolsConfig), []byte("{}")); err != nil || fileText(t, f) != "{}" || *writes != 1 {
		t.Errorf("replace: %v, %q, %d writes", err, fileText(t, f), *writes)
	}
	dir := t.TempDir()
	var olds [][]byte
	fresh := NewFile(filepath.Join(dir, "mcp.json"), func(old, new []byte) error {
		olds = append(olds, old)
		return WriteAtomic(filepath.Join(dir, "mcp.json"), new)
	})
	if err := fresh.Replace(nil, []byte("{}")); err != nil || len(olds) != 1 || olds[0] != nil {
		t.Errorf("replace no file: %v, the Writer's olds %q", err, olds)
	}
}

// An edit that finds the file changed when it is about to write (a person
// saved it while a secret was being typed) writes nothing: ErrChanged.
func TestFileEditSeesAChangeMeanwhile(t *testing.T) {
	t.Parallel()
	f, writes := fileWith(t, toolsConfig)
	err := f.Edit(func(data []byte) ([]byte, error) {
		if err := os.WriteFile(f.Path(), []byte(`{"mcpServers": {}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		return SetDisabled(data, "gh", true)
	})
	if !errors.Is(err, ErrChanged) || *writes != 0 || fileText(t, f) != `{"mcpServers": {}}` {
		t.Errorf("edit over a change: %v, %d writes, %q", err, *writes, fileText(t, f))
	}
}

// A File's edits run one at a time: concurrent ones all land, none lost.
func TestFileEditsAreSerialised(t *testing.T) {
	t.Parallel()
	f, _ := fileWith(t, toolsConfig)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.AllowTool("gh", fmt.Sprintf("t%d", i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	list, err := EntryList([]byte(fileText(t, f)), "gh", "allowTools")
	if err != nil || len(list) != 8 {
		t.Errorf("allowTools %q (%v), want 8 tools", list, err)
	}
}
