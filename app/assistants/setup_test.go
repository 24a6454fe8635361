package assistants

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/config"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ from what the code makes")

// self is the mcptray the tests' entries run.
const self = "/opt/mcptray/bin/mcptray"

// testEnv is a Linux home in a temp dir, with no environment variables
// but those given as KEY, VALUE pairs.
func testEnv(t *testing.T, kv ...string) Env {
	t.Helper()
	vars := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		vars[kv[i]] = kv[i+1]
	}
	return Env{GOOS: "linux", Home: t.TempDir(), Getenv: func(k string) string { return vars[k] }, Self: self}
}

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./app/assistants -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s", path, unifiedDiff("want", "got", want, got))
	}
}

// fixture is one file of testdata/clients: the client it is for, and its
// bytes.
type fixture struct {
	name   string // file name without extension: "zed-fresh"
	ext    string
	client *Client
	data   []byte
}

func fixtures(t *testing.T) []fixture {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	seen := map[string]bool{}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		name := strings.TrimSuffix(e.Name(), ext)
		c, ok := Find(name)
		if !ok {
			c, ok = Find(name[:strings.LastIndex(name, "-")])
		}
		if !ok {
			t.Fatalf("testdata/clients/%s is for no client", e.Name())
		}
		data, err := os.ReadFile(filepath.Join("testdata", "clients", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		seen[c.Name] = true
		out = append(out, fixture{name, ext, c, data})
	}
	for _, c := range clients {
		if !seen[c.Name] {
			t.Errorf("no fixture for %s in testdata/clients", c.Name)
		}
	}
	return out
}

// place writes data as c's config file under e and returns its path.
func place(t *testing.T, c *Client, e Env, data []byte) string {
	t.Helper()
	path, err := c.Path(e)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// For every client's file: setup gives the golden file (and the golden
// diff), writes a backup of the original first, changes nothing when run
// again, and --remove gives back the original byte for byte.
func TestSetupGoldens(t *testing.T) {
	t.Parallel()
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			e := testEnv(t)
			path := place(t, f.client, e, f.data)

			p, err := f.client.Plan(e, Add)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Changed() {
				t.Fatal("setup plans no change")
			}
			golden(t, filepath.Join("setup", f.name+f.ext), p.After)
			golden(t, filepath.Join("setup", f.name+".diff"), []byte(strings.ReplaceAll(p.Diff(), e.Home, "~")))
			if strings.Contains(p.Diff(), secretMark) {
				t.Error("a secret of the file is in the diff's context")
			}
			if !bytes.Equal(readBytes(t, path), f.data) {
				t.Fatal("planning wrote the file")
			}
			if err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			if got := readBytes(t, path); !bytes.Equal(got, p.After) {
				t.Errorf("the file is not what the plan said:\n%s", got)
			}
			if got := readBytes(t, path+BackupSuffix); !bytes.Equal(got, f.data) {
				t.Errorf("the backup is not the original:\n%s", got)
			}
			if inst, cur, _, err := f.client.installed("config", p.After, e); err != nil || !inst || !cur {
				t.Errorf("after setup: installed %t, current %t, %v", inst, cur, err)
			}

			again, err := f.client.Plan(e, Add)
			if err != nil || again.Changed() || again.Diff() != "" {
				t.Errorf("setup twice: changed %v, %v\n%s", again != nil && again.Changed(), err, again.Diff())
			}

			rm, err := f.client.Plan(e, Remove)
			if err != nil {
				t.Fatal(err)
			}
			if err := rm.Apply(); err != nil {
				t.Fatal(err)
			}
			if got := readBytes(t, path); !bytes.Equal(got, f.data) {
				t.Errorf("after --remove the file is not the original:\n%s", unifiedDiff("original", "after remove", f.data, got))
			}
			rm2, err := f.client.Plan(e, Remove)
			if err != nil || rm2.Changed() {
				t.Errorf("remove twice: %v %v", rm2.Changed(), err)
			}
		})
	}
}

// --remove without the backup (deleted, or made by another edit): the
// entry and the object setup made for it are taken out by the editor
// alone, still giving back the original.
func TestRemoveWithoutBackup(t *testing.T) {
	t.Parallel()
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			e := testEnv(t)
			path := place(t, f.client, e, f.data)
			p, _ := f.client.Plan(e, Add)
			if err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			os.Remove(path + BackupSuffix)
			rm, err := f.client.Plan(e, Remove)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(rm.After, f.data) || rm.Delete {
				t.Errorf("remove without a backup:\n%s", unifiedDiff("original", "after remove", f.data, rm.After))
			}
		})
	}
}

// A client with no file yet: setup creates it (and its folder), --remove
// deletes it again.
func TestSetupCreatesAndRemoveDeletes(t *testing.T) {
	t.Parallel()
	for _, c := range clients {
		t.Run(c.Name, func(t *testing.T) {
			e := testEnv(t)
			p, err := c.Plan(e, Add)
			if err != nil {
				t.Fatal(err)
			}
			if p.Existed || !p.Changed() || !strings.HasPrefix(p.Diff(), "--- /dev/null\n") {
				t.Errorf("a plan for a new file: existed %t, changed %t, diff:\n%s", p.Existed, p.Changed(), p.Diff())
			}
			if err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(p.Path + BackupSuffix); err == nil {
				t.Error("a backup of no file was written")
			}
			fi, err := os.Stat(p.Path)
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("the new file: %v %v", fi, err)
			}
			rm, err := c.Plan(e, Remove)
			if err != nil {
				t.Fatal(err)
			}
			if !rm.Delete || !strings.Contains(rm.Diff(), "+++ /dev/null\n") {
				t.Errorf("remove of a file setup made: delete %t\n%s", rm.Delete, rm.Diff())
			}
			if err := rm.Apply(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(p.Path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the file is still there: %v", err)
			}
			// Remove where there is nothing: no change, no file.
			if rm, err := c.Plan(e, Remove); err != nil || rm.Changed() {
				t.Errorf("remove with no file: %v %v", rm.Changed(), err)
			}
		})
	}
}

// A file that does not parse is refused with its path, line and column;
// it is left as it was and no backup is written.
func TestBrokenFileRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		client, data, want string
		addOnly            bool
	}{
		{"claude-desktop", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n    \"b\": {}\n  }\n}\n", "claude_desktop_config.json:4:5: invalid character '\"' after object key:value pair", false},
		{"vscode", "{\n\t// servers\n\t\"servers\": [\n}", "mcp.json:4:1: invalid character '}' looking for beginning of value", false},
		{"zed", "{ /* never closed\n", "settings.json:1:3: comment /* is not closed", false},
		{"cursor", "{\"mcpServers\": []}", "mcp.json:1:16: mcpServers must be an object, got array", false},
		{"codex", "model = \"x\"\n[mcp_servers.a]\ncommand = \n", "config.toml:3:11: expected value but found '\\n' instead", false},
		{"codex", "mcp_servers = 3\n", "which a [mcp_servers.mcptray] table cannot extend", true},
	} {
		c, _ := Find(tc.client)
		e := testEnv(t)
		path := place(t, c, e, []byte(tc.data))
		for _, a := range []Action{Add, Remove} {
			if a == Remove && tc.addOnly {
				continue
			}
			_, err := c.Plan(e, a)
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) && !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path) {
				t.Errorf("%s %q: %v, want %s…%s", tc.client, tc.data, err, path, tc.want)
			}
		}
		if got := readBytes(t, path); string(got) != tc.data {
			t.Errorf("%s: the broken file changed", tc.client)
		}
		if _, err := os.Stat(path + BackupSuffix); err == nil {
			t.Errorf("%s: a backup was written", tc.client)
		}
	}
}

// An entry for another mcptray (the binary moved) is replaced in place;
// Apply refuses when the file changed after the plan.
func TestSetupReplacesAndChecksTheFile(t *testing.T) {
	t.Parallel()
	c, _ := Find("cursor")
	e := testEnv(t)
	old := "{\n  \"mcpServers\": {\n    \"mcptray\": {\n      \"command\": \"/usr/local/bin/mcptray\",\n      \"args\": [\n        \"connect\"\n      ]\n    },\n    \"x\": {\"command\": \"y\"}\n  }\n}\n"
	path := place(t, c, e, []byte(old))
	st := Detect(e)
	for _, s := range st {
		if s.Client == c && (!s.Exists || !s.Installed || s.Current || s.Err != nil || s.Path != path) {
			t.Errorf("Detect: %+v", s)
		}
	}
	p, err := c.Plan(e, Add)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(old, "/usr/local/bin/mcptray", self, 1)
	if string(p.After) != want {
		t.Errorf("replaced:\n%s", p.After)
	}
	os.WriteFile(path, []byte(old+" "), 0o600)
	if err := p.Apply(); err == nil || !strings.Contains(err.Error(), "changed since the plan was made") {
		t.Errorf("Apply after a change: %v", err)
	}
	if got := readBytes(t, path); string(got) != old+" " {
		t.Error("Apply wrote over a changed file")
	}
}

// The paths of every client on each OS, with the variables that move them.
func TestPaths(t *testing.T) {
	t.Parallel()
	home := "/home/ada"
	for _, tc := range []struct {
		goos, client string
		env          []string
		want         string
	}{
		{"linux", "claude-desktop", nil, "/home/ada/.config/Claude/claude_desktop_config.json"},
		{"linux", "claude-desktop", []string{"XDG_CONFIG_HOME", "/x"}, "/x/Claude/claude_desktop_config.json"},
		{"linux", "claude-desktop", []string{"XDG_CONFIG_HOME", "relative"}, "/home/ada/.config/Claude/claude_desktop_config.json"},
		{"darwin", "claude-desktop", nil, "/home/ada/Library/Application Support/Claude/claude_desktop_config.json"},
		{"windows", "claude-desktop", []string{"APPDATA", "/w/Roaming"}, "/w/Roaming/Claude/claude_desktop_config.json"},
		{"windows", "claude-desktop", nil, "/home/ada/AppData/Roaming/Claude/claude_desktop_config.json"},
		{"linux", "claude-code", nil, "/home/ada/.claude.json"},
		{"darwin", "claude-code", []string{"CLAUDE_CONFIG_DIR", "/cc"}, "/cc/.claude.json"},
		{"linux", "cursor", nil, "/home/ada/.cursor/mcp.json"},
		{"windows", "cursor", nil, "/home/ada/.cursor/mcp.json"},
		{"linux", "vscode", nil, "/home/ada/.config/Code/User/mcp.json"},
		{"darwin", "vscode", nil, "/home/ada/Library/Application Support/Code/User/mcp.json"},
		{"windows", "vscode", []string{"APPDATA", "/w/Roaming"}, "/w/Roaming/Code/User/mcp.json"},
		{"linux", "windsurf", nil, "/home/ada/.codeium/windsurf/mcp_config.json"},
		{"linux", "codex", nil, "/home/ada/.codex/config.toml"},
		{"linux", "codex", []string{"CODEX_HOME", "/cx"}, "/cx/config.toml"},
		{"linux", "gemini", nil, "/home/ada/.gemini/settings.json"},
		{"linux", "zed", nil, "/home/ada/.config/zed/settings.json"},
		{"linux", "zed", []string{"XDG_CONFIG_HOME", "/x"}, "/x/zed/settings.json"},
		{"darwin", "zed", nil, "/home/ada/.config/zed/settings.json"},
		{"windows", "zed", []string{"APPDATA", "/w/Roaming"}, "/w/Roaming/Zed/settings.json"},
	} {
		vars := map[string]string{}
		for i := 0; i+1 < len(tc.env); i += 2 {
			vars[tc.env[i]] = tc.env[i+1]
		}
		e := Env{GOOS: tc.goos, Home: home, Getenv: func(k string) string { return vars[k] },
			Glob: func(string) ([]string, error) { return nil, nil }}
		c, _ := Find(tc.client)
		got, err := c.Path(e)
		if err != nil || got != filepath.FromSlash(tc.want) {
			t.Errorf("%s on %s %v: %q %v, want %q", tc.client, tc.goos, tc.env, got, err, tc.want)
		}
	}
}

// Claude Desktop installed from its MSIX package (Windows, since
// 2026-02) reads its config from the package's folder, not %APPDATA%.
func TestClaudeDesktopMSIX(t *testing.T) {
	t.Parallel()
	local := t.TempDir()
	vars := map[string]string{"LOCALAPPDATA": local, "APPDATA": "/w/Roaming"}
	e := Env{GOOS: "windows", Home: "/home/ada", Getenv: func(k string) string { return vars[k] }}
	c, _ := Find("claude-desktop")
	if got, _ := c.Path(e); got != filepath.FromSlash("/w/Roaming/Claude/claude_desktop_config.json") {
		t.Errorf("without a package: %s", got)
	}
	for _, d := range []string{"Claude_pzs8sxrjxfjjc", "Claude_aaaa", "ClaudeOther"} {
		os.MkdirAll(filepath.Join(local, "Packages", d), 0o700)
	}
	want := filepath.Join(local, "Packages", "Claude_aaaa", "LocalCache", "Roaming", "Claude", "claude_desktop_config.json")
	if got, _ := c.Path(e); got != want {
		t.Errorf("with packages but no config: %s, want the first, %s", got, want)
	}
	// The package folder that holds a config wins.
	p := filepath.Join(local, "Packages", "Claude_pzs8sxrjxfjjc", "LocalCache", "Roaming", "Claude", "claude_desktop_config.json")
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte("{}"), 0o600)
	if got, _ := c.Path(e); got != p {
		t.Errorf("with a config in one package: %s, want %s", got, p)
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	e := testEnv(t)
	vs, _ := Find("vscode")
	place(t, vs, e, []byte(`{"servers": {}}`))
	cd, _ := Find("claude-desktop")
	p, _ := cd.Plan(e, Add)
	p.Apply()
	zed, _ := Find("zed")
	place(t, zed, e, []byte(`{`))
	got := map[string]Status{}
	for _, s := range Detect(e) {
		got[s.Client.Name] = s
	}
	if len(got) != len(clients) {
		t.Fatalf("Detect: %d clients", len(got))
	}
	if s := got["vscode"]; !s.Exists || s.Installed || s.Err != nil {
		t.Errorf("vscode: %+v", s)
	}
	if s := got["claude-desktop"]; !s.Exists || !s.Installed || !s.Current {
		t.Errorf("claude-desktop: %+v", s)
	}
	if s := got["zed"]; !s.Exists || s.Err == nil {
		t.Errorf("zed with a broken file: %+v", s)
	}
	if s := got["cursor"]; s.Exists || s.Installed || s.Err != nil || s.Path == "" {
		t.Errorf("cursor without a file: %+v", s)
	}
}

func TestEntries(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"claude-desktop": `{"command":"/opt/m","args":["connect","--tools","stable"]}`,
		"claude-code":    `{"type":"stdio","command":"/opt/m","args":["connect"]}`,
		"vscode":         `{"type":"stdio","command":"/opt/m","args":["connect"]}`,
		"zed":            `{"command":"/opt/m","args":["connect"]}`,
		"codex":          `{"command":"/opt/m","args":["connect"]}`,
	}
	for name, w := range want {
		c, _ := Find(name)
		if got := string(c.Entry("/opt/m")); got != w {
			t.Errorf("%s: %s, want %s", name, got, w)
		}
	}
	c, _ := Find("claude-desktop")
	if h := c.ReloadHint(Add); h != "restart Claude Desktop to load mcptray" {
		t.Errorf("Claude Desktop's reload hint: %q", h)
	}
	if h := mustFind(t, "vscode").ReloadHint(Add); h != "" {
		t.Errorf("VS Code's reload hint: %q", h)
	}
	if _, err := c.Plan(Env{Home: t.TempDir(), Self: "mcptray"}, Add); err == nil {
		t.Error("a relative path was written")
	}
}

// The written file keeps a symlink (a dotfiles setup) and writes at its
// target; the backup sits beside the link.
func TestSetupThroughASymlink(t *testing.T) {
	t.Parallel()
	c, _ := Find("cursor")
	e := testEnv(t)
	real := filepath.Join(t.TempDir(), "dotfiles-mcp.json")
	os.WriteFile(real, []byte("{}\n"), 0o600)
	path, _ := c.Path(e)
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.Symlink(real, path); err != nil {
		t.Skip(err)
	}
	p, err := c.Plan(e, Add)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
	if got := readBytes(t, real); !bytes.Contains(got, []byte(self)) {
		t.Errorf("the target: %s", got)
	}
	_ = config.Target
}
