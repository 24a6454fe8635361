package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/app/googlekeys"
	"github.com/mcptray/mcptray/mcp/servers/google"
)

// The Google accounts, as the tray's Google tab and `mcptray auth google`
// manage them: the OAuth client and the refresh tokens in the OS keyring
// (GoogleKeyring), the rest in DATA/google-accounts.json. Both go through
// package google; this file only adapts it to the keyring and to the UI.

// GoogleKeyring is the Store of package google on the OS keyring
// (app/googlekeys).
type GoogleKeyring = googlekeys.Store

// NewGoogleAccounts returns the Google accounts of data dir data: metadata
// in DATA/google-accounts.json, tokens in the keyring. logger may be nil.
func NewGoogleAccounts(data string, logger *slog.Logger) *google.Accounts {
	return googlekeys.Accounts(data, logger)
}

// Google account statuses, as GoogleAccount.Status has them.
const (
	GoogleStatusOK          = google.StatusOK
	GoogleStatusNeedsSignIn = google.StatusNeedsSignIn
)

// GoogleAccount is a signed-in Google account as the UI shows it: never a
// token.
type GoogleAccount struct {
	Email string
	// Scopes are the services granted: "calendar", "gmail".
	Scopes []string
	Status string // GoogleStatusOK or GoogleStatusNeedsSignIn
	Reason string // why it needs to sign in again
	Added  time.Time
}

// GoogleAdded is a finished sign-in.
type GoogleAdded struct {
	Account GoogleAccount
	// Warnings say what each service the person did not grant disables.
	Warnings []string
}

// GoogleRemoved says how a removal went.
type GoogleRemoved struct {
	Email string
	// RevokeError, when not empty, is why the sign-in could not be revoked
	// at Google; the account was removed here all the same.
	RevokeError string
}

func (c *Core) googleAccounts() *google.Accounts {
	return NewGoogleAccounts(c.opts.DataDir, c.log)
}

// GoogleAccounts lists the Google accounts, first added first. It reads
// only the accounts file, not the keyring.
func (c *Core) GoogleAccounts() ([]GoogleAccount, error) {
	list, err := c.googleAccounts().List()
	if err != nil {
		return nil, err
	}
	out := make([]GoogleAccount, 0, len(list))
	for _, a := range list {
		out = append(out, googleAccount(a))
	}
	return out, nil
}

func googleAccount(a google.Account) GoogleAccount {
	return GoogleAccount{Email: a.Email, Scopes: a.Scopes, Status: a.Status, Reason: a.Reason, Added: a.Added}
}

// GoogleClient returns the imported OAuth client's id, "" when none was
// imported; an error when the keyring cannot be read.
func (c *Core) GoogleClient() (string, error) {
	cl, err := google.LoadClient(GoogleKeyring{})
	if errors.Is(err, google.ErrNoClient) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return cl.ID, nil
}

// ImportGoogleClient imports the "Desktop app" OAuth client file at path
// (as `mcptray auth google client FILE`) and returns its id. A file that is
// no such client gets package google's error saying what it is and what to
// download instead.
func (c *Core) ImportGoogleClient(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the client file: %w", err)
	}
	cl, err := google.ParseClientFile(b)
	if err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if err := google.SetClient(GoogleKeyring{}, cl); err != nil {
		return "", err
	}
	c.log.Info("imported the Google OAuth client", "client_id", cl.ID)
	return cl.ID, nil
}

// AddGoogleAccount signs an account in for services (calendar, gmail;
// both when empty), as `mcptray auth google add`: it opens Google's
// consent page in the browser ($BROWSER, else the desktop's opener), calls
// opened with its address and the browser's error (nil when it opened),
// and waits for the loopback redirect until ctx ends (5 minutes at most).
// email, when not empty, is an account signing in again: it is preselected
// on Google's page, and asked for the services it had.
func (c *Core) AddGoogleAccount(ctx context.Context, services []string, email string, opened func(url string, browserErr error)) (GoogleAdded, error) {
	accs := c.googleAccounts()
	if email != "" && len(services) == 0 {
		if a, err := accs.Get(email); err == nil && a != nil {
			services = a.Scopes
		}
	}
	s, err := accs.StartSignIn(services, email)
	if err != nil {
		return GoogleAdded{}, err
	}
	defer s.Close()
	berr := google.OpenBrowser(s.URL)
	if opened != nil {
		opened(s.URL, berr)
	}
	added, err := s.Wait(ctx)
	if err != nil {
		return GoogleAdded{}, err
	}
	c.log.Info("signed a Google account in", "account", added.Account.Email, "scopes", added.Account.Scopes)
	return GoogleAdded{Account: googleAccount(added.Account), Warnings: added.Messages()}, nil
}

// RemoveGoogleAccount revokes email's sign-in at Google and forgets the
// account, as `mcptray auth google remove`. When the revocation fails
// (offline, say), the account is removed all the same and the result says
// why it was not revoked.
func (c *Core) RemoveGoogleAccount(ctx context.Context, email string) (GoogleRemoved, error) {
	res, err := c.googleAccounts().Remove(ctx, email)
	if err != nil {
		return GoogleRemoved{}, err
	}
	out := GoogleRemoved{Email: res.Email}
	if res.RevokeError != nil {
		out.RevokeError = res.RevokeError.Error()
		c.log.Warn("removed a Google account without revoking its sign-in", "account", res.Email, "err", res.RevokeError)
	} else {
		c.log.Info("removed a Google account", "account", res.Email)
	}
	return out, nil
}
