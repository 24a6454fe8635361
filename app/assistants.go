package app

import (
	"log/slog"
	"slices"
	"sync"

	"github.com/mcptray/mcptray/app/assistants"
	"github.com/mcptray/mcptray/app/keyring"
)

// The Assistants tab's API: app/assistants' (its tab.go) on this core's
// mcp.json and keyring. Each reads the assistants' files and may store
// secrets in the keyring: the UI calls them off its main goroutine.

// Assistants lists the assistants mcptray knows, in `mcptray setup`'s
// order, with what their configs hold.
func (c *Core) Assistants() ([]assistants.Summary, error) { return assistants.List() }

// PlanAssistant computes the edit that puts mcptray's entry into client's
// config (or, with remove, takes it out), as `mcptray setup CLIENT
// [--remove]` would make it.
func (c *Core) PlanAssistant(client string, remove bool) (*assistants.Change, error) {
	return assistants.PlanChange(client, remove)
}

// PlanImport reads client's servers and plans their copy into this core's
// mcp.json.
func (c *Core) PlanImport(client string) (*assistants.ImportPlan, error) {
	list := c.secretNames
	if list == nil {
		list = keyring.SecretNames
	}
	return PlanImport(client, c.opts.ConfigPath, list, c.log)
}

// PlanImport reads client's servers and plans their copy into the
// mcp.json at configPath (Core.PlanImport, and a window's in another
// process: app/remote). secretNames lists the ${keyring:NAME} secrets: a
// secret moved there must not overwrite one.
func PlanImport(client, configPath string, secretNames func() ([]string, error), log *slog.Logger) (*assistants.ImportPlan, error) {
	return assistants.PlanImport(client, configPath, keyringHas(secretNames, log))
}

// keyringHas says whether the keyring holds ${keyring:NAME} already,
// listing it (with list) once, at the first question. A keyring that
// cannot be listed holds none that anyone could tell.
func keyringHas(list func() ([]string, error), log *slog.Logger) func(name string) bool {
	var once sync.Once
	var names []string
	return func(name string) bool {
		once.Do(func() {
			var err error
			names, err = list()
			if err != nil {
				log.Warn("listing the keyring's secrets for an import", "err", err)
			}
		})
		return slices.Contains(names, name)
	}
}

// ImportDiff is what ApplyImport would write with choice ch: the diff of
// mcp.json and, with Replace, of the assistant's file; secrets shown as
// "********". It reads no file.
func (c *Core) ImportDiff(p *assistants.ImportPlan, ch assistants.ImportChoice) (string, error) {
	return p.Diff(ch)
}

// ApplyImport writes the import with choice ch: the secrets to move are
// stored first, as `mcptray secret set` does (SetSecret: servers using
// them restart); nothing is written when one cannot be stored. Then
// mcp.json (as mcptray's own edit: no approval asked for what it adds)
// and, with Replace, the assistant's file, each after a backup; either is
// refused when it changed since the plan was made.
func (c *Core) ApplyImport(p *assistants.ImportPlan, ch assistants.ImportChoice) error {
	store := c.storeSecret
	if store == nil {
		store = c.SetSecret
	}
	// mcp.json as this core's own edit: the imported servers need no
	// approval (they ran in the assistant already).
	return p.Apply(ch, store, c.configFile.Replace)
}
