//go:build unix

package ssh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestUpload(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	src := filepath.Join(e.home, "work")
	must(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(src, "app.sh"), []byte("#!/bin/sh\necho hi\n"), 0o750))
	must(t, os.WriteFile(filepath.Join(src, "sub", "data.txt"), []byte("data"), 0o644))
	must(t, os.Symlink("/etc/passwd", filepath.Join(src, "passwd-link")))
	remote := filepath.Join(ts.home, "deploy")
	must(t, os.MkdirAll(remote, 0o755))

	// Into an existing directory.
	var out transferOut
	e.ok("upload", map[string]any{"alias": "box", "local_path": "~/work/app.sh", "remote_path": remote}, &out)
	if got := readString(t, filepath.Join(remote, "app.sh")); got != "#!/bin/sh\necho hi\n" || out.Files != 1 || out.Bytes != 18 {
		t.Errorf("upload into dir: %q %+v", got, out)
	}
	if st, _ := os.Stat(filepath.Join(remote, "app.sh")); st.Mode().Perm() != 0o750 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	// To an exact name.
	e.ok("upload", map[string]any{"alias": "box", "local_path": filepath.Join(src, "app.sh"), "remote_path": filepath.Join(remote, "renamed.sh")}, &out)
	if out.Destination != filepath.Join(remote, "renamed.sh") {
		t.Errorf("exact name: %+v", out)
	}
	// A trailing slash: into a directory that is made.
	e.ok("upload", map[string]any{"alias": "box", "local_path": filepath.Join(src, "app.sh"), "remote_path": "fresh/"}, &out)
	if out.Destination != filepath.Join(ts.home, "fresh", "app.sh") {
		t.Errorf("trailing slash: %+v", out)
	}
	// A directory needs recursive; symlinks are skipped.
	if msg := e.fail("upload", map[string]any{"alias": "box", "local_path": src, "remote_path": remote}); !strings.Contains(msg, "is a directory: set recursive") {
		t.Errorf("dir without recursive: %s", msg)
	}
	e.ok("upload", map[string]any{"alias": "box", "local_path": src, "remote_path": remote, "recursive": true}, &out)
	if got := readString(t, filepath.Join(remote, "work", "sub", "data.txt")); got != "data" || out.Files != 2 || out.Dirs != 2 || len(out.Skipped) != 1 {
		t.Errorf("recursive: %q %+v", got, out)
	}
	if _, err := os.Lstat(filepath.Join(remote, "work", "passwd-link")); !os.IsNotExist(err) {
		t.Errorf("the symlink was copied: %v", err)
	}
	if msg := e.fail("upload", map[string]any{"alias": "box", "local_path": filepath.Join(src, "app.sh"), "remote_path": "/no/such/dir/x"}); !strings.Contains(msg, "its remote folder does not exist") {
		t.Errorf("missing remote folder: %s", msg)
	}
}

// Local paths stay inside x-mcptray.localRoots, symlinks included.
func TestLocalRoots(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("no"), 0o600))
	must(t, os.Symlink(outside, filepath.Join(e.home, "escape")))
	must(t, os.WriteFile(filepath.Join(ts.home, "r.txt"), []byte("remote"), 0o644))

	for _, p := range []string{filepath.Join(outside, "secret.txt"), "~/escape/secret.txt", "~/../etc/passwd", "relative.txt"} {
		msg := e.fail("upload", map[string]any{"alias": "box", "local_path": p, "remote_path": "x"})
		if !strings.Contains(msg, "outside the folders the SSH server may use") && !strings.Contains(msg, "must be absolute") {
			t.Errorf("upload from %s: %s", p, msg)
		}
	}
	for _, p := range []string{outside + "/", "~/escape/r.txt"} {
		msg := e.fail("download", map[string]any{"alias": "box", "remote_path": "r.txt", "local_path": p})
		if !strings.Contains(msg, "outside the folders the SSH server may use (x-mcptray.localRoots: "+e.home+")") {
			t.Errorf("download to %s: %s", p, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "r.txt")); !os.IsNotExist(err) {
		t.Errorf("a file was written outside the roots")
	}

	// Configured roots replace the home folder.
	e2 := newEnv(t, withOptions(func(o *Options) {
		o.Settings = func() (Settings, error) {
			return Settings{LocalRoots: []string{outside}, SecretTTL: DefaultSecretTTL}, nil
		}
	}))
	e2.keyAlias("box", ts)
	var out transferOut
	e2.ok("download", map[string]any{"alias": "box", "remote_path": "r.txt", "local_path": outside + "/"}, &out)
	if readString(t, filepath.Join(outside, "r.txt")) != "remote" {
		t.Errorf("download into a configured root: %+v", out)
	}
	if msg := e2.fail("download", map[string]any{"alias": "box", "remote_path": "r.txt", "local_path": filepath.Join(e2.home, "x")}); !strings.Contains(msg, "outside the folders") {
		t.Errorf("home is not a root any more: %s", msg)
	}
}

func TestDownload(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	e := newEnv(t)
	e.keyAlias("box", ts)
	tree := filepath.Join(ts.home, "logs")
	must(t, os.MkdirAll(filepath.Join(tree, "old"), 0o755))
	must(t, os.WriteFile(filepath.Join(tree, "app.log"), []byte("line\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(tree, "old", "app.log.1"), []byte("older\n"), 0o600))

	var out transferOut
	e.ok("download", map[string]any{"alias": "box", "remote_path": "logs/app.log", "local_path": "~/"}, &out)
	if readString(t, filepath.Join(e.home, "app.log")) != "line\n" || out.Destination != filepath.Join(e.home, "app.log") {
		t.Errorf("into home: %+v", out)
	}
	e.ok("download", map[string]any{"alias": "box", "remote_path": "logs/app.log", "local_path": "~/copy.log"}, &out)
	if readString(t, filepath.Join(e.home, "copy.log")) != "line\n" {
		t.Errorf("exact name: %+v", out)
	}
	if msg := e.fail("download", map[string]any{"alias": "box", "remote_path": "logs", "local_path": "~/x"}); !strings.Contains(msg, "is a directory: set recursive") {
		t.Errorf("dir without recursive: %s", msg)
	}
	e.ok("download", map[string]any{"alias": "box", "remote_path": "logs", "local_path": "~/backup/", "recursive": true}, &out)
	if readString(t, filepath.Join(e.home, "backup", "logs", "old", "app.log.1")) != "older\n" || out.Files != 2 || out.Dirs != 2 {
		t.Errorf("recursive: %+v", out)
	}
	if msg := e.fail("download", map[string]any{"alias": "box", "remote_path": "nope", "local_path": "~/x"}); !strings.Contains(msg, "no such file or directory") {
		t.Errorf("missing remote: %s", msg)
	}
}
