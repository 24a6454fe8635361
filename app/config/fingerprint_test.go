package config

import (
	"strings"
	"testing"
)

func fingerprintOf(t *testing.T, data string, env Env) string {
	t.Helper()
	cfg, err := Parse([]byte(data), env)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 1 {
		t.Fatalf("got %d servers", len(cfg.Servers))
	}
	return cfg.Servers[0].Fingerprint()
}

// TestFingerprintStable: edits that do not change the effective spec keep
// the fingerprint.
func TestFingerprintStable(t *testing.T) {
	t.Parallel()
	base := `{"mcpServers": {"a": {"command": "c", "args": ["x", "y"], "env": {"A": "1", "B": "2"}, "x-mcptray": {"k": [1, 2]}}}}`
	want := fingerprintOf(t, base, testEnv())
	same := []string{
		// reformatted, comments added, keys reordered
		"{\n  // note\n  \"mcpServers\": {\n    \"a\": {\n      \"x-mcptray\": { \"k\": [ 1, 2 ] /* c */ },\n      \"env\": {\"B\": \"2\", \"A\": \"1\"},\n      \"args\": [\"x\", \"y\"],\n      \"command\": \"c\",\n    },\n  },\n}",
		// renamed, disabled, unknown fields added
		`{"mcpServers": {"b": {"command": "c", "args": ["x", "y"], "env": {"A": "1", "B": "2"}, "x-mcptray": {"k": [1, 2]}, "disabled": true, "note": "hi"}}}`,
		// the same values through variables and the type written out
		`{"mcpServers": {"a": {"type": "stdio", "command": "${C:-c}", "args": ["${X:-x}", "y"], "env": {"A": "${ONE:-1}", "B": "2"}, "x-mcptray": {"k": [1, 2]}}}}`,
		// VS Code's object
		`{"servers": {"a": {"command": "c", "args": ["x", "y"], "env": {"A": "1", "B": "2"}, "x-mcptray": {"k": [1, 2]}}}}`,
	}
	for _, data := range same {
		if got := fingerprintOf(t, data, testEnv()); got != want {
			t.Errorf("fingerprint changed for\n%s", data)
		}
	}
	if fingerprintOf(t, base, testEnv()) != want {
		t.Error("fingerprint is not deterministic")
	}
	// An empty list or map is the same as none.
	if fingerprintOf(t, `{"mcpServers": {"a": {"command": "c", "args": [], "env": {}}}}`, testEnv()) !=
		fingerprintOf(t, `{"mcpServers": {"a": {"command": "c"}}}`, testEnv()) {
		t.Error("empty args/env change the fingerprint")
	}
}

// TestFingerprintSensitive: every part of the effective spec counts.
func TestFingerprintSensitive(t *testing.T) {
	t.Parallel()
	stdio := `{"mcpServers": {"a": {"command": "c", "args": ["x"], "env": {"A": "1"}, "cwd": "/w"}}}`
	http := `{"mcpServers": {"a": {"url": "https://h/mcp", "headers": {"H": "1"}}}}`
	tests := []struct{ base, changed string }{
		{stdio, `{"mcpServers": {"a": {"command": "d", "args": ["x"], "env": {"A": "1"}, "cwd": "/w"}}}`},
		{stdio, `{"mcpServers": {"a": {"command": "c", "args": ["x", ""], "env": {"A": "1"}, "cwd": "/w"}}}`},
		{stdio, `{"mcpServers": {"a": {"command": "c", "args": ["X"], "env": {"A": "1"}, "cwd": "/w"}}}`},
		{stdio, `{"mcpServers": {"a": {"command": "c", "args": ["x"], "env": {"A": "2"}, "cwd": "/w"}}}`},
		{stdio, `{"mcpServers": {"a": {"command": "c", "args": ["x"], "env": {"B": "1"}, "cwd": "/w"}}}`},
		{stdio, `{"mcpServers": {"a": {"command": "c", "args": ["x"], "env": {"A": "1"}, "cwd": "/v"}}}`},
		{stdio, `{"mcpServers": {"a": {"command": "c", "args": ["x"], "env": {"A": "1"}, "cwd": "/w", "x-mcptray": {"k": 1}}}}`},
		{stdio, `{"mcpServers": {"a": {"command": "c", "args": ["x"], "env": {"A": "1"}, "cwd": "${NOPE}"}}}`},
		{http, `{"mcpServers": {"a": {"url": "https://h/mcp2", "headers": {"H": "1"}}}}`},
		{http, `{"mcpServers": {"a": {"url": "https://h/mcp", "headers": {"H": "2"}}}}`},
		{http, `{"mcpServers": {"a": {"url": "https://h/mcp"}}}`},
		// args and env cannot be confused with one another
		{`{"mcpServers": {"a": {"command": "c", "args": ["A", "1"]}}}`, `{"mcpServers": {"a": {"command": "c", "env": {"A": "1"}}}}`},
		{`{"mcpServers": {"a": {"command": "c", "args": ["ab"]}}}`, `{"mcpServers": {"a": {"command": "c", "args": ["a", "b"]}}}`},
	}
	for _, tt := range tests {
		if fingerprintOf(t, tt.base, testEnv()) == fingerprintOf(t, tt.changed, testEnv()) {
			t.Errorf("same fingerprint for\n%s\n%s", tt.base, tt.changed)
		}
	}

	// A resolved value that changes (a variable, a keyring entry) counts.
	data := `{"mcpServers": {"a": {"url": "https://h/mcp", "headers": {"A": "${keyring:remote-token}", "B": "${FOO}"}}}}`
	before := fingerprintOf(t, data, testEnv())
	env := testEnv()
	env.Keyring = func(string) (string, error) { return "rotated", nil }
	if fingerprintOf(t, data, env) == before {
		t.Error("a new keyring value keeps the fingerprint")
	}
	env = testEnv()
	inner := env.Lookup
	env.Lookup = func(n string) (string, bool) {
		if n == "FOO" {
			return "other", true
		}
		return inner(n)
	}
	if fingerprintOf(t, data, env) == before {
		t.Error("a new variable value keeps the fingerprint")
	}
}

// TestFingerprintRefused: a refused entry fingerprints its reason.
func TestFingerprintRefused(t *testing.T) {
	t.Parallel()
	a := fingerprintOf(t, `{"mcpServers": {"a": {"command": "${NOPE}"}}}`, testEnv())
	b := fingerprintOf(t, `{"mcpServers": {"a": {"command": "${NOPE}", "args": ["changed"]}}}`, testEnv())
	c := fingerprintOf(t, `{"mcpServers": {"a": {"command": "${OTHER}"}}}`, testEnv())
	if a != b {
		t.Error("same reason, different fingerprint")
	}
	if a == c {
		t.Error("different reasons, same fingerprint")
	}
	if len(a) != 32 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Errorf("fingerprint %q is not 32 hex digits", a)
	}
	if (Server{}).Fingerprint() == "" {
		t.Error("zero Server has no fingerprint")
	}
}
