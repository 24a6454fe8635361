package app

import (
	"context"

	"github.com/mcptray/mcptray/app/googleaccounts"
)

// The Google tab's API: app/googleaccounts on this core's data dir and
// log.

func (c *Core) googleAccounts() *googleaccounts.Manager {
	return googleaccounts.New(c.opts.DataDir, c.log)
}

// GoogleAccounts lists the Google accounts, first added first
// (googleaccounts.Manager.List).
func (c *Core) GoogleAccounts() ([]googleaccounts.Account, error) {
	return c.googleAccounts().List()
}

// GoogleClient returns the imported OAuth client's id, "" when none was
// imported (googleaccounts.Manager.Client).
func (c *Core) GoogleClient() (string, error) { return c.googleAccounts().Client() }

// ImportGoogleClient imports the "Desktop app" OAuth client file at path
// and returns its id (googleaccounts.Manager.ImportClient).
func (c *Core) ImportGoogleClient(path string) (string, error) {
	return c.googleAccounts().ImportClient(path)
}

// AddGoogleAccount signs an account in for services in the browser
// (googleaccounts.Manager.Add).
func (c *Core) AddGoogleAccount(ctx context.Context, services []string, email string, opened func(url string, browserErr error)) (googleaccounts.Added, error) {
	return c.googleAccounts().Add(ctx, services, email, opened)
}

// RemoveGoogleAccount revokes email's sign-in at Google and forgets the
// account (googleaccounts.Manager.Remove).
func (c *Core) RemoveGoogleAccount(ctx context.Context, email string) (googleaccounts.Removed, error) {
	return c.googleAccounts().Remove(ctx, email)
}
