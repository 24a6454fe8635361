//go:build unix

package ssh

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	var lines []string
	for i := 1; i <= 10; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	content := strings.Join(lines, "\n") + "\n"
	must(t, os.WriteFile(filepath.Join(ts.home, "f.txt"), []byte(content), 0o644))
	h := sha256.Sum256([]byte(content))

	var out readFileOut
	e.ok("read_file", map[string]any{"alias": "box", "path": "f.txt", "offset": 3, "limit": 2}, &out)
	if out.Content != "line 3\nline 4\n" || out.StartLine != 3 || out.EndLine != 4 || out.TotalLines != 10 || !out.More {
		t.Errorf("read_file 3+2 = %+v", out)
	}
	if out.SHA256 != hex.EncodeToString(h[:]) || out.Path != filepath.Join(ts.home, "f.txt") {
		t.Errorf("sha %s path %s", out.SHA256, out.Path)
	}
	e.ok("read_file", map[string]any{"alias": "box", "path": "~/f.txt"}, &out)
	if out.Content != content || out.More {
		t.Errorf("whole file: %+v", out)
	}
	if msg := e.fail("read_file", map[string]any{"alias": "box", "path": "f.txt", "offset": 11}); !strings.Contains(msg, "offset 11 is past the end") {
		t.Errorf("past the end: %s", msg)
	}
	if msg := e.fail("read_file", map[string]any{"alias": "box", "path": "nope.txt"}); !strings.Contains(msg, "nope.txt: no such file or directory") {
		t.Errorf("missing: %s", msg)
	}
	if msg := e.fail("read_file", map[string]any{"alias": "box", "path": ts.home}); !strings.Contains(msg, "is a directory") {
		t.Errorf("directory: %s", msg)
	}
	must(t, os.WriteFile(filepath.Join(ts.home, "bin.dat"), []byte{1, 0, 2}, 0o644))
	if msg := e.fail("read_file", map[string]any{"alias": "box", "path": "bin.dat"}); !strings.Contains(msg, "looks binary") {
		t.Errorf("binary: %s", msg)
	}
	// A long file stops at 256 KiB of text.
	big := strings.Repeat(strings.Repeat("x", 99)+"\n", 5000)
	must(t, os.WriteFile(filepath.Join(ts.home, "big.txt"), []byte(big), 0o644))
	e.ok("read_file", map[string]any{"alias": "box", "path": "big.txt", "limit": 5000}, &out)
	if !out.Truncated || len(out.Content) > maxReadBytes || out.TotalLines != 5000 || out.EndLine != len(out.Content)/100 {
		t.Errorf("big: truncated %v, %d bytes, lines %d..%d of %d", out.Truncated, len(out.Content), out.StartLine, out.EndLine, out.TotalLines)
	}
}

func TestListFiles(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	root := filepath.Join(ts.home, "tree")
	must(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "top.txt"), []byte("12345"), 0o640))
	must(t, os.WriteFile(filepath.Join(root, "a", "b", "deep.txt"), nil, 0o644))
	must(t, os.Symlink("/etc", filepath.Join(root, "link")))

	var out listFilesOut
	e.ok("list_files", map[string]any{"alias": "box", "path": "tree"}, &out)
	got := map[string]fileEntry{}
	for _, en := range out.Entries {
		got[strings.TrimPrefix(en.Path, root+"/")] = en
	}
	if len(got) != 3 || got["top.txt"].Size != 5 || got["top.txt"].Mode != "-rw-r-----" || got["a"].Type != "dir" || got["link"].Type != "symlink" {
		t.Errorf("list = %+v", out.Entries)
	}
	e.ok("list_files", map[string]any{"alias": "box", "path": root, "recursive": true}, &out)
	if len(out.Entries) != 5 || out.Truncated {
		t.Errorf("recursive: %d entries %+v", len(out.Entries), out.Entries)
	}
	e.ok("list_files", map[string]any{"alias": "box", "path": root, "recursive": true, "max_entries": 2}, &out)
	if len(out.Entries) != 2 || !out.Truncated {
		t.Errorf("capped: %d entries, truncated %v", len(out.Entries), out.Truncated)
	}
}

func TestGrepFiles(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	root := filepath.Join(ts.home, "src")
	must(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "a.conf"), []byte("listen 80\nserver_name x;\nlisten 443\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "sub", "b.txt"), []byte("LISTEN here\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "sub", "c.conf"), []byte(strings.Repeat("listen\n", 50)), 0o644))

	var out grepOut
	e.ok("grep_files", map[string]any{"alias": "box", "pattern": "^listen [0-9]+", "path": "src"}, &out)
	if len(out.Matches) != 2 || out.Matches[0].Path != "src/a.conf" || out.Matches[0].Line != 1 || out.Matches[1].Text != "listen 443" {
		t.Errorf("grep = %+v", out)
	}
	e.ok("grep_files", map[string]any{"alias": "box", "pattern": "listen", "path": root, "ignore_case": true, "include": "*.txt"}, &out)
	if len(out.Matches) != 1 || out.Matches[0].Text != "LISTEN here" {
		t.Errorf("include+ignore_case = %+v", out)
	}
	e.ok("grep_files", map[string]any{"alias": "box", "pattern": "listen", "path": root, "max_matches": 10}, &out)
	if len(out.Matches) != 10 || !out.Truncated {
		t.Errorf("capped: %d matches, truncated %v", len(out.Matches), out.Truncated)
	}
	e.ok("grep_files", map[string]any{"alias": "box", "pattern": "nothing-matches-this", "path": root}, &out)
	if len(out.Matches) != 0 || out.Truncated {
		t.Errorf("no match = %+v", out)
	}
	if msg := e.fail("grep_files", map[string]any{"alias": "box", "pattern": "x", "path": "/no/such"}); !strings.Contains(msg, "No such file") {
		t.Errorf("missing path: %s", msg)
	}
}

// TestEditFileKeepsTheOwner: when the SFTP server may give the new copy
// the old file's owner and group (here it runs as root), the edit is an
// atomic replace that keeps them. (Who may not: the real-sshd end-to-end
// test, TestSSHEditKeepsTheOwnerAgainstRealSSHD.)
func TestEditFileKeepsTheOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give a file another owner (CI runs make test as root)")
	}
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	p := filepath.Join(ts.home, "theirs.conf")
	must(t, os.WriteFile(p, []byte("a = 1\n"), 0o600))
	must(t, os.Chown(p, 4321, 4322))
	before, _ := os.Stat(p)

	var out editOut
	e.ok("edit_file", map[string]any{"alias": "box", "path": p, "old_string": "a = 1", "new_string": "a = 2"}, &out)
	after, _ := os.Stat(p)
	b, _ := os.ReadFile(p)
	sys := after.Sys().(*syscall.Stat_t)
	if string(b) != "a = 2\n" || out.InPlace || sys.Uid != 4321 || sys.Gid != 4322 || after.Mode().Perm() != 0o600 {
		t.Errorf("after edit: %q, in place %v, owner %d:%d, mode %v", b, out.InPlace, sys.Uid, sys.Gid, after.Mode().Perm())
	}
	if os.SameFile(before, after) {
		t.Error("written in place, not replaced atomically")
	}
}

func TestEditFile(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	p := filepath.Join(ts.home, "nginx.conf")
	must(t, os.WriteFile(p, []byte("a = 1\nb = 2\nb = 2\n"), 0o640))
	// Edits go through a symlink to the file.
	must(t, os.Symlink(p, filepath.Join(ts.home, "link.conf")))

	var out editOut
	e.ok("edit_file", map[string]any{"alias": "box", "path": "link.conf", "old_string": "a = 1", "new_string": "a = 10"}, &out)
	b, _ := os.ReadFile(p)
	if string(b) != "a = 10\nb = 2\nb = 2\n" || out.Path != p || out.TotalLines != 3 || out.SHA256 != sum(b) {
		t.Errorf("after edit: %q %+v", b, out)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	if st, _ := os.Lstat(filepath.Join(ts.home, "link.conf")); st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced by a file")
	}
	if msg := e.fail("edit_file", map[string]any{"alias": "box", "path": p, "old_string": "b = 2", "new_string": "b = 3"}); !strings.Contains(msg, "occurs 2 times") {
		t.Errorf("ambiguous: %s", msg)
	}
	if msg := e.fail("edit_file", map[string]any{"alias": "box", "path": p, "old_string": "c = 3", "new_string": "x"}); !strings.Contains(msg, "old_string was not found in "+p) {
		t.Errorf("not found: %s", msg)
	}
	entries, _ := os.ReadDir(ts.home)
	for _, en := range entries {
		if strings.Contains(en.Name(), ".mcptray-") {
			t.Errorf("temporary file left: %s", en.Name())
		}
	}
}

func TestReplaceLines(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	p := filepath.Join(ts.home, "f.txt")
	must(t, os.WriteFile(p, []byte("1\n2\n3\n4\n"), 0o600))

	var rf readFileOut
	e.ok("read_file", map[string]any{"alias": "box", "path": p}, &rf)
	var out editOut
	e.ok("replace_lines", map[string]any{"alias": "box", "path": p, "start_line": 2, "end_line": 3, "new_text": "two\nthree\nthree and a half", "expected_sha256": rf.SHA256}, &out)
	if b, _ := os.ReadFile(p); string(b) != "1\ntwo\nthree\nthree and a half\n4\n" || out.TotalLines != 5 {
		t.Errorf("after replace: %q %+v", b, out)
	}
	// The old hash no longer matches.
	msg := e.fail("replace_lines", map[string]any{"alias": "box", "path": p, "start_line": 1, "end_line": 1, "new_text": "x", "expected_sha256": rf.SHA256})
	if !strings.Contains(msg, "changed since it was read") || !strings.Contains(msg, out.SHA256) {
		t.Errorf("stale hash: %s", msg)
	}
	if msg := e.fail("replace_lines", map[string]any{"alias": "box", "path": p, "start_line": 3, "end_line": 9, "new_text": "x"}); !strings.Contains(msg, "end_line 9 is past the end (5 lines)") {
		t.Errorf("past the end: %s", msg)
	}
	if msg := e.fail("replace_lines", map[string]any{"alias": "box", "path": p, "start_line": 0, "end_line": 1, "new_text": "x"}); !strings.Contains(msg, "start_line must be 1 or more") {
		t.Errorf("start 0: %s", msg)
	}
}

func TestReplaceLinesCases(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in         string
		start, end int
		text, want string
	}{
		{"a\nb\nc\n", 2, 2, "B", "a\nB\nc\n"},
		{"a\nb\nc\n", 2, 1, "new", "a\nnew\nb\nc\n"}, // insert before line 2
		{"a\nb\nc\n", 4, 3, "d\n", "a\nb\nc\nd\n"},   // append
		{"a\nb\nc", 4, 3, "d", "a\nb\nc\nd"},         // append to a file without a final newline
		{"a\nb\nc\n", 1, 2, "", "c\n"},               // delete
		{"a\nb\nc", 3, 3, "C", "a\nb\nC"},            // last line without newline
		{"", 1, 0, "first\n", "first\n"},             // empty file
		{"a\nb\n", 1, 2, "x\ny\nz\n", "x\ny\nz\n"},   // whole file
	} {
		got, err := replaceLines([]byte(c.in), c.start, c.end, c.text)
		if err != nil || string(got) != c.want {
			t.Errorf("replaceLines(%q, %d, %d, %q) = %q, %v; want %q", c.in, c.start, c.end, c.text, got, err, c.want)
		}
	}
}
