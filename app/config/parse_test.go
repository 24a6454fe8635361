package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestParseDesignExample parses the example of DESIGN.md section 4.
func TestParseDesignExample(t *testing.T) {
	t.Parallel()
	data := `{
  "mcpServers": {
    "ssh":   { "command": "${self}", "args": ["serve", "ssh"] },
    "gmail": { "command": "${self}", "args": ["serve", "gmail"], "disabled": true },
    "notes": { "command": "npx", "args": ["-y", "some-server"],
               "env": { "API_KEY": "${input:notes-key}" }, "cwd": "~/notes" },
    "remote": { "type": "http", "url": "https://example/mcp",
                "headers": { "Authorization": "Bearer ${keyring:remote-token}" } }
  },
  "inputs": [ { "id": "notes-key", "type": "promptString",
                "description": "Notes API key", "password": true } ],
  "x-mcptray": { "listen": "127.0.0.1:0", "tools": "live" }
}`
	cfg, err := Parse([]byte(data), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	want := []Server{
		{Name: "ssh", Type: "stdio", Command: "/opt/mcptray/mcptray", Args: []string{"serve", "ssh"}},
		{Name: "gmail", Type: "stdio", Command: "/opt/mcptray/mcptray", Args: []string{"serve", "gmail"}, Disabled: true},
		{Name: "notes", Type: "stdio", Err: errString("notes: ${input:notes-key} cannot be asked for here (no inbox)")},
		{Name: "remote", Type: "http", URL: "https://example/mcp", Headers: map[string]string{"Authorization": "Bearer " + secretToken}},
	}
	if len(cfg.Servers) != len(want) {
		t.Fatalf("got %d servers, want %d", len(cfg.Servers), len(want))
	}
	for i, w := range want {
		g := cfg.Servers[i]
		if errText(g.Err) != errText(w.Err) {
			t.Errorf("%s: Err = %s, want %s", w.Name, errText(g.Err), errText(w.Err))
		}
		g.Err, w.Err = nil, nil
		g.Launch = Launch{} // TestLaunch
		if !reflect.DeepEqual(g, w) {
			t.Errorf("server %d =\n %+v\nwant\n %+v", i, g, w)
		}
	}
	wantInputs := []Input{{ID: "notes-key", Type: "promptString", Description: "Notes API key", Password: true}}
	if !reflect.DeepEqual(cfg.Inputs, wantInputs) {
		t.Errorf("Inputs = %+v", cfg.Inputs)
	}
	s := cfg.Settings
	if s.Listen != "127.0.0.1:0" || s.Tools != "live" || s.Elicitation != "auto" {
		t.Errorf("Settings = %+v", s)
	}
	if string(s.Raw["listen"]) != `"127.0.0.1:0"` || string(s.Raw["tools"]) != `"live"` || len(s.Raw) != 2 {
		t.Errorf("Settings.Raw = %q", s.Raw)
	}
}

// TestParseEntryErrors: every bad entry is refused with the reason a person
// reads, and the entries around it are fine (parseEntry checks them).
func TestParseEntryErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entry, wantErr string
	}{
		{`"just a string"`, `x: must be an object, got string`},
		{`["command"]`, `x: must be an object, got array`},
		{`null`, `x: must be an object, got null`},
		{`{}`, `x: needs "command" (stdio) or "url" (http)`},
		{`{"args": ["a"], "env": {}}`, `x: needs "command" (stdio) or "url" (http)`},
		{`{"command": ""}`, `x: needs "command" (stdio) or "url" (http)`},
		{`{"command": "c", "url": "https://h/mcp"}`, `x: has both "command" and "url"; keep one`},
		{`{"type": "stdio", "url": "https://h/mcp"}`, `x: type "stdio" takes "command", not "url"`},
		{`{"type": "stdio"}`, `x: type "stdio" needs "command"`},
		{`{"type": "http", "command": "c"}`, `x: type "http" takes "url", not "command"`},
		{`{"type": "sse"}`, `x: type "sse" needs "url"`},
		{`{"type": "ws", "url": "ws://h/mcp"}`, `x: unknown type "ws" (want "stdio" or "http")`},
		{`{"type": 1, "command": "c"}`, `x: "type" must be a string, got number`},
		{`{"command": 5}`, `x: "command" must be a string, got number`},
		{`{"command": ["npx", "-y"]}`, `x: "command" must be a string, got array`},
		{`{"command": "c", "args": "-y pkg"}`, `x: "args" must be an array of strings, got string`},
		{`{"command": "c", "args": ["a", "b", 3]}`, `x: args[2] must be a string, got number`},
		{`{"command": "c", "args": [null]}`, `x: args[0] must be a string, got null`},
		{`{"command": "c", "env": ["A=1"]}`, `x: "env" must be an object, got array`},
		{`{"command": "c", "env": {"A": 1}}`, `x: env.A must be a string, got number`},
		{`{"command": "c", "env": {"A": null}}`, `x: env.A must be a string, got null`},
		{`{"command": "c", "env": {"": "v"}}`, `x: env name "" is not valid`},
		{`{"command": "c", "env": {"A=B": "v"}}`, `x: env name "A=B" is not valid`},
		{`{"command": "c", "envFile": 3}`, `x: "envFile" must be a string, got number`},
		{`{"command": "c", "cwd": null}`, `x: "cwd" must be a string, got null`},
		{`{"command": "${EMPTY}"}`, `x: "command" is empty once its variables are resolved`},
		{`{"url": 1}`, `x: "url" must be a string, got number`},
		{`{"url": "ftp://h/mcp"}`, `x: "url" must start with http:// or https://`},
		{`{"url": "example.com/mcp"}`, `x: "url" must start with http:// or https://`},
		{`{"url": "http://"}`, `x: "url" has no host`},
		{`{"url": "http://[::1/mcp"}`, `x: "url" is not a valid URL`},
		{`{"url": "https://h/mcp", "headers": "Authorization: x"}`, `x: "headers" must be an object, got string`},
		{`{"url": "https://h/mcp", "headers": {"Authorization": true}}`, `x: headers.Authorization must be a string, got boolean`},
		{`{"url": "https://h/mcp", "headers": {"Bad Name": "v"}}`, `x: header name "Bad Name" is not valid`},
		{`{"url": "https://h/mcp", "headers": {"X": "${LINEBREAK}"}}`, `x: headers.X contains a line break or a NUL byte`},
		{`{"command": "c", "disabled": "yes"}`, `x: "disabled" must be true or false, got string`},
		{`{"command": "c", "enabled": 0}`, `x: "enabled" must be true or false, got number`},
		{`{"command": "c", "x-mcptray": []}`, `x: "x-mcptray" must be an object, got array`},
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			s := parseEntry(t, tt.entry, testEnv())
			if got := errText(s.Err); got != tt.wantErr {
				t.Errorf("Err = %s\nwant  %s", got, tt.wantErr)
			}
		})
	}
}

// TestParseEntryFine: shapes that are accepted.
func TestParseEntryFine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entry    string
		wantType string
	}{
		{`{"command": "c"}`, "stdio"},
		{`{"type": "stdio", "command": "c"}`, "stdio"},
		{`{"url": "http://127.0.0.1:8080/mcp"}`, "http"},
		{`{"type": "http", "url": "https://h/mcp"}`, "http"},
		{`{"type": "sse", "url": "https://h/sse"}`, "http"},
		{`{"type": "streamable-http", "url": "https://h/mcp"}`, "http"},
		{`{"type": "streamableHttp", "url": "https://h/mcp"}`, "http"},
		{`{"type": "HTTP", "url": "HTTPS://h/mcp"}`, "http"},
		{`{"command": "c", "url": ""}`, "stdio"},
		{`{"command": "c", "unknown": {"kept": [1, 2]}, "alwaysAllow": ["x"], "timeout": 60}`, "stdio"},
		{`{"command": "c", "args": [], "env": {}, "headers": {"X": 1}}`, "stdio"}, // headers type-checked...
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			s := parseEntry(t, tt.entry, testEnv())
			if tt.entry == `{"command": "c", "args": [], "env": {}, "headers": {"X": 1}}` {
				// ...even on a stdio entry, where they are not used.
				if want := "x: headers.X must be a string, got number"; errText(s.Err) != want {
					t.Errorf("Err = %s, want %s", errText(s.Err), want)
				}
				return
			}
			if s.Err != nil {
				t.Fatalf("Err = %v", s.Err)
			}
			if s.Type != tt.wantType {
				t.Errorf("Type = %q, want %q", s.Type, tt.wantType)
			}
		})
	}
}

func TestParseEmptyName(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]byte(`{"mcpServers": {"": {"command": "c"}, "good": {"command": "g"}}}`), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	if got := errText(cfg.Servers[0].Err); got != "a server has an empty name" {
		t.Errorf("Err = %s", got)
	}
	if g := cfg.Servers[1]; g.Name != "good" || g.Err != nil {
		t.Errorf("good = %+v", g)
	}
}

// TestParseNames: any non-empty string is a name, escapes decoded.
func TestParseNames(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]byte(`{"mcpServers": {
      "with space/and:colon": {"command": "c"},
      "caf\u00e9 \"q\"": {"command": "c"},
      "日本": {"command": "c"}}}`), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cfg.Servers {
		if s.Err != nil {
			t.Errorf("%s: %v", s.Name, s.Err)
		}
		names = append(names, s.Name)
	}
	if want := []string{"with space/and:colon", `café "q"`, "日本"}; !equalStrings(names, want) {
		t.Errorf("names = %q, want %q", names, want)
	}
}

func TestParseDisabled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		entry string
		want  bool
	}{
		{`{"command": "c"}`, false},
		{`{"command": "c", "disabled": true}`, true},
		{`{"command": "c", "disabled": false}`, false},
		{`{"command": "c", "enabled": false}`, true},
		{`{"command": "c", "enabled": true}`, false},
		{`{"command": "c", "disabled": false, "enabled": false}`, true},
		{`{"command": "c", "disabled": true, "enabled": true}`, true},
		{`{"command": "c", "disabled": true, "disabled": false}`, false}, // the last one wins, as in encoding/json
		// A refused entry still says whether it is disabled.
		{`{"command": "${NOPE}", "disabled": true}`, true},
		{`{"disabled": true}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			if s := parseEntry(t, tt.entry, testEnv()); s.Disabled != tt.want {
				t.Errorf("Disabled = %v, want %v (Err %v)", s.Disabled, tt.want, s.Err)
			}
		})
	}
}

// TestParseOrder: servers come in file order, not map order, across both
// objects.
func TestParseOrder(t *testing.T) {
	t.Parallel()
	data := `{
  "servers": {"zeta": {"command": "c"}, "alpha": {"command": "c"}},
  "inputs": [],
  "mcpServers": {"mu": {"command": "c"}, "beta": {"command": "c"}, "omega": {"url": "http://h/"},
                 "a": {"command": "c"}, "kappa": {"command": "c"}, "b": {"command": "c"}}
}`
	cfg, err := Parse([]byte(data), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
	}
	if want := []string{"zeta", "alpha", "mu", "beta", "omega", "a", "kappa", "b"}; !equalStrings(names, want) {
		t.Errorf("order = %q, want %q", names, want)
	}
}

func TestParseDuplicates(t *testing.T) {
	t.Parallel()
	data := `{
  "mcpServers": {"ssh": {"command": "a"}, "twice": {"command": "a"}, "ok": {"command": "a"}, "twice": {"command": "b"}},
  "servers": {"ssh": {"command": "b"}, "vs": {"url": "https://h/mcp"}}
}`
	cfg, err := Parse([]byte(data), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, err string }{
		{"ssh", `ssh: defined in both "mcpServers" and "servers"`},
		{"twice", `twice: defined twice in "mcpServers"`},
		{"ok", "<nil>"},
		{"vs", "<nil>"},
	}
	if len(cfg.Servers) != len(want) {
		t.Fatalf("got %d servers, want %d: %+v", len(cfg.Servers), len(want), cfg.Servers)
	}
	for i, w := range want {
		if s := cfg.Servers[i]; s.Name != w.name || errText(s.Err) != w.err {
			t.Errorf("server %d = %s (%s), want %s (%s)", i, s.Name, errText(s.Err), w.name, w.err)
		}
	}
}

// TestParseVSCodeShape reads VS Code's "servers" and "inputs".
func TestParseVSCodeShape(t *testing.T) {
	t.Parallel()
	data := `{
	// VS Code's .vscode/mcp.json
	"inputs": [
		{"type": "promptString", "id": "api-key", "description": "API key", "password": true},
		{"type": "pickString", "id": "region", "description": "Region", "options": ["eu", {"label": "United States", "value": "us"}], "default": "eu"},
	],
	"servers": {
		"fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "envFile": "${workspaceFolder}/.env"},
		"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
		"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"KEY": "${input:api-key}"}},
	},
}`
	cfg, err := Parse([]byte(data), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	wantInputs := []Input{
		{ID: "api-key", Type: "promptString", Description: "API key", Password: true},
		{ID: "region", Type: "pickString", Description: "Region", Default: "eu", Options: []string{"eu", "us"}},
	}
	if !reflect.DeepEqual(cfg.Inputs, wantInputs) {
		t.Errorf("Inputs = %+v\nwant %+v", cfg.Inputs, wantInputs)
	}
	want := []struct{ name, typ, err string }{
		{"fetch", "stdio", "fetch: ${workspaceFolder} is not supported outside VS Code"},
		{"github", "http", "<nil>"},
		{"memory", "stdio", "memory: ${input:api-key} cannot be asked for here (no inbox)"},
	}
	for i, w := range want {
		s := cfg.Servers[i]
		if s.Name != w.name || s.Type != w.typ || errText(s.Err) != w.err {
			t.Errorf("server %d = %s %s (%s), want %s %s (%s)", i, s.Name, s.Type, errText(s.Err), w.name, w.typ, w.err)
		}
	}
}

func TestParseSettings(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]byte(`{"mcpServers": {}}`), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Settings; s.Listen != "127.0.0.1:7823" || s.Tools != "live" || s.Elicitation != "auto" || s.Raw != nil {
		t.Errorf("defaults = %+v", s)
	}
	if len(cfg.Servers) != 0 {
		t.Errorf("Servers = %+v", cfg.Servers)
	}

	cfg, err = Parse([]byte(`{"x-mcptray": {
      "listen": "127.0.0.1:7777", "tools": "stable", "elicitation": "local",
      "future": {"a": [1, 2] /* note */ }}}`), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]time.Duration{`"90s"`: 90 * time.Second, `30`: 30 * time.Second, `0.5`: 500 * time.Millisecond} {
		c, err := Parse([]byte(`{"x-mcptray": {"callTimeout": `+in+`}}`), testEnv())
		if err != nil || c.Settings.CallTimeout != want {
			t.Errorf("callTimeout %s = %v, %v; want %s", in, c.Settings.CallTimeout, err, want)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Settings
	if s.Listen != "127.0.0.1:7777" || s.Tools != "stable" || s.Elicitation != "local" || s.CallTimeout != DefaultCallTimeout {
		t.Errorf("Settings = %+v", s)
	}
	if string(s.Raw["future"]) != `{"a":[1,2]}` || len(s.Raw) != 4 {
		t.Errorf("Raw = %q", s.Raw)
	}

	cfg, err = Parse([]byte(`{"mcpServers": {"x": {"command": "c", "x-mcptray": {"tools": "dynamic", "n": 1}}}}`), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Servers[0].Settings; string(got["tools"]) != `"dynamic"` || string(got["n"]) != "1" || len(got) != 2 {
		t.Errorf("per-entry Settings = %q", got)
	}
}

// TestParseFileErrors: the shapes that make the whole file unusable.
func TestParseFileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data, want string
	}{
		{``, `mcp.json is empty`},
		{" \n\t\r\n", `mcp.json is empty`},
		{"// only a comment\n/* and another */", `mcp.json is empty`},
		{`[1, 2]`, `mcp.json:1:1: the top level must be an object { ... }, got array`},
		{`  "text"`, `mcp.json:1:3: the top level must be an object { ... }, got string`},
		{`null`, `mcp.json:1:1: the top level must be an object { ... }, got null`},
		{"{\n  \"mcpServers\": []\n}", `mcp.json:2:17: "mcpServers" must be an object, got array`},
		{"{\n  \"servers\": \"x\"\n}", `mcp.json:2:14: "servers" must be an object, got string`},
		{`{"inputs": {}}`, `mcp.json:1:12: "inputs" must be an array, got object`},
		{`{"inputs": ["x"]}`, `mcp.json:1:13: inputs[0] must be an object, got string`},
		{`{"inputs": [{"type": "promptString"}]}`, `mcp.json:1:13: inputs[0]: "id" must be a non-empty string`},
		{`{"inputs": [{"id": ""}]}`, `mcp.json:1:13: inputs[0]: "id" must be a non-empty string`},
		{`{"inputs": [{"id": "a"}, {"id": "a"}]}`, `mcp.json:1:33: inputs[1]: id "a" is used twice`},
		{`{"inputs": [{"id": "a", "password": "yes"}]}`, `mcp.json:1:37: inputs[0].password must be true or false, got string`},
		{`{"inputs": [{"id": "a", "description": 1}]}`, `mcp.json:1:40: inputs[0].description must be a string, got number`},
		{`{"inputs": [{"id": "a", "options": "x"}]}`, `mcp.json:1:36: inputs[0].options must be an array, got string`},
		{`{"inputs": [{"id": "a", "options": [1]}]}`, `mcp.json:1:37: inputs[0].options[0] must be a string or {"label", "value"}, got number`},
		{`{"x-mcptray": []}`, `mcp.json:1:15: "x-mcptray" must be an object, got array`},
		{`{"x-mcptray": {"tools": "all"}}`, `mcp.json:1:25: x-mcptray.tools must be "live", "stable" or "dynamic", got "all"`},
		{`{"x-mcptray": {"tools": 1}}`, `mcp.json:1:25: x-mcptray.tools must be a string, got number`},
		{`{"x-mcptray": {"elicitation": "remote"}}`, `mcp.json:1:31: x-mcptray.elicitation must be "auto" or "local", got "remote"`},
		{`{"x-mcptray": {"listen": "8080"}}`, `mcp.json:1:26: x-mcptray.listen must be host:port, like "127.0.0.1:7823", got "8080"`},
		{`{"x-mcptray": {"listen": "0.0.0.0:8080"}}`, `mcp.json:1:26: x-mcptray.listen must be a loopback address (127.0.0.1, [::1] or localhost), got "0.0.0.0:8080"`},
		{`{"x-mcptray": {"listen": "example.com:80"}}`, `mcp.json:1:26: x-mcptray.listen must be a loopback address (127.0.0.1, [::1] or localhost), got "example.com:80"`},
		{`{"x-mcptray": {"callTimeout": "soon"}}`, `mcp.json:1:31: x-mcptray.callTimeout must be a duration like "90s" or "5m", got "soon"`},
		{`{"x-mcptray": {"callTimeout": -3}}`, `mcp.json:1:31: x-mcptray.callTimeout must be positive`},
		{`{"x-mcptray": {"callTimeout": true}}`, `mcp.json:1:31: x-mcptray.callTimeout must be a duration string or a number of seconds, got boolean`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.data), testEnv())
			if cfg != nil {
				t.Errorf("Parse returned a config with an error")
			}
			if errText(err) != tt.want {
				t.Errorf("err = %s\nwant  %s", errText(err), tt.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("err is %T, want *SyntaxError", err)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(filepath.Join(dir, "notes.env"), []byte("TOKEN=from-file\nOTHER=o\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := `{"mcpServers": {
      "notes": {"command": "c", "cwd": "work", "envFile": "notes.env", "env": {"OTHER": "from-env"}},
      "abs": {"command": "c", "cwd": "/srv"},
      "missing": {"command": "c", "envFile": "~/nope.env"}}}`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Dir = ""
	cfg, err := Load(path, env)
	if err != nil {
		t.Fatal(err)
	}
	notes := cfg.Servers[0]
	if notes.Err != nil {
		t.Fatal(notes.Err)
	}
	if notes.Cwd != filepath.Join(dir, "work") {
		t.Errorf("Cwd = %q, want it under %s", notes.Cwd, dir)
	}
	if want := map[string]string{"TOKEN": "from-file", "OTHER": "from-env"}; !reflect.DeepEqual(notes.Env, want) {
		t.Errorf("Env = %q, want %q", notes.Env, want)
	}
	if cfg.Servers[1].Cwd != "/srv" {
		t.Errorf("absolute Cwd = %q", cfg.Servers[1].Cwd)
	}
	if got, want := errText(cfg.Servers[2].Err), `missing: envFile "~/nope.env" not found`; got != want {
		t.Errorf("Err = %s, want %s", got, want)
	}

	// A syntax error names the file it came from.
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte("{\n  \"mcpServers\": {,}\n}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(other, env); errText(err) != `other.json:2:18: invalid character ',' looking for beginning of object key string` {
		t.Errorf("err = %v", err)
	}

	_, err = Load(filepath.Join(dir, "absent.json"), env)
	if !errors.Is(err, os.ErrNotExist) || errText(err) != "reading config: open "+filepath.Join(dir, "absent.json")+": no such file or directory" {
		t.Errorf("err = %v", err)
	}
}

func TestParseEnvFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("good.env", "# comment\nexport A=1\nB=\"two words\"\n")
	write("bad.env", "A=1\nthis line has no equals sign "+secretVar+"\n")
	write("secret.env", "S=\""+secretVar+"\n") // unclosed quote
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Dir = dir
	tests := []struct {
		entry, wantErr string
		wantEnv        map[string]string
	}{
		{`{"command": "c", "envFile": "good.env"}`, "", map[string]string{"A": "1", "B": "two words"}},
		{`{"command": "c", "envFile": "good.env", "env": {"A": "override"}}`, "", map[string]string{"A": "override", "B": "two words"}},
		{`{"command": "c", "envFile": "` + dir + `/good.env"}`, "", map[string]string{"A": "1", "B": "two words"}},
		{`{"command": "c", "envFile": "missing.env"}`, `x: envFile "missing.env" not found`, nil},
		{`{"command": "c", "envFile": "${NOPE}/a.env"}`, `x: variable ${NOPE} is not set`, nil},
		{`{"command": "c", "envFile": "bad.env"}`, `x: envFile "bad.env": line 2: want KEY=VALUE`, nil},
		{`{"command": "c", "envFile": "secret.env"}`, `x: envFile "secret.env": line 1: quoted value is not closed`, nil},
		{`{"command": "c", "envFile": "adir"}`, `x: envFile "adir" is a folder, not a regular file`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			s := parseEntry(t, tt.entry, env)
			if got := errText(s.Err); got != errText(errorOrNil(tt.wantErr)) {
				t.Fatalf("Err = %s\nwant  %s", got, errText(errorOrNil(tt.wantErr)))
			}
			if tt.wantErr == "" && !reflect.DeepEqual(s.Env, tt.wantEnv) {
				t.Errorf("Env = %q, want %q", s.Env, tt.wantEnv)
			}
		})
	}
}

func TestParseCwd(t *testing.T) {
	t.Parallel()
	tests := []struct{ cwd, dir, want string }{
		{"~/notes", "/cfg", "/home/u/notes"},
		{"sub/dir", "/cfg", "/cfg/sub/dir"},
		{"../up", "/cfg/inner", "/cfg/up"},
		{"/abs", "/cfg", "/abs"},
		{"rel", "", "rel"},
		{"${userHome}/x", "/cfg", "/home/u/x"},
		{"", "/cfg", ""},
	}
	for _, tt := range tests {
		t.Run(tt.cwd, func(t *testing.T) {
			env := testEnv()
			env.Dir = tt.dir
			cwd, _ := json.Marshal(tt.cwd)
			s := parseEntry(t, `{"command": "c", "cwd": `+string(cwd)+`}`, env)
			if s.Err != nil || s.Cwd != tt.want {
				t.Errorf("Cwd = %q (Err %v), want %q", s.Cwd, s.Err, tt.want)
			}
		})
	}
}

// TestErrorsHoldNoSecret: entries that resolve secrets and then fail never
// show the resolved values, in Err or in the refused Server.
func TestErrorsHoldNoSecret(t *testing.T) {
	t.Parallel()
	entries := []string{
		`{"command": "c", "env": {"A": "${SECRET}", "B": "${keyring:remote-token}", "C": "${NOPE}"}}`,
		`{"command": "c", "args": ["${SECRET}", "${keyring:missing}"]}`,
		`{"url": "https://h/mcp?k=${keyring:remote-token}", "headers": {"A": "${SECRET}", "B": "${LINEBREAK}"}}`,
		`{"url": "http://[${SECRET}"}`,
		`{"url": "ftp://${SECRET}"}`,
		`{"url": "https://h/${SECRET}", "headers": {"Bad Name": "x"}}`,
		`{"command": "${SECRET}", "cwd": "${NOPE}"}`,
	}
	for _, e := range entries {
		t.Run(e, func(t *testing.T) {
			s := parseEntry(t, e, testEnv())
			if s.Err == nil {
				t.Fatal("entry not refused")
			}
			assertNoSecret(t, s.Err.Error())
			assertNoSecret(t, fmtServer(s))
		})
	}
}

func fmtServer(s Server) string {
	b, _ := json.Marshal(struct {
		S   Server
		Err string
	}{s, errText(s.Err)})
	return string(b)
}
