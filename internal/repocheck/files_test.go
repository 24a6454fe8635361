package repocheck_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// root is the module's root, seen from this package's folder.
const root = "../.."

// maxFileSize is the most a tracked file that is not a fixture may weigh.
const maxFileSize = 1 << 20

// fixture says whether a tracked file is a fixture: under a testdata/ folder,
// the embedded icons (assets/) or the README's screenshots
// (docs/screenshots/). A fixture may be binary and big; it may still not be
// an executable.
func fixture(path string) bool {
	return strings.HasPrefix(path, "assets/") || strings.HasPrefix(path, "docs/screenshots/") ||
		strings.HasPrefix(path, "testdata/") || strings.Contains(path, "/testdata/")
}

// executable names the executable format data starts with (ELF, Mach-O,
// PE), or returns "".
func executable(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x7fELF")):
		return "an ELF executable"
	case bytes.HasPrefix(data, []byte{0xcf, 0xfa, 0xed, 0xfe}), bytes.HasPrefix(data, []byte{0xce, 0xfa, 0xed, 0xfe}),
		bytes.HasPrefix(data, []byte{0xfe, 0xed, 0xfa, 0xcf}), bytes.HasPrefix(data, []byte{0xfe, 0xed, 0xfa, 0xce}),
		bytes.HasPrefix(data, []byte{0xca, 0xfe, 0xba, 0xbe}):
		return "a Mach-O executable"
	case bytes.HasPrefix(data, []byte("MZ")) && len(data) >= 64:
		return "a PE (Windows) executable"
	}
	return ""
}

// fileProblem says what is wrong with the tracked file path of the given
// size, whose first bytes (all of it when at most maxFileSize) are data, or
// returns "".
func fileProblem(path string, size int64, data []byte) string {
	if kind := executable(data); kind != "" {
		return path + " is " + kind + ": build it (into bin/ or .cache/), don't commit it"
	}
	if fixture(path) {
		return ""
	}
	if size > maxFileSize {
		return path + " is over 1 MB: only fixtures (testdata/, assets/, docs/screenshots/) may be"
	}
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return path + " is not text: only fixtures (testdata/, assets/, docs/screenshots/) may be"
	}
	return ""
}

// TestNoBinariesOrBigFiles fails on a tracked executable, and on a tracked
// file outside the fixtures that is binary or over 1 MB.
func TestNoBinariesOrBigFiles(t *testing.T) {
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout (a source tarball): nothing is tracked")
	}
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("listing the tracked files: %v", err)
	}
	n := 0
	for _, path := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		full := filepath.Join(root, path)
		info, err := os.Lstat(full)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		data, err := readHead(full, maxFileSize)
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		n++
		if p := fileProblem(path, info.Size(), data); p != "" {
			t.Error(p)
		}
	}
	if n < 100 {
		t.Fatalf("checked only %d tracked files; is this the repo root?", n)
	}
}

// readHead reads at most limit bytes of the file.
func readHead(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, limit)
	n, err := io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return buf[:n], err
}

func TestFileProblem(t *testing.T) {
	t.Parallel()
	elf := append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 100)...)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, c := range []struct {
		path string
		size int64
		data []byte
		bad  bool
	}{
		{"conformance/bearerproxy/bearerproxy", 9 << 20, elf, true},
		{"mcp/testdata/tool", 100, elf, true},
		{"tool.exe", 100, append([]byte("MZ"), make([]byte, 100)...), true},
		{"docs/diagram.png", int64(len(png)), png, true},
		{"docs/screenshots/servers.png", int64(len(png)), png, false},
		{"assets/icon.png", int64(len(png)), png, false},
		{"mcp/testdata/big.golden", 5 << 20, []byte("{}\n"), false},
		{"go.sum", 2 << 20, []byte("x v1 h1:\n"), true},
		{"README.md", 100, []byte("# mcptray — ein Tray\n"), false},
		{"notes.txt", 4, []byte{0xff, 0xfe, 'a', 0}, true},
	} {
		if got := fileProblem(c.path, c.size, c.data); (got != "") != c.bad {
			t.Errorf("fileProblem(%s) = %q, want a problem: %v", c.path, got, c.bad)
		}
	}
}
