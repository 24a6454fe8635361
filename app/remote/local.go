package remote

import (
	"context"
	"io"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/assistants"
	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/googleaccounts"
)

// What this process does itself, as the CLI does: mcp.json's edits are
// made here and written through the instance (app.OwnFile: the instance
// checks the file is still what was read, and approves what mcptray
// writes); the logs, the token, the Google accounts and the assistants'
// configs are read from the same data dir, keyring and files the instance
// uses.

// ServerEntry reads a server's entry as written in mcp.json (variables
// unresolved).
func (c *Core) ServerEntry(name string) (config.Entry, error) {
	e, err := c.file.Entry(name)
	return e, c.fail(err)
}

// AddServer adds (or, with replace, edits) an entry of mcp.json; its
// secrets are stored first, through the instance (SetSecret). An
// *config.EntryError refuses it, and nothing is written.
func (c *Core) AddServer(e config.Entry, replace bool) (config.AddResult, error) {
	res, err := c.file.Add(e, config.AddOptions{Replace: replace, StoreSecret: c.SetSecret, Env: app.FileEnv(c.configPath)})
	return res, c.fail(err)
}

// RemoveServer takes an entry out of mcp.json and returns the
// ${keyring:NAME} names it used (left in the keyring).
func (c *Core) RemoveServer(name string) ([]string, error) {
	names, err := c.file.Remove(name)
	return names, c.fail(err)
}

// SetToolsMode rewrites "x-mcptray".tools in mcp.json.
func (c *Core) SetToolsMode(mode string) error {
	return c.fail(app.SetToolsMode(c.file, mode))
}

// FollowLog writes a server's log to w, then each new line, until ctx
// ends.
func (c *Core) FollowLog(ctx context.Context, name string, w io.Writer) error {
	return app.TailLog(ctx, c.dataDir, name, w, true)
}

// Token is the HTTP endpoint's bearer token, from the keyring.
func (c *Core) Token() (string, error) { return app.Token() }

// The Google tab's: app/googleaccounts on the instance's data dir.

func (c *Core) googleAccounts() *googleaccounts.Manager {
	return googleaccounts.New(c.dataDir, c.log)
}

// GoogleClient is the imported OAuth client's id, "" for none.
func (c *Core) GoogleClient() (string, error) { return c.googleAccounts().Client() }

// GoogleAccounts lists the Google accounts, first added first.
func (c *Core) GoogleAccounts() ([]googleaccounts.Account, error) {
	return c.googleAccounts().List()
}

// ImportGoogleClient imports a "Desktop app" OAuth client file and returns
// its id.
func (c *Core) ImportGoogleClient(path string) (string, error) {
	return c.googleAccounts().ImportClient(path)
}

// AddGoogleAccount signs an account in in the browser.
func (c *Core) AddGoogleAccount(ctx context.Context, services []string, email string, opened func(url string, browserErr error)) (googleaccounts.Added, error) {
	return c.googleAccounts().Add(ctx, services, email, opened)
}

// RemoveGoogleAccount revokes an account's sign-in and forgets it.
func (c *Core) RemoveGoogleAccount(ctx context.Context, email string) (googleaccounts.Removed, error) {
	return c.googleAccounts().Remove(ctx, email)
}

// The Assistants tab's: app/assistants on the instance's mcp.json.

// Assistants lists the assistants mcptray knows and what their configs
// hold.
func (c *Core) Assistants() ([]assistants.Summary, error) { return assistants.List() }

// PlanAssistant computes the edit that adds mcptray to client's config
// (or removes it).
func (c *Core) PlanAssistant(client string, remove bool) (*assistants.Change, error) {
	return assistants.PlanChange(client, remove)
}

// PlanImport reads client's servers for an import into mcp.json; the
// secrets already in the keyring are the instance's list (SecretNames).
func (c *Core) PlanImport(client string) (*assistants.ImportPlan, error) {
	return app.PlanImport(client, c.configPath, c.SecretNames, c.log)
}

// ImportDiff is what ApplyImport would write with choice ch; it reads no
// file.
func (c *Core) ImportDiff(p *assistants.ImportPlan, ch assistants.ImportChoice) (string, error) {
	return p.Diff(ch)
}

// ApplyImport stores the secrets to move through the instance
// (SetSecret), then writes mcp.json as mcptray's own edit (through the
// instance) and, with Replace, the assistant's file.
func (c *Core) ApplyImport(p *assistants.ImportPlan, ch assistants.ImportChoice) error {
	return c.fail(p.Apply(ch, c.SetSecret, c.file.Replace))
}
