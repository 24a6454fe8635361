package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
)

// Golden compares got with the file at path and fails t at each line that
// differs, saying how to rewrite it (rewrite, e.g. "go test -run TestX
// -update ./pkg/"). With update it writes got to path (making its folder)
// instead. Each package keeps its own -update flag and passes its value.
func Golden(t TB, path string, got []byte, update bool, rewrite string) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s writes it)", err, rewrite)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		g, w := "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s:%d differs:\n got: %s\nwant: %s", path, i+1, g, w)
		}
	}
	t.Errorf("%s differs from what the test made (%s rewrites it)", path, rewrite)
}

// TB is the part of testing.TB that Golden uses.
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}
