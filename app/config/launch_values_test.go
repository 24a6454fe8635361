package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A changed env or header value is a changed launch; the launch keeps a
// keyed hash of each value, never the value; a rotated ${keyring:…} secret
// or a new value behind ${env:…} changes nothing; the prompt's lines show
// the new value of a variable known to load code, and only "value changed"
// for the others.
func TestLaunchValues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.env"), []byte("PYTHONPATH=/a\nTOKEN=file-secret\n"), 0o600)
	secret, outer := "ring-secret-1", "env-secret-1"
	env := Env{Dir: dir, LaunchKey: []byte("k1"),
		Lookup:  func(k string) (string, bool) { return outer, k == "OUTER" },
		Keyring: func(string) (string, error) { return secret, nil }}
	launch := func(entry string) Launch {
		t.Helper()
		cfg, err := Parse([]byte(`{"mcpServers": {"a": `+entry+`}}`), env)
		if err != nil || cfg.Servers[0].Err != nil {
			t.Fatal(err, cfg.Servers[0].Err)
		}
		return cfg.Servers[0].Launch
	}
	base := `{"command": "/bin/true", "env": {"NODE_OPTIONS": "--no-warnings", "API_KEY": "sk-literal-secret", "R": "${keyring:r}", "O": "${env:OUTER}"}, "envFile": "x.env"}`
	l := launch(base)
	fp := l.Fingerprint()
	for k, v := range l.Values {
		for _, s := range []string{"--no-warnings", "sk-literal-secret", "ring-secret-1", "env-secret-1", "file-secret"} {
			if strings.Contains(v, s) || strings.Contains(fp, s) {
				t.Errorf("%s keeps the value %s", k, s)
			}
		}
	}
	secret, outer = "ring-secret-2", "env-secret-2"
	if launch(base).Fingerprint() != fp {
		t.Error("a rotated keyring secret or a new ${env:…} value changed the fingerprint")
	}

	evil := launch(strings.Replace(base, "--no-warnings", "--require /tmp/evil.js", 1))
	if evil.Fingerprint() == fp || evil.FingerprintV1() != l.FingerprintV1() {
		t.Error("a new NODE_OPTIONS value: fingerprint unchanged, or the v1 fingerprint changed")
	}
	key := launch(strings.Replace(base, "sk-literal-secret", "sk-other", 1))
	if key.Fingerprint() == fp {
		t.Error("a new API_KEY value keeps the fingerprint")
	}
	os.WriteFile(filepath.Join(dir, "x.env"), []byte("PYTHONPATH=/evil\nTOKEN=file-secret\n"), 0o600)
	file := launch(base)
	os.WriteFile(filepath.Join(dir, "x.env"), []byte("PYTHONPATH=/a\nTOKEN=file-secret\n"), 0o600)
	if file.Fingerprint() == fp {
		t.Error("a new value in the envFile keeps the fingerprint")
	}

	var lines []string
	for _, c := range evil.ValueChanges(l.Values) {
		lines = append(lines, c.String())
	}
	for _, c := range key.ValueChanges(l.Values) {
		lines = append(lines, c.String())
	}
	for _, c := range file.ValueChanges(l.Values) {
		lines = append(lines, c.String())
	}
	want := []string{"NODE_OPTIONS: --require /tmp/evil.js", "API_KEY: value changed", "PYTHONPATH: /evil"}
	if !slices.Equal(lines, want) {
		t.Errorf("changes %q, want %q", lines, want)
	}

	// Another install's key: other hashes.
	env.LaunchKey = []byte("k2")
	if launch(base).Fingerprint() == fp {
		t.Error("the fingerprint does not depend on the install's key")
	}

	h1 := launch(`{"url": "https://h/mcp", "headers": {"Authorization": "Bearer a"}}`)
	h2 := launch(`{"url": "https://h/mcp", "headers": {"Authorization": "Bearer b"}}`)
	if h1.Fingerprint() == h2.Fingerprint() {
		t.Error("a new header value keeps the fingerprint")
	}
	if c := h2.ValueChanges(h1.Values); len(c) != 1 || c[0].String() != "Authorization: value changed" {
		t.Errorf("header changes %v", c)
	}
}
