package testkit

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TempDir is t.TempDir, for tests that also run on Windows under Wine:
// there Go's os.RemoveAll fails on a folder that holds anything (Wine 8
// has no FileDispositionInformationEx: "unlinkat …: Invalid function"),
// which fails the test at cleanup. On Windows, the folder's contents are
// removed one by one (os.Remove works) first; elsewhere it is t.TempDir.
func TempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if runtime.GOOS == "windows" {
		t.Cleanup(func() { removeTree(dir) })
	}
	return dir
}

// removeTree removes dir and what it holds, deepest first.
func removeTree(dir string) {
	var paths []string
	filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		paths = append(paths, path)
		return nil
	})
	for _, p := range slices.Backward(paths) {
		os.Remove(p)
	}
}
