package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A JSONC mcp.json with comments, a trailing comma and an entry with keys
// the form does not show.
const jsoncConfig = `{
  // my servers
  "mcpServers": {
    "ssh": { "command": "${self}", "args": ["serve", "ssh"] }, // built in
    "notes": {
      "command": "npx",
      "args": ["-y", "notes-server"],
      "envFile": "notes.env", /* kept */
      "x-mcptray": {"tools": "stable"},
      "disabled": true,
    },
  },
  "inputs": [{"id": "tok", "type": "promptString", "password": true}],
}
`

// testEnvOf is what the CLI's validation reads, with env variables from
// vars and the keyring in keys.
func testEnvOf(dir string, vars, keys map[string]string) Env {
	return Env{
		Lookup: func(n string) (string, bool) { v, ok := vars[n]; return v, ok },
		Home:   "/home/me",
		Self:   "/usr/bin/mcptray",
		Keyring: func(n string) (string, error) {
			if v, ok := keys[n]; ok {
				return v, nil
			}
			return "", ErrKeyringNotFound
		},
		Dir:   dir,
		Input: func(Input) (string, error) { return "", ErrInputNotGiven },
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Adding then removing an entry gives back the file byte for byte, its
// comments and trailing commas included; the added entry is what the
// loader reads.
func TestAddRemoveServerRoundTrip(t *testing.T) {
	for name, text := range map[string]string{
		"jsonc":   jsoncConfig,
		"default": string(Default()),
		"crlf":    strings.ReplaceAll(string(Default()), "\n", "\r\n"),
		"compact": `{"mcpServers":{"a":{"command":"x"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			p := writeConfig(t, text)
			env := testEnvOf(filepath.Dir(p), nil, nil)
			e := Entry{Name: "github", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github", "--flag"},
				Env: []Var{{Key: "GITHUB_HOST", Value: "github.com"}, {Key: "TOKEN", Value: "s3cr3t", Secret: true}}, Cwd: "~/src"}
			var stored []string
			res, err := NewFile(p, nil).Add(e, AddOptions{Env: env, StoreSecret: func(n, v string) error {
				stored = append(stored, n+"="+v)
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Replaced || !slices.Equal(res.Secrets, []string{"github-TOKEN"}) || !slices.Equal(stored, []string{"github-TOKEN=s3cr3t"}) {
				t.Errorf("result %+v, stored %q", res, stored)
			}
			added := readText(t, p)
			if strings.Contains(added, "s3cr3t") {
				t.Errorf("the secret's value is in the file:\n%s", added)
			}
			cfg, err := Parse([]byte(added), testEnvOf("/x", nil, map[string]string{"github-TOKEN": "v"}))
			if err != nil {
				t.Fatalf("%v\n%s", err, added)
			}
			s := cfg.Servers[len(cfg.Servers)-1]
			if s.Name != "github" || s.Err != nil || s.Command != "npx" || !slices.Equal(s.Args, e.Args) ||
				s.Env["TOKEN"] != "v" || s.Env["GITHUB_HOST"] != "github.com" || s.Cwd != "/home/me/src" || s.Disabled {
				t.Errorf("the loader reads %+v from\n%s", s, added)
			}
			secrets, err := NewFile(p, nil).Remove("github")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(secrets, []string{"github-TOKEN"}) {
				t.Errorf("remove said the entry used %q", secrets)
			}
			if got := readText(t, p); got != text {
				t.Errorf("after add and remove:\n%s\nwant\n%s\n(added:\n%s)", got, text, added)
			}
		})
	}
}

// An entry the loader would refuse is refused with its reason, before any
// secret is asked for or stored, and nothing is written.
func TestAddServerRefused(t *testing.T) {
	p := writeConfig(t, jsoncConfig)
	env := testEnvOf(filepath.Dir(p), map[string]string{"HOME_SET": "x"}, map[string]string{"have": "v"})
	for _, c := range []struct {
		e            Entry
		field, want  string
		replace      bool
		wantAsked    bool
		storeFailure bool
	}{
		{e: Entry{Name: "", Command: "x"}, field: "name", want: "the server's name is empty"},
		{e: Entry{Name: "a b", Command: "x"}, field: "name", want: "letters, digits, _ and - only"},
		{e: Entry{Name: "-a", Command: "x"}, field: "name", want: "starts with a letter or a digit"},
		{e: Entry{Name: "a__b", Command: "x"}, field: "name", want: `"__"`},
		{e: Entry{Name: "mcptray", Command: "x"}, field: "name", want: "mcptray's own tools"},
		{e: Entry{Name: strings.Repeat("a", 41), Command: "x"}, field: "name", want: "at most 40"},
		{e: Entry{Name: "notes", Command: "x"}, field: "name", want: "notes: a server of that name exists in " + p + " (remove it first: mcptray remove notes; or replace it: --replace)"},
		{e: Entry{Name: "n"}, field: "command", want: "needs a command (stdio) or a URL (http)"},
		{e: Entry{Name: "n", Command: "x", URL: "https://e"}, field: "url", want: "not both"},
		{e: Entry{Name: "n", URL: "ftp://e/mcp"}, field: "url", want: `n: "url" must start with http:// or https://`},
		{e: Entry{Name: "n", URL: "https://e/mcp", Headers: []Var{{Key: "Bad Name", Value: "v"}}}, field: "headers", want: `n: header name "Bad Name" is not valid`},
		{e: Entry{Name: "n", Command: "x", Env: []Var{{Key: "A=B", Value: "v"}}}, field: "env", want: `n: env name "A=B" is not valid`},
		{e: Entry{Name: "n", Command: "x", Env: []Var{{Key: "A", Value: "1"}, {Key: "A", Value: "2"}}}, field: "env.A", want: "env A is given twice"},
		{e: Entry{Name: "n", Command: "x", Env: []Var{{Key: "K", Value: "${env:UNSET_HERE}"}}}, field: "env.K", want: "n: variable ${env:UNSET_HERE} is not set"},
		{e: Entry{Name: "n", Command: "x", Env: []Var{{Key: "K", Value: "${keyring:missing}"}}}, field: "env.K", want: `n: keyring entry "missing" not found (` + "`mcptray secret set missing` stores it)"},
		{e: Entry{Name: "n", Command: "${workspaceFolder}/x"}, field: "command", want: "n: ${workspaceFolder} is not supported outside VS Code"},
		{e: Entry{Name: "n", Command: "x", Args: []string{"${nope"}}, field: "args", want: `n: args[0] has "${" without a closing "}"`},
		{e: Entry{Name: "n", Command: "x", Env: []Var{{Key: "K v", Secret: true}}}, field: "env.K v", want: "K v cannot be a secret"},
		// Checked first, asked for next: an empty answer writes nothing.
		{e: Entry{Name: "n", Command: "x", Env: []Var{{Key: "K", Secret: true}}}, want: "the secret K has no value: nothing written", wantAsked: true},
		{e: Entry{Name: "n", Command: "x", Env: []Var{{Key: "K", Value: "v", Secret: true}}}, want: "storing ${keyring:n-K}: locked (nothing written to mcp.json)", storeFailure: true},
	} {
		asked := false
		opts := AddOptions{Replace: c.replace, Env: env,
			SecretValue: func(string) (string, error) { asked = true; return "", nil },
			StoreSecret: func(string, string) error {
				if c.storeFailure {
					return errors.New("locked")
				}
				t.Errorf("%s: a secret was stored", c.e.Name)
				return nil
			}}
		_, err := NewFile(p, nil).Add(c.e, opts)
		var ee *EntryError
		switch {
		case err == nil:
			t.Errorf("%+v: added", c.e)
			continue
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%+v: %q, want %q", c.e, err, c.want)
		case !c.storeFailure && (!errors.As(err, &ee) || ee.Field != c.field):
			t.Errorf("%+v: %#v, want the field %q", c.e, err, c.field)
		}
		if asked != c.wantAsked {
			t.Errorf("%+v: asked for the secret: %v", c.e, asked)
		}
		if got := readText(t, p); got != jsoncConfig {
			t.Errorf("%+v: the file changed:\n%s", c.e, got)
		}
	}
	// Values the loader takes: a variable that is set, a stored secret, an
	// ${input:ID} not given yet (the instance asks for it).
	for _, e := range []Entry{
		{Name: "v1", Command: "x", Env: []Var{{Key: "K", Value: "${HOME_SET}"}, {Key: "L", Value: "${keyring:have}"}, {Key: "M", Value: "${input:tok}"}}},
		{Name: "v2", URL: "https://example.com/mcp", Headers: []Var{{Key: "Authorization", Value: "Bearer ${keyring:have}"}}},
	} {
		if _, err := NewFile(p, nil).Add(e, AddOptions{Env: env}); err != nil {
			t.Errorf("%s: %v", e.Name, err)
		}
	}
}

// --replace (the form's Edit) rewrites the keys the form shows, in place,
// and keeps the others: comments, envFile, x-mcptray, disabled.
func TestReplaceServerKeepsTheRest(t *testing.T) {
	p := writeConfig(t, jsoncConfig)
	env := testEnvOf(filepath.Dir(p), nil, nil)
	os.WriteFile(filepath.Join(filepath.Dir(p), "notes.env"), []byte("A=1\n"), 0o600)
	got, err := NewFile(p, nil).Entry("notes")
	if err != nil {
		t.Fatal(err)
	}
	want := Entry{Name: "notes", Command: "npx", Args: []string{"-y", "notes-server"}, Disabled: true, Kept: []string{"envFile", "x-mcptray"}}
	if !entriesEqual(got, want) {
		t.Errorf("read %+v, want %+v", got, want)
	}
	got.Args = append(got.Args, "--verbose")
	got.Env = []Var{{Key: "LEVEL", Value: "debug"}}
	if _, err := NewFile(p, nil).Add(got, AddOptions{Env: env}); !errors.Is(err, ErrServerExists) {
		t.Fatalf("without Replace: %v", err)
	}
	res, err := NewFile(p, nil).Add(got, AddOptions{Env: env, Replace: true})
	if err != nil || !res.Replaced {
		t.Fatal(res, err)
	}
	wantText := strings.Replace(jsoncConfig, `"args": ["-y", "notes-server"],`, `"args": [
        "-y",
        "notes-server",
        "--verbose"
      ],`, 1)
	wantText = strings.Replace(wantText, `"disabled": true,
    },`, `"disabled": true,
      "env": {
        "LEVEL": "debug"
      },
    },`, 1)
	if text := readText(t, p); text != wantText {
		t.Errorf("after the edit:\n%s\nwant\n%s", text, wantText)
	}
	back, err := NewFile(p, nil).Entry("notes")
	if err != nil || !entriesEqual(back, got) {
		t.Errorf("read back %+v (%v), want %+v", back, err, got)
	}
	// Editing it into an http entry takes the stdio keys out.
	http := Entry{Name: "notes", URL: "https://notes.example/mcp", Headers: []Var{{Key: "Authorization", Value: "${keyring:notes-Authorization}"}}}
	if _, err := NewFile(p, nil).Add(http, AddOptions{Env: testEnvOf("", nil, map[string]string{"notes-Authorization": "x"}), Replace: true}); err != nil {
		t.Fatal(err)
	}
	back, _ = NewFile(p, nil).Entry("notes")
	http.Disabled, http.Kept = true, []string{"envFile", "x-mcptray"}
	if !entriesEqual(back, http) {
		t.Errorf("read back %+v, want %+v", back, http)
	}
	if text := readText(t, p); !strings.Contains(text, `"envFile": "notes.env", /* kept */`) || strings.Contains(text, `"command": "npx"`) {
		t.Errorf("after the edit to http:\n%s", text)
	}
	// An entry whose name mcptray would not give (a dot) is still edited.
	if _, err := NewFile(p, nil).Add(Entry{Name: "my.notes", Command: "x"}, AddOptions{Env: env}); err == nil {
		t.Error("a new name with a dot was added")
	}
	os.WriteFile(p, []byte(`{"mcpServers": {"my.notes": {"command": "old"}}}`), 0o600)
	if _, err := NewFile(p, nil).Add(Entry{Name: "my.notes", Command: "new"}, AddOptions{Env: env, Replace: true}); err != nil {
		t.Errorf("editing my.notes: %v", err)
	}
	if text := readText(t, p); text != `{"mcpServers": {"my.notes": {"command": "new"}}}` {
		t.Errorf("after editing my.notes: %s", text)
	}
	if !IsKeyringRef(back.Headers[0].Value) || IsKeyringRef("Bearer "+back.Headers[0].Value) {
		t.Errorf("IsKeyringRef(%q)", back.Headers[0].Value)
	}
}

func entriesEqual(a, b Entry) bool {
	return a.Name == b.Name && a.Command == b.Command && slices.Equal(a.Args, b.Args) && slices.Equal(a.Env, b.Env) &&
		a.Cwd == b.Cwd && a.URL == b.URL && slices.Equal(a.Headers, b.Headers) && a.Disabled == b.Disabled && slices.Equal(a.Kept, b.Kept)
}

// A VS Code file gets its entry in "servers", with its type; a missing
// file is created as on a first run first; remove of an unknown name says
// so.
func TestAddServerShapes(t *testing.T) {
	p := writeConfig(t, "{\n\t\"servers\": {}\n}\n")
	env := testEnvOf(filepath.Dir(p), nil, nil)
	if _, err := NewFile(p, nil).Add(Entry{Name: "fs", Command: "mcp-fs", Disabled: true}, AddOptions{Env: env}); err != nil {
		t.Fatal(err)
	}
	want := "{\n\t\"servers\": {\n\t\t\"fs\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"mcp-fs\",\n\t\t\t\"disabled\": true\n\t\t}\n\t}\n}\n"
	if got := readText(t, p); got != want {
		t.Errorf("VS Code file:\n%q\nwant\n%q", got, want)
	}

	missing := filepath.Join(t.TempDir(), "sub", "mcp.json")
	if _, err := NewFile(missing, nil).Add(Entry{Name: "bad", URL: "ftp://x"}, AddOptions{Env: env}); err == nil {
		t.Error("a refused entry was added")
	} else if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Error("a refused entry created the config's folder")
	}
	res, err := NewFile(missing, nil).Add(Entry{Name: "remote", URL: "https://example.com/mcp"}, AddOptions{Env: env})
	if err != nil || !res.Created {
		t.Fatal(res, err)
	}
	cfg, err := Load(missing, env)
	if err != nil || len(cfg.Servers) != 4 || cfg.Servers[3].Name != "remote" || cfg.Servers[3].Type != TypeHTTP {
		t.Errorf("created: %v %+v", err, cfg)
	}
	if _, err := NewFile(missing, nil).Remove("nope"); !errors.Is(err, ErrNoServer) {
		t.Errorf("remove nope: %v", err)
	}
	if _, err := NewFile(missing, nil).Entry("nope"); !errors.Is(err, ErrNoServer) {
		t.Errorf("read nope: %v", err)
	}
}

func TestCheckServerName(t *testing.T) {
	for _, ok := range []string{"a", "github", "brave-search", "my_server2", "9lives", strings.Repeat("x", 40)} {
		if err := CheckServerName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "_a", "-a", "a.b", "a/b", "a b", "é", "a__b", "MCPTRAY", strings.Repeat("x", 41)} {
		if err := CheckServerName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
