package localroots

import (
	"os"
	"path/filepath"
	"testing"
)

// A path is inside a root when it is the root or below it, after symlinks:
// a link inside a root that leads out is outside; a root reached through
// a link is still that root; a file that does not exist yet is judged by
// its existing parent.
func TestInside(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	root, out := filepath.Join(dir, "root"), filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.MkdirAll(out, 0o755)
	os.Symlink(out, filepath.Join(root, "escape"))
	os.Symlink(root, filepath.Join(dir, "alias"))
	for p, want := range map[string]bool{
		root:                                true,
		filepath.Join(root, "sub", "a.txt"): true,
		filepath.Join(root, "new", "deeper", "x"): true,
		filepath.Join(root, "..", "out", "x"):     false,
		filepath.Join(root, "escape", "x"):        false,
		filepath.Join(dir, "alias", "sub"):        true,
		out:                                       false,
		dir + "/rootlike":                         false,
	} {
		if _, ok := Inside(p, []string{root}); ok != want {
			t.Errorf("Inside(%s) = %v, want %v", p, ok, want)
		}
	}
	if _, ok := Inside(filepath.Join(out, "x"), []string{filepath.Join(dir, "alias")}); ok {
		t.Error("a root given through a link admits what is outside it")
	}
	if _, ok := Inside(root, nil); ok {
		t.Error("no roots admit something")
	}
}
