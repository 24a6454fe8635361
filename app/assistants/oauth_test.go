package assistants

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/config"
)

// An assistant's "oauth" block (Claude Code's spelling; VS Code's entries
// take the same) comes over with its remote server; a literal client
// secret moves to the keyring whatever is chosen for the other secrets
// (mcp.json takes it only as ${keyring:…}), and never shows in a diff.
func TestImportOAuth(t *testing.T) {
	t.Parallel()
	block := `"oauth": {"clientId": "cid-1", "clientSecret": "cs-` + secretMark + `", "scopes": ["read", "write"], "callbackPort": 8765}`
	for client, file := range map[string]string{
		"claude-code": `{"mcpServers": {"linear": {"type": "http", "url": "https://mcp.linear.app/mcp", ` + block + `},
		  "ref": {"type": "http", "url": "https://b.example/mcp", "oauth": {"clientId": "cid-2", "clientSecret": "${keyring:kept}"}}}}`,
		"vscode": `{"servers": {"linear": {"type": "http", "url": "https://mcp.linear.app/mcp", ` + block + `},
		  "ref": {"type": "http", "url": "https://b.example/mcp", "oauth": {"clientId": "cid-2", "clientSecret": "${keyring:kept}"}}}}`,
	} {
		t.Run(client, func(t *testing.T) {
			t.Parallel()
			c, ok := Find(client)
			if !ok {
				t.Fatal("no client", client)
			}
			e := testEnv(t)
			place(t, c, e, []byte(file))
			cfgPath := filepath.Join(e.Home, ".config", "mcptray", "mcp.json")
			im, err := NewImport(c, e, cfgPath)
			if err != nil {
				t.Fatal(err)
			}
			if len(im.Secrets) != 1 || !im.Secrets[0].Required || !im.Secrets[0].Move || im.Secrets[0].Field != "oauth" {
				t.Fatalf("secrets: %#v", im.Secrets)
			}
			cfg, _, err := im.Plans(false)
			if err != nil {
				t.Fatal(err)
			}
			for what, text := range map[string]string{"mcp.json": string(cfg.After), "the diff": cfg.Diff(), "summary": summary(im)} {
				if strings.Contains(text, secretMark) {
					t.Errorf("the client secret is in %s:\n%s", what, text)
				}
			}
			stored := map[string]string{}
			if err := im.Apply(false, func(name, value string) error { stored[name] = value; return nil }); err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(cfgPath)
			if err != nil || bytes.Contains(after, []byte(secretMark)) {
				t.Fatalf("mcp.json: %v\n%s", err, after)
			}
			parsed, err := config.Parse(after, config.Env{Home: e.Home, Self: self, Keyring: func(name string) (string, error) {
				if v, ok := stored[name]; ok {
					return v, nil
				}
				if name == "kept" {
					return "kept-value", nil
				}
				return "", config.ErrKeyringNotFound
			}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]*config.OAuth{}
			for _, s := range parsed.Servers {
				if s.Err != nil {
					t.Errorf("%s refused: %v", s.Name, s.Err)
				}
				got[s.Name] = s.OAuth
			}
			l := got["linear"]
			if l == nil || l.ClientID != "cid-1" || l.ClientSecret != "cs-"+secretMark || strings.Join(l.Scopes, " ") != "read write" || l.CallbackPort != 8765 {
				t.Errorf("linear's oauth: %+v", l)
			}
			if r := got["ref"]; r == nil || r.ClientID != "cid-2" || r.ClientSecret != "kept-value" {
				t.Errorf("ref's oauth: %+v", r)
			}
		})
	}
}
