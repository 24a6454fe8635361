package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/app/control"
)

// TestSymlinkedFolderRepointed: mcp.json's folder is a symlink (a whole
// dotfiles folder linked in) and is re-pointed. No watched folder sees that
// change; the watcher's poll re-resolves and applies the new file.
func TestSymlinkedFolderRepointed(t *testing.T) {
	root := t.TempDir()
	v1, v2 := filepath.Join(root, "dotfiles-v1"), filepath.Join(root, "dotfiles-v2")
	for dir, cfg := range map[string]string{v1: servers("one", fake(t, "echo")), v2: servers("two", fake(t, "echo"))} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(root, "mcptray")
	if err := os.Symlink(v1, link); err != nil {
		t.Fatal(err)
	}
	h := startCore(t, "", func(o *Options) { o.ConfigPath = filepath.Join(link, "mcp.json") })
	h.wait("one ready", stateIs("one", control.StateReady))

	tmp := link + ".new"
	if err := os.Symlink(v2, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
	h.wait("the re-pointed folder's file applied", func(st control.Status) bool {
		_, one := find(st, "one")
		return !one && stateIs("two", control.StateReady)(st)
	})
}
