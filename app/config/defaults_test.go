package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefault(t *testing.T) {
	t.Parallel()
	data := Default()
	cfg, err := Parse(data, testEnv())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name     string
		disabled bool
	}{{"ssh", false}, {"gcal", true}, {"gmail", true}}
	if len(cfg.Servers) != len(want) {
		t.Fatalf("got %d servers", len(cfg.Servers))
	}
	for i, w := range want {
		s := cfg.Servers[i]
		if s.Name != w.name || s.Disabled != w.disabled || s.Err != nil {
			t.Errorf("server %d = %+v, want %s disabled=%v", i, s, w.name, w.disabled)
		}
		if s.Command != "/opt/mcptray/mcptray" || !equalStrings(s.Args, []string{"serve", w.name}) || s.Type != TypeStdio {
			t.Errorf("%s runs %q %q", s.Name, s.Command, s.Args)
		}
	}
	if cfg.Settings.Listen != DefaultListen || cfg.Settings.Tools != DefaultTools {
		t.Errorf("Settings = %+v", cfg.Settings)
	}
	if !bytes.HasSuffix(data, []byte("}\n")) {
		t.Error("no trailing newline")
	}
	for i, line := range strings.Split(string(data), "\n") {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if strings.Contains(line, "\t") || indent%2 != 0 {
			t.Errorf("line %d is not indented with 2 spaces: %q", i+1, line)
		}
	}
	// Default returns a fresh copy each time.
	data[0] = 'X'
	if Default()[0] != '{' {
		t.Error("Default shares its bytes")
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("MCPTRAY_CONFIG", "/somewhere/my.json")
	if p, err := DefaultPath(); err != nil || p != "/somewhere/my.json" {
		t.Errorf("DefaultPath() = %q, %v", p, err)
	}
	t.Setenv("MCPTRAY_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	if p, err := DefaultPath(); err != nil || p != "/xdg/mcptray/mcp.json" {
		t.Errorf("DefaultPath() = %q, %v", p, err)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "")
	if _, err := DefaultPath(); err == nil || !strings.HasPrefix(err.Error(), "finding the config directory: ") {
		t.Errorf("err = %v", err)
	}
}

func TestEnsureDefault(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "conf", "mcptray")
	path := filepath.Join(dir, "mcp.json")
	created, err := EnsureDefault(path)
	if err != nil || !created {
		t.Fatalf("EnsureDefault = %v, %v", created, err)
	}
	assertFile(t, path, string(Default()), 0o600)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v, %v", fi.Mode().Perm(), err)
	}

	// An existing file is left alone.
	if err := os.WriteFile(path, []byte("{} // mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	created, err = EnsureDefault(path)
	if err != nil || created {
		t.Errorf("second EnsureDefault = %v, %v", created, err)
	}
	assertFile(t, path, "{} // mine", 0o600)

	// A directory that cannot be made.
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = EnsureDefault(filepath.Join(blocker, "mcp.json"))
	if err == nil || !strings.HasPrefix(err.Error(), "checking ") {
		t.Errorf("err = %v", err)
	}
	_, err = EnsureDefault(filepath.Join(blocker+"-dir", "sub", "mcp.json"))
	if err != nil {
		t.Errorf("nested dirs: %v", err)
	}
}

func TestSystemEnv(t *testing.T) {
	t.Setenv("MCPTRAY_TEST_VAR", "v")
	env := SystemEnv()
	if v, ok := env.Lookup("MCPTRAY_TEST_VAR"); !ok || v != "v" {
		t.Errorf("Lookup = %q, %v", v, ok)
	}
	if !filepath.IsAbs(env.Self) || env.Home == "" {
		t.Errorf("env = %+v", env)
	}
}
