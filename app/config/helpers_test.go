package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Values that stand for secrets: no error message may ever contain them.
const (
	secretVar   = "s3cret-env-value"
	secretToken = "tok-123-secret"
)

// testEnv is a fixed Env: a few variables, a home, a self path and a
// keyring with one entry ("broken" fails like a missing Secret Service).
func testEnv() Env {
	vars := map[string]string{
		"FOO":       "foo-value",
		"EMPTY":     "",
		"SECRET":    secretVar,
		"LINEBREAK": "a\r\nb",
	}
	keys := map[string]string{"remote-token": secretToken}
	return Env{
		Lookup: func(name string) (string, bool) { v, ok := vars[name]; return v, ok },
		Home:   "/home/u",
		Self:   "/opt/mcptray/mcptray",
		Keyring: func(name string) (string, error) {
			if name == "broken" {
				return "", errors.New("no Secret Service on the session bus")
			}
			v, ok := keys[name]
			if !ok {
				return "", ErrKeyringNotFound
			}
			return v, nil
		},
		Dir: "/cfg",
	}
}

// parseEntry parses a file holding entry as server "x" between two good
// servers, checks that the good ones are unaffected, and returns "x".
func parseEntry(t *testing.T, entry string, env Env) Server {
	t.Helper()
	data := fmt.Sprintf(`{
  "mcpServers": {
    "before": {"command": "before-cmd", "args": ["1"]},
    "x": %s,
    "after": {"url": "https://after.example/mcp"}
  },
  "inputs": [{"id": "notes-key", "type": "promptString", "password": true}]
}`, entry)
	cfg, err := Parse([]byte(data), env)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(cfg.Servers) != 3 {
		t.Fatalf("got %d servers, want 3", len(cfg.Servers))
	}
	before, x, after := cfg.Servers[0], cfg.Servers[1], cfg.Servers[2]
	if before.Name != "before" || before.Err != nil || before.Command != "before-cmd" || before.Type != TypeStdio {
		t.Errorf("the entry before x is affected: %+v", before)
	}
	if after.Name != "after" || after.Err != nil || after.URL != "https://after.example/mcp" || after.Type != TypeHTTP {
		t.Errorf("the entry after x is affected: %+v", after)
	}
	if x.Name != "x" {
		t.Fatalf("second server is %q, want x", x.Name)
	}
	return x
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// assertNoSecret fails when s holds one of the test secrets.
func assertNoSecret(t *testing.T, s string) {
	t.Helper()
	for _, secret := range []string{secretVar, secretToken} {
		if strings.Contains(s, secret) {
			t.Errorf("%q contains a secret value", s)
		}
	}
}
