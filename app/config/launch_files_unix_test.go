//go:build unix

package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// A launch holds the SHA-256 of each user-writable file it names (its
// command, an argument that is a path, the path after "=" of a flag), and
// only the resolved path of a system file (root's, writable by no group or
// other user) unless mcptray runs as root. A rewrite at the same path
// changes the fingerprint, even one that keeps the size and sets the mtime
// back.
func TestLaunchFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wrapper, conf := filepath.Join(dir, "wrapper.py"), filepath.Join(dir, "conf.toml")
	os.WriteFile(wrapper, []byte("print('a')\n"), 0o755)
	os.WriteFile(conf, []byte("x = 1\n"), 0o644)
	launch := func(env Env) Launch {
		t.Helper()
		data := `{"mcpServers": {"a": {"command": "/bin/sh", "args": ["` + wrapper + `", "--config=` + conf + `", "rel.py", "/nonexistent/x"]}}}`
		cfg, err := Parse([]byte(data), env)
		if err != nil || cfg.Servers[0].Err != nil {
			t.Fatal(err, cfg.Servers[0].Err)
		}
		return cfg.Servers[0].Launch
	}
	// As mcptray sets it: as root (CI), root's files are the user's.
	l := launch(Env{Root: os.Geteuid() == 0})
	if keys := slices.Sorted(mapKeys(l.Files)); !slices.Equal(keys, []string{"/bin/sh", conf, wrapper}) {
		t.Fatalf("files %v", l.Files)
	}
	for _, p := range []string{wrapper, conf} {
		if !strings.HasPrefix(l.Files[p], "sha256:") {
			t.Errorf("%s: %s", p, l.Files[p])
		}
	}
	var st syscall.Stat_t
	if syscall.Stat("/bin/sh", &st) == nil && st.Uid == 0 && st.Mode&0o022 == 0 {
		resolved, _ := filepath.EvalSymlinks("/bin/sh")
		if m := launch(Env{}).Files["/bin/sh"]; m != "system:"+resolved {
			t.Errorf("/bin/sh, a system file: %s", m)
		}
		if r := launch(Env{Root: true}); !strings.HasPrefix(r.Files["/bin/sh"], "sha256:") {
			t.Errorf("/bin/sh when mcptray runs as root: %s", r.Files["/bin/sh"])
		}
	}
	if os.Geteuid() == 0 { // a root-owned file is the user's once group or others may write it
		os.Chmod(conf, 0o664)
		if m := launch(Env{}).Files[conf]; !strings.HasPrefix(m, "sha256:") {
			t.Errorf("a group-writable root file: %s", m)
		}
		os.Chmod(conf, 0o644)
		if m := launch(Env{}).Files[conf]; !strings.HasPrefix(m, "system:") {
			t.Errorf("a root file writable by root alone: %s", m)
		}
		os.Chown(conf, 65534, 65534) // another user's file
		if m := launch(Env{}).Files[conf]; !strings.HasPrefix(m, "sha256:") {
			t.Errorf("a user's file: %s", m)
		}
	}

	// mcptray's own executable is not one of them: an upgrade of it asks nothing.
	if m := launch(Env{Self: "/bin/sh"}).Files; len(m) != 2 || m["/bin/sh"] != "" {
		t.Errorf("files with ${self} = /bin/sh: %v", m)
	}

	fp := l.Fingerprint()
	fi, _ := os.Stat(wrapper)
	os.WriteFile(wrapper, []byte("print('b')\n"), 0o755) // same size
	os.Chtimes(wrapper, fi.ModTime(), fi.ModTime())
	again := l.Rehash()
	if again.Fingerprint() == fp || again.FingerprintV1() != l.FingerprintV1() {
		t.Error("a rewritten wrapper keeps the fingerprint")
	}
	if ch := again.FileChanges(l.Files); !slices.Equal(ch, []string{wrapper}) {
		t.Errorf("file changes %v", ch)
	}
	if again.Rehash().Fingerprint() != again.Fingerprint() {
		t.Error("an unchanged file changes the fingerprint")
	}
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
