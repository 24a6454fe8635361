package config

import (
	"testing"
)

var fuzzSeeds = []string{
	messyConfig,
	defaultConfig,
	`{"mcpServers": {"a": {"command": "${FOO:-${userHome}}", "args": ["~/x", "${keyring:remote-token}"]}}}`,
	`{"servers": {"a": {"type": "http", "url": "https://h/mcp", "headers": {"A": "${input:notes-key}"}}}, "inputs": [{"id": "notes-key"}]}`,
	`{"mcpServers": {"a": {}, "b": "x", "": {"enabled": false}}}`,
	"{\r\n  \"mcpServers\": {\"a\": {\"disabled\": true, \"enabled\": false}},\r\n}",
	`{"a": [1, 2,], /* c */ "b": "//"}`,
	`{"mcpServers": {,}}`,
	`[`,
	``,
	"\uFEFF{}",
}

// FuzzParse: Parse never panics, and what it returns is usable.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, testEnv())
		if err != nil {
			if cfg != nil {
				t.Fatal("config returned with an error")
			}
			if _, ok := err.(*SyntaxError); !ok {
				t.Fatalf("error %T is not a *SyntaxError", err)
			}
			return
		}
		names := map[string]bool{}
		for _, s := range cfg.Servers {
			if names[s.Name] {
				t.Fatalf("name %q twice", s.Name)
			}
			names[s.Name] = true
			_ = s.Fingerprint()
			if s.Err != nil {
				assertNoSecret(t, s.Err.Error())
			} else if s.Type != TypeStdio && s.Type != TypeHTTP {
				t.Fatalf("type %q", s.Type)
			}
		}
	})
}

// FuzzSetDisabled: when the input parses, the result parses too and shows
// the new state for that server; nothing else changes state.
func FuzzSetDisabled(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), "a", true)
		f.Add([]byte(s), "ssh", false)
		f.Add([]byte(s), "notes", true)
	}
	f.Fuzz(func(t *testing.T, data []byte, name string, disabled bool) {
		out, err := SetDisabled(data, name, disabled)
		before, perr := Parse(data, testEnv())
		if perr != nil || err != nil {
			return
		}
		after, err := Parse(out, testEnv())
		if err != nil {
			t.Fatalf("result does not parse: %v\nin:  %q\nout: %q", err, data, out)
		}
		if len(after.Servers) != len(before.Servers) {
			t.Fatalf("%d servers became %d", len(before.Servers), len(after.Servers))
		}
		for i, b := range before.Servers {
			a := after.Servers[i]
			if a.Name != b.Name {
				t.Fatalf("server %d renamed %q → %q", i, b.Name, a.Name)
			}
			if a.Name == name {
				if a.Disabled != disabled {
					t.Fatalf("%q: Disabled = %v, want %v\nin:  %q\nout: %q", name, a.Disabled, disabled, data, out)
				}
				continue
			}
			if a.Disabled != b.Disabled || a.Fingerprint() != b.Fingerprint() {
				t.Fatalf("server %q changed\nin:  %q\nout: %q", a.Name, data, out)
			}
		}
	})
}
