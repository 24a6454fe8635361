package app

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
)

// TestWindowsLogRotatesWhileFollowed: a server's log open for reading (the
// tray's log pane, `mcptray logs -f`) still rotates on Windows, and the
// reader keeps the rotated file; without shared delete access the rename
// would fail and the log restart empty.
func TestWindowsLogRotatesWhileFollowed(t *testing.T) {
	dir := testkit.TempDir(t)
	l := &serverLog{file: rotatingFile{path: filepath.Join(dir, "a.log"), max: 200}}
	defer l.Close()
	l.Write("stderr", "first line")
	f, err := openLog(l.file.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for range 5 {
		l.Write("stderr", strings.Repeat("x", 60))
	}
	old, err := os.ReadFile(l.file.path + ".1")
	if err != nil || !strings.Contains(string(old), "first line") {
		t.Fatalf("rotated log = %q, %v; want it to start with the first line", old, err)
	}
	b, _ := io.ReadAll(f)
	if !strings.Contains(string(b), "first line") {
		t.Errorf("the reader's file holds %q, want the rotated one", b)
	}
}
