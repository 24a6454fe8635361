package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")

	// A new file is 0600.
	if err := WriteAtomic(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "one", 0o600)

	// An existing file keeps its mode.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "two", 0o644)
	assertNoTemp(t, dir)
}

// TestWriteAtomicSymlink: a symlinked config stays a symlink; its target is
// replaced.
func TestWriteAtomicSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "mcp.json")
	if err := os.Mkdir(filepath.Dir(target), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "mcp.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced: %v %v", fi, err)
	}
	assertFile(t, target, "new", 0o640)
	assertNoTemp(t, dir)
	assertNoTemp(t, filepath.Dir(target))
}

func TestWriteAtomicErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing", "mcp.json")
	err := WriteAtomic(path, []byte("x"))
	if err == nil || !strings.HasPrefix(err.Error(), "writing "+path+": ") {
		t.Errorf("err = %v", err)
	}

	// A directory where the file should be: the rename fails, no temp file stays.
	path = filepath.Join(dir, "adir")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte("x")); err == nil {
		t.Error("writing over a directory succeeded")
	}
	assertNoTemp(t, dir)
}

func assertFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != content {
		t.Errorf("%s = %q, want %q", path, data, content)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != mode {
		t.Errorf("%s mode = %v, want %v", path, fi.Mode().Perm(), mode)
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}
