package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteAtomic(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestWriteAtomicLinkChain: through a chain of two links, and through a link
// whose target does not exist yet, the file at the end is written and the
// links stay.
func TestWriteAtomicLinkChain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"stage", "dotfiles"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(dir, "dotfiles", "mcp.json")
	middle := filepath.Join(dir, "stage", "mcp.json")
	link := filepath.Join(dir, "mcp.json")
	if err := os.Symlink("../dotfiles/mcp.json", middle); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("stage/mcp.json", link); err != nil {
		t.Fatal(err)
	}
	if got := Links(link); strings.Join(got, " ") != link+" "+middle+" "+target {
		t.Errorf("Links = %q", got)
	}
	// The target does not exist yet: it is created, the links kept.
	if err := WriteAtomic(link, []byte("one")); err != nil {
		t.Fatal(err)
	}
	assertFile(t, target, "one", 0o600)
	if err := WriteAtomic(link, []byte("two")); err != nil {
		t.Fatal(err)
	}
	assertFile(t, target, "two", 0o600)
	for _, l := range []string{link, middle} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s replaced: %v %v", l, fi, err)
		}
	}
	assertNoTemp(t, dir)
	assertNoTemp(t, filepath.Dir(middle))

	// A loop ends after 40 links.
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if got := Links(loop); len(got) != maxLinks+1 {
		t.Errorf("Links of a loop: %d names", len(got))
	}
}
