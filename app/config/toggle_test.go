package config

import (
	"bytes"
	"strings"
	"testing"
)

func TestSetDisabled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		server   string
		disabled bool
		want     string
	}{
		{"replace disabled true with false",
			`{"mcpServers": {"a": {"command": "c", "disabled": true}}}`, "a", false,
			`{"mcpServers": {"a": {"command": "c", "disabled": false}}}`},
		{"replace disabled false with true",
			`{"mcpServers": {"a": {"command": "c", "disabled":false}}}`, "a", true,
			`{"mcpServers": {"a": {"command": "c", "disabled":true}}}`},
		{"disabled of the wrong type is fixed",
			`{"mcpServers": {"a": {"command": "c", "disabled": "yes"}}}`, "a", false,
			`{"mcpServers": {"a": {"command": "c", "disabled": false}}}`},
		{"enabled false is inverted",
			`{"mcpServers": {"a": {"enabled": false, "command": "c"}}}`, "a", false,
			`{"mcpServers": {"a": {"enabled": true, "command": "c"}}}`},
		{"enabled true is inverted",
			`{"mcpServers": {"a": {"enabled": true, "command": "c"}}}`, "a", true,
			`{"mcpServers": {"a": {"enabled": false, "command": "c"}}}`},
		{"enabling sets both keys when both say off",
			`{"mcpServers": {"a": {"disabled": false, "enabled": false}}}`, "a", false,
			`{"mcpServers": {"a": {"disabled": false, "enabled": true}}}`},
		{"disabling with both keys sets disabled only",
			`{"mcpServers": {"a": {"disabled": false, "enabled": true}}}`, "a", true,
			`{"mcpServers": {"a": {"disabled": true, "enabled": true}}}`},
		{"every repeated disabled key",
			`{"mcpServers": {"a": {"disabled": true, "command": "c", "disabled": true}}}`, "a", false,
			`{"mcpServers": {"a": {"disabled": false, "command": "c", "disabled": false}}}`},
		{"enabling with neither key changes nothing",
			"{\"mcpServers\": {\"a\": {\"command\": \"c\"}}} // keep\n", "a", false,
			"{\"mcpServers\": {\"a\": {\"command\": \"c\"}}} // keep\n"},
		{"already disabled",
			`{"mcpServers": {"a": {"command": "c", "disabled": true}}}`, "a", true,
			`{"mcpServers": {"a": {"command": "c", "disabled": true}}}`},
		{"insert, two-space indentation",
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"c\"\n    }\n  }\n}\n", "a", true,
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"disabled\": true,\n      \"command\": \"c\"\n    }\n  }\n}\n"},
		{"insert, odd indentation",
			"{\n \"mcpServers\": {\n   \"a\": {\n        \"command\": \"c\",\n  \"args\": []\n   }\n }\n}", "a", true,
			"{\n \"mcpServers\": {\n   \"a\": {\n        \"disabled\": true,\n        \"command\": \"c\",\n  \"args\": []\n   }\n }\n}"},
		{"insert, tabs",
			"{\n\t\"mcpServers\": {\n\t\t\"a\": {\n\t\t\t\"command\": \"c\"\n\t\t}\n\t}\n}", "a", true,
			"{\n\t\"mcpServers\": {\n\t\t\"a\": {\n\t\t\t\"disabled\": true,\n\t\t\t\"command\": \"c\"\n\t\t}\n\t}\n}"},
		{"insert, CRLF",
			"{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"command\": \"c\"\r\n    }\r\n  }\r\n}\r\n", "a", true,
			"{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"disabled\": true,\r\n      \"command\": \"c\"\r\n    }\r\n  }\r\n}\r\n"},
		{"insert, one-line object",
			`{"mcpServers": {"a": { "command": "c", "args": ["x"] }}}`, "a", true,
			`{"mcpServers": {"a": { "disabled": true, "command": "c", "args": ["x"] }}}`},
		{"insert, compact style",
			`{"mcpServers":{"a":{"command":"c"}}}`, "a", true,
			`{"mcpServers":{"a":{"disabled":true,"command":"c"}}}`},
		{"insert, first key on the brace line",
			"{\"mcpServers\": {\"a\": {\"command\": \"c\",\n                      \"args\": []}}}", "a", true,
			"{\"mcpServers\": {\"a\": {\"disabled\": true, \"command\": \"c\",\n                      \"args\": []}}}"},
		{"insert, empty object",
			`{"mcpServers": {"a": {}}}`, "a", true,
			`{"mcpServers": {"a": {"disabled": true}}}`},
		{"insert after a comment line, which stays with its entry",
			"{\n  \"mcpServers\": {\n    \"a\": { // the a server\n      // run by npx\n      \"command\": \"npx\"\n    }\n  }\n}", "a", true,
			"{\n  \"mcpServers\": {\n    \"a\": { // the a server\n      // run by npx\n      \"disabled\": true,\n      \"command\": \"npx\"\n    }\n  }\n}"},
		{"insert after a block comment on the key's line",
			"{\"mcpServers\": {\"a\": {\n  /* c */ \"command\": \"c\"\n}}}", "a", true,
			"{\"mcpServers\": {\"a\": {\n  /* c */ \"disabled\": true, \"command\": \"c\"\n}}}"},
		{"VS Code servers",
			"{\n\t\"servers\": {\n\t\t\"a\": {\"type\": \"http\", \"url\": \"https://h/mcp\"},\n\t},\n}", "a", true,
			"{\n\t\"servers\": {\n\t\t\"a\": {\"disabled\": true, \"type\": \"http\", \"url\": \"https://h/mcp\"},\n\t},\n}"},
		{"a name in both objects changes both",
			`{"mcpServers": {"a": {"command": "c"}}, "servers": {"a": {"command": "d", "disabled": false}}}`, "a", true,
			`{"mcpServers": {"a": {"disabled": true, "command": "c"}}, "servers": {"a": {"command": "d", "disabled": true}}}`},
		{"same key elsewhere is not a server",
			`{"inputs": [{"id": "a", "disabled": false}], "x-mcptray": {"a": {"disabled": false}}, "mcpServers": {"a": {"disabled": false}}}`, "a", true,
			`{"inputs": [{"id": "a", "disabled": false}], "x-mcptray": {"a": {"disabled": false}}, "mcpServers": {"a": {"disabled": true}}}`},
		{"nested objects named disabled are left alone",
			`{"mcpServers": {"a": {"x-mcptray": {"disabled": false}, "command": "c"}}}`, "a", true,
			`{"mcpServers": {"a": {"disabled": true, "x-mcptray": {"disabled": false}, "command": "c"}}}`},
		{"escaped name",
			`{"mcpServers": {"caf\u00e9": {"command": "c"}}}`, "café", true,
			`{"mcpServers": {"caf\u00e9": {"disabled": true, "command": "c"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetDisabled([]byte(tt.in), tt.server, tt.disabled)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
			cfg, err := Parse(got, testEnv())
			if err != nil {
				t.Fatalf("result does not parse: %v", err)
			}
			for _, s := range cfg.Servers {
				if s.Name == tt.server && s.Disabled != tt.disabled {
					t.Errorf("Parse says Disabled = %v, want %v", s.Disabled, tt.disabled)
				}
			}
		})
	}
}

func TestSetDisabledErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, server, want string
	}{
		{`{"mcpServers": {"a": {"command": "c"}}}`, "b", `no server named "b" in mcp.json`},
		{`{"mcpServers": {"a": {"command": "c"}}}`, "A", `no server named "A" in mcp.json`},
		{`{"inputs": [{"id": "b"}]}`, "b", `no server named "b" in mcp.json`},
		{`{"mcpServers": {"a": "text"}}`, "a", `server "a" in mcp.json is not an object`},
		{"{\n  \"mcpServers\": {\"a\": {\"command\" \"c\"}}\n}", "a", `mcp.json:2:34: invalid character '"' after object key`},
		{``, "a", `mcp.json is empty`},
		{`[]`, "a", `mcp.json:1:1: the top level must be an object { ... }, got array`},
		{`{"a": 1 /*`, "a", `mcp.json:1:9: comment /* is not closed`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			out, err := SetDisabled([]byte(tt.in), tt.server, true)
			if errText(err) != tt.want {
				t.Errorf("err = %s\nwant  %s", errText(err), tt.want)
			}
			if out != nil {
				t.Errorf("returned data with an error")
			}
		})
	}
}

// A file with comments, odd indentation, one-line objects and every way of
// saying disabled, for the round-trip tests.
const messyConfig = `// mcptray config, edited by hand
{
  "mcpServers": {
    /* built-in */
    "ssh":   { "command": "${self}", "args": ["serve", "ssh"] },
    "gmail": { "command": "${self}", "args": ["serve", "gmail"], "disabled": true },
      "notes": {
          // notes server
          "command": "npx",
          "args": ["-y", "some-server"],   // pinned
          "cwd": "~/notes",
      },
    "old": {"enabled": false, "command": "old"},
	"tabbed": {
		"command": "t"
	},
    "compact":{"command":"c","args":["1"]}
  },
  "servers": {"vs": {"type": "http", "url": "https://h/mcp"}},
  "x-mcptray": { "tools": "stable" }, // trailing comma next
}
`

// TestSetDisabledRoundTrip: toggling any entry off and on leaves the file
// parseable, shows the new state, never touches bytes outside the entry,
// and after on→off→on the file is stable.
func TestSetDisabledRoundTrip(t *testing.T) {
	t.Parallel()
	data := []byte(messyConfig)
	cfg, err := Parse(data, testEnv())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cfg.Servers {
		t.Run(s.Name, func(t *testing.T) {
			off, err := SetDisabled(data, s.Name, true)
			if err != nil {
				t.Fatal(err)
			}
			assertOnlyEntryChanged(t, data, off, s.Name)
			assertState(t, off, s.Name, true)

			on, err := SetDisabled(off, s.Name, false)
			if err != nil {
				t.Fatal(err)
			}
			assertOnlyEntryChanged(t, data, on, s.Name)
			assertState(t, on, s.Name, false)

			// Every other server kept its state.
			before, _ := Parse(data, testEnv())
			after, _ := Parse(on, testEnv())
			for i := range before.Servers {
				b, a := before.Servers[i], after.Servers[i]
				if b.Name != s.Name && (b.Disabled != a.Disabled || b.Fingerprint() != a.Fingerprint()) {
					t.Errorf("%s changed", b.Name)
				}
			}

			// Off and on again gives the same bytes: only the value flips.
			off2, _ := SetDisabled(on, s.Name, true)
			on2, _ := SetDisabled(off2, s.Name, false)
			if !bytes.Equal(on2, on) {
				t.Errorf("second round trip differs:\n%s\nvs\n%s", on2, on)
			}
			if again, _ := SetDisabled(off, s.Name, true); !bytes.Equal(again, off) {
				t.Errorf("disabling twice changed the file")
			}
		})
	}
}

// assertOnlyEntryChanged checks that got equals orig outside the entry
// named name: same prefix up to the entry's value, same suffix after it.
func assertOnlyEntryChanged(t *testing.T, orig, got []byte, name string) {
	t.Helper()
	i := bytes.Index(orig, []byte(`"`+name+`"`))
	if i < 0 {
		t.Fatalf("%s not found", name)
	}
	open := i + bytes.IndexByte(orig[i:], '{')
	text, _, _ := stripJSONC(orig)
	end := open + matchingBrace(text[open:])
	tail := orig[end:]
	if !bytes.HasPrefix(got, orig[:open+1]) || !bytes.HasSuffix(got, tail) {
		t.Errorf("bytes outside entry %s changed:\n%s", name, got)
	}
}

func matchingBrace(text []byte) int {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			i = skipString(text, i) - 1
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return len(text)
}

func assertState(t *testing.T, data []byte, name string, disabled bool) {
	t.Helper()
	cfg, err := Parse(data, testEnv())
	if err != nil {
		t.Fatalf("does not parse: %v\n%s", err, data)
	}
	for _, s := range cfg.Servers {
		if s.Name == name {
			if s.Disabled != disabled {
				t.Errorf("%s: Disabled = %v, want %v\n%s", name, s.Disabled, disabled, data)
			}
			return
		}
	}
	t.Errorf("%s gone", name)
}

// TestSetDisabledDefault toggles the first-run file and checks the exact
// result.
func TestSetDisabledDefault(t *testing.T) {
	t.Parallel()
	off, err := SetDisabled(Default(), "ssh", true)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(Default()), "\"ssh\": {\n", "\"ssh\": {\n      \"disabled\": true,\n", 1)
	if string(off) != want {
		t.Errorf("got\n%s\nwant\n%s", off, want)
	}
	on, err := SetDisabled(Default(), "gmail", false)
	if err != nil {
		t.Fatal(err)
	}
	assertState(t, on, "gmail", false)
	assertState(t, on, "gcal", true)
}
