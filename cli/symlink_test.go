//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mcptray/mcptray/internal/testdaemon"
)

// startDaemonAt is startDaemon on a given config path (which the test has
// set up, a symlink maybe) and data dir.
func startDaemonAt(t *testing.T, config, data string) *instance {
	t.Helper()
	in := &instance{&testdaemon.Instance{T: t, Config: config, Data: data}}
	in.StartConfig(nil)
	return in
}

// repoint makes link point to target, atomically (a new link renamed over
// the old one), as dotfile managers re-point a config.
func repoint(t *testing.T, link, target string) {
	t.Helper()
	tmp := link + ".new"
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
}

func assertSymlink(t *testing.T, path, target string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a symlink: %v %v", path, fi, err)
	}
	if got, _ := os.Readlink(path); got != target {
		t.Fatalf("%s points to %q, want %q", path, got, target)
	}
}

var disabledKey = regexp.MustCompile(`"disabled":\s*true`)

// TestSymlinkedConfig: mcp.json as a symlink into a dotfiles folder (stow,
// chezmoi, home-manager). Edits to the target are applied, `toggle` through
// the link keeps it and is applied, a re-pointed link is followed, and so
// is a chain of two links, whichever of them changes.
func TestSymlinkedConfig(t *testing.T) {
	root := t.TempDir()
	mkdir := func(parts ...string) string {
		d := filepath.Join(append([]string{root}, parts...)...)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		return d
	}
	confDir := mkdir("home", ".config", "mcptray")
	dotA, dotB, stage, dotC, dotD := mkdir("dotfiles-a"), mkdir("dotfiles-b"), mkdir("stage"), mkdir("dotfiles-c"), mkdir("dotfiles-d")
	link := filepath.Join(confDir, "mcp.json")

	targetA := filepath.Join(dotA, "mcp.json")
	writeConfig(t, targetA, map[string]any{"echo": fakeEntry(t, "echo")})
	relA := "../../../dotfiles-a/mcp.json" // stow makes relative links
	if err := os.Symlink(relA, link); err != nil {
		t.Fatal(err)
	}
	in := startDaemonAt(t, link, filepath.Join(root, "data"))
	in.WaitFor("echo ready", states("echo", "ready"))

	// An edit of the target, in its own folder, is applied.
	writeConfig(t, targetA, map[string]any{"echo": fakeEntry(t, "echo"), "second": fakeEntry(t, "echo")})
	in.WaitFor("the target's edit applied (second ready)", states("echo", "ready", "second", "ready"))

	// toggle through the link writes the target, keeps the link, and the
	// daemon applies it.
	if code, out, errs := in.Run("toggle", "second", "off"); code != 0 {
		t.Fatalf("toggle second off: exit %d: %s %s", code, out, errs)
	}
	in.WaitFor("second disabled", states("second", "disabled", "echo", "ready"))
	assertSymlink(t, link, relA)
	if b, _ := os.ReadFile(targetA); !disabledKey.Match(b) {
		t.Errorf("the target was not rewritten:\n%s", b)
	}

	// Re-pointing the link to another target is followed.
	targetB := filepath.Join(dotB, "mcp.json")
	writeConfig(t, targetB, map[string]any{"third": fakeEntry(t, "echo")})
	repoint(t, link, targetB)
	in.WaitFor("the re-pointed link applied", func(st statusJSON) bool {
		return len(st.Servers) == 1 && states("third", "ready")(st)
	})
	// The old target's folder no longer matters.
	writeConfig(t, targetA, map[string]any{"stale": fakeEntry(t, "echo")})
	writeConfig(t, targetB, map[string]any{"third": fakeEntry(t, "echo"), "fourth": fakeEntry(t, "echo")})
	st := in.WaitFor("the new target's edit applied", states("third", "ready", "fourth", "ready"))
	if s, _ := state(st, "stale"); s != "" {
		t.Errorf("an edit of the old target was applied: %+v", st)
	}

	// A chain of two links: mcp.json → stage/mcp.json → dotfiles-c/mcp.json.
	middle := filepath.Join(stage, "mcp.json")
	targetC := filepath.Join(dotC, "mcp.json")
	writeConfig(t, targetC, map[string]any{"c1": fakeEntry(t, "echo")})
	if err := os.Symlink(targetC, middle); err != nil {
		t.Fatal(err)
	}
	repoint(t, link, middle)
	in.WaitFor("the chain applied", func(st statusJSON) bool { return len(st.Servers) == 1 && states("c1", "ready")(st) })
	writeConfig(t, targetC, map[string]any{"c1": fakeEntry(t, "echo"), "c2": fakeEntry(t, "echo")})
	in.WaitFor("the chain's target edit applied", states("c1", "ready", "c2", "ready"))

	// Re-pointing the middle link is followed too.
	targetD := filepath.Join(dotD, "mcp.json")
	writeConfig(t, targetD, map[string]any{"d1": fakeEntry(t, "echo")})
	repoint(t, middle, targetD)
	in.WaitFor("the re-pointed middle link applied", func(st statusJSON) bool { return len(st.Servers) == 1 && states("d1", "ready")(st) })

	// toggle through the chain keeps both links.
	if code, out, errs := in.Run("toggle", "d1", "off"); code != 0 {
		t.Fatalf("toggle d1 off: exit %d: %s %s", code, out, errs)
	}
	in.WaitFor("d1 disabled", states("d1", "disabled"))
	assertSymlink(t, link, middle)
	assertSymlink(t, middle, targetD)
	if b, _ := os.ReadFile(targetD); !disabledKey.Match(b) {
		t.Errorf("the chain's target was not rewritten:\n%s", b)
	}
	if st := in.Status(); st.ConfigError != "" {
		t.Errorf("config error: %q", st.ConfigError)
	}
}

// TestOfflineToggleKeepsTheLink: with no instance running, toggle through a
// link writes the target and leaves the link.
func TestOfflineToggleKeepsTheLink(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "dotfiles", "mcp.json")
	os.MkdirAll(filepath.Dir(target), 0o700)
	writeConfig(t, target, map[string]any{"a": map[string]any{"command": "x"}})
	link := filepath.Join(root, "mcp.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	if code, out, errs := cli(t, "toggle", "a", "off", "--data", data, "--config", link); code != 0 {
		t.Fatalf("offline toggle: exit %d %q %q", code, out, errs)
	}
	assertSymlink(t, link, target)
	if b, _ := os.ReadFile(target); !disabledKey.Match(b) {
		t.Errorf("the target was not rewritten:\n%s", b)
	}
}
