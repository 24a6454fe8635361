package app

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/assistants"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testkeyring"
)

// assistantsHome is a core (not running) on a temp mcp.json and data dir,
// with HOME a temp folder holding Claude Desktop's config (a server with a
// token in its env) and a broken Cursor config.
type assistantsHome struct {
	core    *Core
	home    string
	cfgPath string
	desktop string // Claude Desktop's config
	cursor  string // Cursor's (broken)
}

// desktopConfig is Claude Desktop's config with server name, whose env
// holds token.
func desktopConfig(name, token string) string {
	return fmt.Sprintf(`{
  // the person's own
  "mcpServers": {
    %q: {"command": "npx", "args": ["-y", "@acme/github-mcp"], "env": {"GITHUB_TOKEN": %q, "LOG_LEVEL": "info"}}
  }
}
`, name, token)
}

func newAssistantsHome(t *testing.T, mcpJSON string) *assistantsHome {
	t.Helper()
	dir := t.TempDir()
	h := &assistantsHome{home: filepath.Join(dir, "home"), cfgPath: filepath.Join(dir, "config", "mcp.json")}
	t.Setenv("HOME", h.home)
	for _, v := range []string{"XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"} {
		t.Setenv(v, "")
	}
	h.desktop = filepath.Join(h.home, ".config", "Claude", "claude_desktop_config.json")
	h.cursor = filepath.Join(h.home, ".cursor", "mcp.json")
	writeTestFile(t, h.desktop, desktopConfig("github", "ghp_secretvalue123456"))
	writeTestFile(t, h.cursor, "{\n  \"mcpServers\": {,\n}\n")
	if mcpJSON != "" {
		writeTestFile(t, h.cfgPath, mcpJSON)
	}
	core, err := New(Options{ConfigPath: h.cfgPath, DataDir: filepath.Join(dir, "data"),
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Keyring: func(name string) (string, error) { return "", errors.New("no keyring in this test") },
		Token:   func() (string, error) { return testToken, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { core.Close() })
	h.core = core
	return h
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func assistant(t *testing.T, c *Core, name string) assistants.Summary {
	t.Helper()
	list, err := c.Assistants()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range list {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("Assistants() has no %s: %+v", name, list)
	return assistants.Summary{}
}

func TestAssistantsStates(t *testing.T) {
	h := newAssistantsHome(t, "")
	list, err := h.core.Assistants()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 8 || list[0].Name != "claude-desktop" || list[0].Display != "Claude Desktop" {
		t.Fatalf("Assistants() = %+v, want the 8 clients in setup's order", list)
	}
	if d := list[0]; d.Path != h.desktop || !d.Exists || d.Installed || d.Current || d.Error != "" {
		t.Errorf("Claude Desktop: %+v, want its file found, without mcptray", d)
	}
	cur := assistant(t, h.core, "cursor")
	if !cur.Exists || cur.Error == "" || !strings.Contains(cur.Error, h.cursor+":2:") {
		t.Errorf("Cursor: %+v, want its file broken, with path and line", cur)
	}
	if z := assistant(t, h.core, "zed"); z.Exists || z.Error != "" || z.Path == "" {
		t.Errorf("Zed: %+v, want no file, no error", z)
	}
}

func TestPlanAssistantAddThenRemove(t *testing.T) {
	h := newAssistantsHome(t, "")
	env, err := assistants.InstalledEnv()
	if err != nil {
		t.Fatal(err)
	}
	before := readTestFile(t, h.desktop)
	ch, err := h.core.PlanAssistant("claude-desktop", false)
	if err != nil {
		t.Fatal(err)
	}
	if readTestFile(t, h.desktop) != before {
		t.Fatal("planning wrote the file")
	}
	if ch.Write == nil || ch.Path != h.desktop || ch.Remove || ch.Display != "Claude Desktop" {
		t.Fatalf("plan: %+v", ch)
	}
	if !strings.Contains(ch.Diff, "+      \"command\": \""+env.Self+"\",") || strings.Contains(ch.Diff, "ghp_secretvalue123456") {
		t.Errorf("diff names mcptray at %s and hides the token?\n%s", env.Self, ch.Diff)
	}
	if ch.Hint != "restart Claude Desktop to load mcptray" || ch.Backup != h.desktop+".mcptray-backup" {
		t.Errorf("hint %q, backup %q", ch.Hint, ch.Backup)
	}
	if err := ch.Write(); err != nil {
		t.Fatal(err)
	}
	if a := assistant(t, h.core, "claude-desktop"); !a.Installed || !a.Current {
		t.Errorf("after Write: %+v, want mcptray there", a)
	}
	if again, err := h.core.PlanAssistant("claude-desktop", false); err != nil || again.Diff != "" || again.Write != nil {
		t.Errorf("a second Add: %+v, %v; want nothing to do", again, err)
	}

	rm, err := h.core.PlanAssistant("claude-desktop", true)
	if err != nil {
		t.Fatal(err)
	}
	if !rm.Remove || !strings.Contains(rm.Diff, "-    \"mcptray\"") || rm.Hint != "restart Claude Desktop for it to stop running mcptray" {
		t.Errorf("remove plan: %+v", rm)
	}
	if err := rm.Write(); err != nil {
		t.Fatal(err)
	}
	if got := readTestFile(t, h.desktop); got != before {
		t.Errorf("after Add and Remove the file is not what it was:\n%s", got)
	}
}

func TestPlanAssistantRefusesABrokenFileAndUnknownClients(t *testing.T) {
	h := newAssistantsHome(t, "")
	if _, err := h.core.PlanAssistant("cursor", false); err == nil || !strings.Contains(err.Error(), h.cursor+":2:") {
		t.Errorf("Add to a broken file: %v, want its path and line", err)
	}
	if _, err := h.core.PlanAssistant("notepad", false); err == nil {
		t.Error("an unknown client was planned")
	}
	if _, err := h.core.PlanImport("cursor"); err == nil {
		t.Error("an import from a broken file was planned")
	}
}

func TestImportMovesSecretsAndReplaces(t *testing.T) {
	h := newAssistantsHome(t, `{"mcpServers": {"github": {"command": "github-mcp-server"}}}`+"\n")
	p, err := h.core.PlanImport("claude-desktop")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Servers) != 1 || p.Servers[0].Name != "github" || p.Servers[0].As != "github-2" || p.Servers[0].Skip != "" {
		t.Fatalf("servers: %+v, want github as github-2 (mcp.json has another github)", p.Servers)
	}
	want := assistants.ImportSecret{Server: "github-2", Field: "env", Key: "GITHUB_TOKEN", Reference: "${keyring:github-2-GITHUB_TOKEN}"}
	if len(p.Secrets) != 1 || p.Secrets[0] != want {
		t.Fatalf("secrets: %+v, want %+v", p.Secrets, want)
	}
	if p.From != h.desktop || p.Config != h.cfgPath || p.Hint != "restart Claude Desktop to load mcptray" {
		t.Errorf("plan: %+v", p)
	}
	if s := fmt.Sprintf("%+v %#v %v", p.Secrets, p.Secrets, p.Notes); strings.Contains(s, "ghp_secretvalue123456") {
		t.Error("the plan prints the secret's value")
	}

	choice := assistants.ImportChoice{Move: []bool{true}, Replace: true}
	d, err := h.core.ImportDiff(p, choice)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(d, "ghp_secretvalue123456") || !strings.Contains(d, `"GITHUB_TOKEN": "${keyring:github-2-GITHUB_TOKEN}"`) ||
		!strings.Contains(d, "+++ "+h.desktop) || !strings.Contains(d, "+++ "+h.cfgPath) {
		t.Errorf("diff (moved, replaced):\n%s", d)
	}
	if d, _ := h.core.ImportDiff(p, assistants.ImportChoice{Move: []bool{false}}); strings.Contains(d, h.desktop) || !strings.Contains(d, `"GITHUB_TOKEN": "********"`) {
		t.Errorf("diff (kept, not replaced):\n%s", d)
	}
	if _, err := h.core.ImportDiff(p, assistants.ImportChoice{}); err == nil {
		t.Error("a choice without the secret's was taken")
	}

	stored := map[string]string{}
	h.core.storeSecret = func(name, value string) error { stored[name] = value; return nil }
	if err := h.core.ApplyImport(p, choice); err != nil {
		t.Fatal(err)
	}
	if stored["github-2-GITHUB_TOKEN"] != "ghp_secretvalue123456" || len(stored) != 1 {
		t.Errorf("stored %d secrets, want the token as github-2-GITHUB_TOKEN", len(stored))
	}
	cfg := readTestFile(t, h.cfgPath)
	if !strings.Contains(cfg, `"github-2": {"command": "npx"`) || !strings.Contains(cfg, "${keyring:github-2-GITHUB_TOKEN}") || strings.Contains(cfg, "ghp_") {
		t.Errorf("mcp.json after the import:\n%s", cfg)
	}
	desk := readTestFile(t, h.desktop)
	if strings.Contains(desk, "github") || !strings.Contains(desk, `"mcptray"`) || !strings.Contains(desk, "// the person's own") {
		t.Errorf("Claude Desktop's config after replacing:\n%s", desk)
	}
	if a := assistant(t, h.core, "claude-desktop"); !a.Current {
		t.Errorf("after the import with Replace: %+v, want mcptray there", a)
	}
}

func TestImportKeepingSecretsLeavesTheClientAlone(t *testing.T) {
	h := newAssistantsHome(t, "")
	p, err := h.core.PlanImport("claude-desktop")
	if err != nil {
		t.Fatal(err)
	}
	h.core.storeSecret = func(name, value string) error { t.Errorf("stored %s", name); return nil }
	before := readTestFile(t, h.desktop)
	if err := h.core.ApplyImport(p, assistants.ImportChoice{Move: []bool{false}}); err != nil {
		t.Fatal(err)
	}
	if cfg := readTestFile(t, h.cfgPath); !strings.Contains(cfg, `"GITHUB_TOKEN": "ghp_secretvalue123456"`) {
		t.Errorf("mcp.json without moving the secret:\n%s", cfg)
	}
	if readTestFile(t, h.desktop) != before {
		t.Error("Claude Desktop's config changed without Replace")
	}
}

func TestImportWritesNothingWhenASecretCannotBeStored(t *testing.T) {
	h := newAssistantsHome(t, `{"mcpServers": {}}`+"\n")
	p, err := h.core.PlanImport("claude-desktop")
	if err != nil {
		t.Fatal(err)
	}
	h.core.storeSecret = func(name, value string) error { return errors.New("the keyring is locked") }
	err = h.core.ApplyImport(p, assistants.ImportChoice{Move: []bool{true}, Replace: true})
	if err == nil || err.Error() != "storing ${keyring:github-GITHUB_TOKEN}: the keyring is locked" {
		t.Errorf("ApplyImport = %v", err)
	}
	if cfg := readTestFile(t, h.cfgPath); cfg != `{"mcpServers": {}}`+"\n" {
		t.Errorf("mcp.json was written:\n%s", cfg)
	}
	if d := readTestFile(t, h.desktop); d != desktopConfig("github", "ghp_secretvalue123456") {
		t.Errorf("Claude Desktop's config was written:\n%s", d)
	}
}

// The real keyring (scripts/desktop-session.sh; skipped without one
// elsewhere): a moved secret is stored as `mcptray secret set` stores it.
func TestImportMovesASecretIntoTheRealKeyring(t *testing.T) {
	server := fmt.Sprintf("uiimp%d-%d", os.Getpid(), time.Now().UnixNano())
	name := server + "-GITHUB_TOKEN"
	testkeyring.Own(t, "keyring/"+name)
	testkeyring.Own(t, "keyring-index")
	h := newAssistantsHome(t, "")
	value := fmt.Sprintf("ghp_%d", time.Now().UnixNano())
	writeTestFile(t, h.desktop, desktopConfig(server, value))
	p, err := h.core.PlanImport("claude-desktop")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.core.ApplyImport(p, assistants.ImportChoice{Move: []bool{true}}); err != nil {
		t.Fatal(err)
	}
	if got, err := keyring.Get("keyring/" + name); err != nil || got != value {
		t.Fatalf("keyring/%s: %v (holds the value: %t)", name, err, got == value)
	}
	if names, err := keyring.SecretNames(); err != nil || !strings.Contains(strings.Join(names, " "), name) {
		t.Errorf("SecretNames() = %v, %v; want %s among them", names, err, name)
	}
	if cfg := readTestFile(t, h.cfgPath); strings.Contains(cfg, value) || !strings.Contains(cfg, "${keyring:"+name+"}") {
		t.Errorf("mcp.json:\n%s", cfg)
	}
}

// A secret whose keyring name the keyring has already moves under
// another, and the plan says so.
func TestImportKeepsTheKeyringsSecrets(t *testing.T) {
	h := newAssistantsHome(t, "")
	h.core.secretNames = func() ([]string, error) { return []string{"github-GITHUB_TOKEN"}, nil }
	p, err := h.core.PlanImport("claude-desktop")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Secrets) != 1 || p.Secrets[0].Reference != "${keyring:github-GITHUB_TOKEN-2}" {
		t.Fatalf("secrets %+v, want github-GITHUB_TOKEN-2", p.Secrets)
	}
	if want := "github env GITHUB_TOKEN: ${keyring:github-GITHUB_TOKEN} exists already, so it moves to ${keyring:github-GITHUB_TOKEN-2}"; !slices.Contains(p.Notes, want) {
		t.Errorf("notes %q, want %q", p.Notes, want)
	}
	stored := map[string]string{}
	h.core.storeSecret = func(name, value string) error { stored[name] = value; return nil }
	if err := h.core.ApplyImport(p, assistants.ImportChoice{Move: []bool{true}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := stored["github-GITHUB_TOKEN-2"]; !ok || len(stored) != 1 {
		t.Errorf("stored %d secrets, not as github-GITHUB_TOKEN-2", len(stored))
	}
}
