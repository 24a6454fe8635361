package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRotatingFileShared: with others appending to the file too (the
// daemon's stderr), their bytes count toward the limit, and each file
// opened is handed to opened (which points stderr at it).
func TestRotatingFileShared(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray.log")
	var opened []string
	r := &rotatingFile{path: path, max: 100, shared: true, opened: func(f *os.File) { opened = append(opened, f.Name()) }}
	r.Write([]byte("first line\n"))
	other, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	other.WriteString(strings.Repeat("x", 80) + "\n") // as a panic's trace on stderr would
	other.Close()
	r.Write([]byte("second line\n"))
	r.Close()

	old, _ := os.ReadFile(path + ".1")
	cur, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(old), "first line\nxxx") || string(cur) != "second line\n" {
		t.Errorf("rotated %q, current %q; want the other writer's bytes counted", old, cur)
	}
	if len(opened) != 2 || opened[0] != path || opened[1] != path {
		t.Errorf("opened = %q, want the file twice", opened)
	}
}
