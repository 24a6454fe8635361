package assistants

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/config"
)

func TestIsSecretKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]bool{
		"GITHUB_PERSONAL_ACCESS_TOKEN":        true,
		"API_KEY":                             true,
		"apiKey":                              true,
		"APIKey":                              true,
		"X-API-Key":                           true,
		"Authorization":                       true,
		"GITHUB_PAT":                          true,
		"DB_PASSWORD":                         true,
		"MYSQL_PWD":                           true,
		"SMTP_PASSWD":                         true,
		"AWS_SECRET_ACCESS_KEY":               true,
		"OAUTH_CLIENT_SECRET":                 true,
		"clientSecret":                        true,
		"GOOGLE_CREDENTIALS":                  true,
		"HF_AUTH":                             true,
		"BEARER":                              true,
		"Cookie":                              true,
		"openaiApiKey":                        true,
		"KEYBOARD_LAYOUT":                     false,
		"MONKEY":                              false,
		"TURKEY_MODE":                         false,
		"PATH":                                false,
		"PATTERN":                             false,
		"AUTHOR":                              false,
		"AWS_ACCESS_KEY_ID":                   false,
		"SSH_KEY_FILE":                        false,
		"GOOGLE_APPLICATION_CREDENTIALS_PATH": false,
		"TOKEN_URL":                           false,
		"NPM_CONFIG_AUTH_TYPE":                false,
		"KEYCLOAK_URL":                        false,
		"LOG_LEVEL":                           false,
		"MEMORY_FILE_PATH":                    false,
		"OAUTH_CALLBACK":                      false,
	} {
		if got := IsSecretKey(key); got != want {
			t.Errorf("IsSecretKey(%q) = %t, want %t (words %v)", key, got, want, keyWords(key))
		}
	}
	for v, want := range map[string]bool{
		"ghp_abc":                  true,
		"${input:x}":               false,
		"Bearer ${env:T}":          false,
		"":                         false,
		"true":                     false,
		"https://example.com/x":    false,
		"https://u:p@example.com/": true,
		"hunter2":                  true,
	} {
		if got := literalSecret(v); got != want {
			t.Errorf("literalSecret(%q) = %t, want %t", v, got, want)
		}
	}
	if s, r := authScheme("Bearer abc"); s != "Bearer " || r != "abc" {
		t.Errorf("authScheme: %q %q", s, r)
	}
	if got := keyringName("my server", "X-API-Key"); got != "my-server-X-API-Key" {
		t.Errorf("keyringName: %s", got)
	}
}

// secretMark is in every secret of the fixtures, and must be in no diff,
// no note, no String.
const secretMark = "Secret0123456789"

// startImport puts a fixture in place as the client's file and mcp.json
// (testdata/import/mcp.json) in a temp dir, and reads the import.
func startImport(t *testing.T, f fixture) (*Import, Env) {
	t.Helper()
	e := testEnv(t)
	place(t, f.client, e, f.data)
	cfg := filepath.Join(e.Home, ".config", "mcptray", "mcp.json")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	if err := os.WriteFile(cfg, readBytes(t, filepath.Join("testdata", "import", "mcp.json")), 0o600); err != nil {
		t.Fatal(err)
	}
	im, err := NewImport(f.client, e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return im, e
}

// summary is what an import found, as a person would be told.
func summary(im *Import) string {
	var b strings.Builder
	for _, s := range im.Servers {
		fmt.Fprintf(&b, "server %s%s as %s", s.Name, s.from(), s.As)
		if s.Skip != "" {
			fmt.Fprintf(&b, " (skipped: %s)", s.Skip)
		}
		b.WriteByte('\n')
	}
	for _, s := range im.Secrets {
		fmt.Fprintf(&b, "secret %v -> %s\n", s, s.Reference())
	}
	for _, n := range im.Notes {
		fmt.Fprintf(&b, "note %s\n", n)
	}
	return b.String()
}

// For every client's file: what an import finds (golden), mcp.json after
// it with the secrets moved (golden), the assistant's file after
// --replace (golden), and no secret in any diff or message.
func TestImportGoldens(t *testing.T) {
	t.Parallel()
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			im, e := startImport(t, f)
			sum := summary(im)
			golden(t, filepath.Join("import", f.name+".found"), []byte(sum))
			for _, s := range im.Secrets {
				s.Move = true
			}
			cfg, client, err := im.Plans(true)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("import", f.name+".mcp.json"), cfg.After)
			golden(t, filepath.Join("import", f.name+".replaced"+f.ext), client.After)
			for what, text := range map[string]string{"summary": sum, "mcp.json's diff": cfg.Diff(), "the client's diff": client.Diff(), "mcp.json": string(cfg.After), "the client's file": string(client.After)} {
				if strings.Contains(text, secretMark) {
					t.Errorf("a secret is in %s:\n%s", what, text)
				}
			}
			// mcp.json parses, and every imported entry resolves once its
			// secrets are in the keyring.
			stored := map[string]string{}
			for _, s := range im.Secrets {
				stored[s.Name] = s.Value()
			}
			parsed, err := config.Parse(cfg.After, config.Env{Home: e.Home, Self: self, Lookup: func(string) (string, bool) { return "x", true },
				Keyring: func(name string) (string, error) {
					if v, ok := stored[name]; ok {
						return v, nil
					}
					return "", config.ErrKeyringNotFound
				}})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range im.Servers {
				i := slices.IndexFunc(parsed.Servers, func(p config.Server) bool { return p.Name == s.As })
				if i < 0 {
					t.Errorf("%s is not in mcp.json", s.As)
					continue
				}
				if err := parsed.Servers[i].Err; err != nil && !strings.Contains(err.Error(), "${input:") {
					t.Errorf("%s is refused: %v", s.As, err)
				}
				for _, kv := range s.Env {
					if strings.Contains(kv.Value, secretMark) && parsed.Servers[i].Env[kv.Key] != kv.Value {
						t.Errorf("%s: env %s does not resolve to the moved value", s.As, kv.Key)
					}
				}
			}
			// The client's file with --replace: no imported server left,
			// mcptray in, and it parses.
			left, _, _, _ := readServers(f.client, im.From, client.After)
			for _, s := range left {
				if s.Name != EntryName {
					t.Errorf("%s is still in the client's file after --replace", s.Name)
				}
			}
			if inst, cur, _, err := f.client.installed("config", client.After, e); !inst || !cur || err != nil {
				t.Errorf("mcptray is not in the client's file after --replace: %v", err)
			}
		})
	}
}

// Apply stores the secrets chosen (and only those) before writing, then
// writes mcp.json and the client's file, each after a backup.
func TestImportApply(t *testing.T) {
	t.Parallel()
	f := fixtureNamed(t, "claude-desktop")
	im, _ := startImport(t, f)
	cfgBefore := readBytes(t, im.Config)
	if len(im.Secrets) != 1 {
		t.Fatalf("secrets: %v", im.Secrets)
	}
	s := im.Secrets[0]
	if got := fmt.Sprintf("%v %+v %s %#v", s, s, s, s); strings.Contains(got, secretMark) {
		t.Errorf("a Secret prints its value: %s", got)
	}
	s.Move = true
	stored := map[string]string{}
	failing := errors.New("no Secret Service")
	if err := im.Apply(true, func(string, string) error { return failing }); !errors.Is(err, failing) || strings.Contains(err.Error(), secretMark) {
		t.Errorf("Apply with a failing store: %v", err)
	}
	if !bytes.Equal(readBytes(t, im.Config), cfgBefore) || !bytes.Equal(readBytes(t, im.From), f.data) {
		t.Fatal("a file was written although the secret was not stored")
	}
	if err := im.Apply(true, func(name, value string) error { stored[name] = value; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 1 || !strings.Contains(stored["github-2-GITHUB_PERSONAL_ACCESS_TOKEN"], secretMark) {
		t.Errorf("stored: %v", slices.Collect(mapKeys(stored)))
	}
	cfg := readBytes(t, im.Config)
	if !bytes.Contains(cfg, []byte(`"GITHUB_PERSONAL_ACCESS_TOKEN": "${keyring:github-2-GITHUB_PERSONAL_ACCESS_TOKEN}"`)) || bytes.Contains(cfg, []byte(secretMark)) {
		t.Errorf("mcp.json:\n%s", cfg)
	}
	if !bytes.Equal(readBytes(t, im.Config+BackupSuffix), cfgBefore) || !bytes.Equal(readBytes(t, im.From+BackupSuffix), f.data) {
		t.Error("the backups are not the files as they were")
	}
	if bytes.Contains(readBytes(t, im.From), []byte(secretMark)) {
		t.Error("the secret is still in Claude Desktop's file after --replace")
	}
}

// Kept secrets are copied as they are, and the diff hides them.
func TestImportKeepsSecrets(t *testing.T) {
	t.Parallel()
	im, _ := startImport(t, fixtureNamed(t, "cursor"))
	cfg, client, err := im.Plans(false)
	if err != nil || client != nil {
		t.Fatalf("Plans: %v %v", client, err)
	}
	if !bytes.Contains(cfg.After, []byte("Bearer lin_api_cursor"+secretMark)) {
		t.Errorf("the kept secret is not in mcp.json:\n%s", cfg.After)
	}
	d := cfg.Diff()
	if strings.Contains(d, secretMark) || !strings.Contains(d, `"Authorization": "Bearer ********"`) {
		t.Errorf("diff:\n%s", d)
	}
	if err := im.Apply(false, nil); err != nil {
		t.Fatal(err)
	}
}

// Without mcp.json, an import starts from the first-run file; importing
// twice copies nothing the second time.
func TestImportIntoNewConfigAndTwice(t *testing.T) {
	t.Parallel()
	f := fixtureNamed(t, "gemini")
	e := testEnv(t)
	place(t, f.client, e, f.data)
	cfg := filepath.Join(e.Home, "new", "mcp.json")
	im, err := NewImport(f.client, e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Apply(false, nil); err != nil {
		t.Fatal(err)
	}
	parsed, err := config.Load(cfg, config.Env{Self: self})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range parsed.Servers {
		names = append(names, s.Name)
	}
	if want := []string{"ssh", "gcal", "gmail", "atlassian", "weather"}; !slices.Equal(names, want) {
		t.Errorf("mcp.json's servers: %v, want the first-run ones and the imported ones: %v", names, want)
	}
	im2, err := NewImport(f.client, e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range im2.Servers {
		if s.Skip == "" {
			t.Errorf("imported twice: %s as %s", s.Name, s.As)
		}
	}
	p, _, _ := im2.Plans(false)
	if p.Changed() {
		t.Errorf("the second import changes mcp.json:\n%s", p.Diff())
	}
}

func TestImportErrors(t *testing.T) {
	t.Parallel()
	e := testEnv(t)
	c := mustFind(t, "cursor")
	if _, err := NewImport(c, e, filepath.Join(e.Home, "mcp.json")); err == nil || !strings.Contains(err.Error(), "Cursor has no config at") {
		t.Errorf("no file: %v", err)
	}
	path := place(t, c, e, []byte("{\"mcpServers\": {\n  \"a\": {\"command\": 1}, \"b\": {\"command\": \"b\"},\n  \"c\": {}}}"))
	im, err := NewImport(c, e, filepath.Join(e.Home, "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Servers) != 1 || im.Servers[0].Name != "b" || len(im.Notes) != 2 {
		t.Errorf("entries it cannot use: %s", summary(im))
	}
	os.WriteFile(path, []byte("{\"mcpServers\": {"), 0o600)
	if _, err := NewImport(c, e, filepath.Join(e.Home, "mcp.json")); err == nil || !strings.HasPrefix(err.Error(), path+":1:") {
		t.Errorf("a broken file: %v", err)
	}
}

func fixtureNamed(t *testing.T, name string) fixture {
	t.Helper()
	for _, f := range fixtures(t) {
		if f.name == name {
			return f
		}
	}
	t.Fatalf("no fixture %s", name)
	return fixture{}
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// A short secret is hidden where it is a whole string, not inside words.
func TestDiffHidesShortSecrets(t *testing.T) {
	t.Parallel()
	p := &Plan{Path: "f", Existed: true, Before: []byte("{\"a\": \"ab\", \"about\": 1}\n"), After: []byte("{\"a\": \"ab\", \"about\": 2}\n"), redact: []string{"ab"}}
	if d := p.Diff(); !strings.Contains(d, `{"a": "********", "about": 2}`) {
		t.Errorf("diff:\n%s", d)
	}
}

// A secret's keyring name taken — by the keyring (the caller says), by a
// ${keyring:…} of mcp.json, or by a secret before it — gets a suffix and
// a note; a long one stays within the bound of a NAME.
func TestImportAvoidsTakenSecretNames(t *testing.T) {
	t.Parallel()
	e := testEnv(t)
	long := strings.Repeat("s", 190)
	place(t, mustFind(t, "cursor"), e, []byte(`{"mcpServers": {
  "x-a": {"command": "one", "env": {"TOKEN": "v1-`+secretMark+`"}},
  "x": {"command": "two", "env": {"a-TOKEN": "v2-`+secretMark+`"}},
  "`+long+`": {"command": "three", "env": {"API_TOKEN": "v3-`+secretMark+`"}}
}}
`))
	cfg := filepath.Join(e.Home, "mcp.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"other": {"command": "o", "env": {"T": "${keyring:x-a-TOKEN}"}}}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	im, err := NewImport(mustFind(t, "cursor"), e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	keyring := []string{"x-a-TOKEN-2", (long + "-API_TOKEN")[:200]}
	im.AvoidSecretNames(func(name string) bool { return slices.Contains(keyring, name) })
	var names []string
	for _, s := range im.Secrets {
		names = append(names, s.Name)
	}
	if want := []string{"x-a-TOKEN-3", "x-a-TOKEN-4", (long + "-API_TOKEN")[:198] + "-2"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if want := "x-a env TOKEN: ${keyring:x-a-TOKEN} exists already, so it moves to ${keyring:x-a-TOKEN-3}"; len(im.Notes) != 3 || im.Notes[0] != want {
		t.Errorf("notes %q, want 3, the first %q", im.Notes, want)
	}
	for _, s := range im.Secrets {
		s.Move = true
	}
	p, _, err := im.Plans(false)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(p.After, []byte(`"TOKEN": "${keyring:x-a-TOKEN-3}"`)) || !bytes.Contains(p.After, []byte(`"a-TOKEN": "${keyring:x-a-TOKEN-4}"`)) {
		t.Errorf("mcp.json:\n%s", p.After)
	}
}

// A read-only file, the assistant's (--replace) or mcp.json, is refused
// before anything is stored or written: no secret half moved.
func TestImportIntoReadOnlyFiles(t *testing.T) {
	t.Parallel()
	for _, which := range []string{"the assistant's file", "mcp.json"} {
		im, _ := startImport(t, fixtureNamed(t, "claude-desktop"))
		cfgBefore := readBytes(t, im.Config)
		ro := im.From
		if which == "mcp.json" {
			ro = im.Config
		}
		if err := os.Chmod(ro, 0o444); err != nil {
			t.Fatal(err)
		}
		im.Secrets[0].Move = true
		stored := 0
		err := im.Apply(true, func(string, string) error { stored++; return nil })
		if err == nil || err.Error() != ro+" is read-only; mcptray leaves it as it is (make it writable, or add the entry by hand)" {
			t.Errorf("%s read-only: %v", which, err)
		}
		if stored != 0 || !bytes.Equal(readBytes(t, im.Config), cfgBefore) {
			t.Errorf("%s read-only: %d secrets stored, mcp.json changed: %v", which, stored, !bytes.Equal(readBytes(t, im.Config), cfgBefore))
		}
		if _, err := os.Stat(im.Config + BackupSuffix); err == nil {
			t.Errorf("%s read-only: a backup was written", which)
		}
	}
}
