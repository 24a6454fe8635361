package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/app/googleaccounts"
)

// fakeGoogle is an in-memory GoogleCore; a nil *fakeGoogle has no client
// and no account.
type fakeGoogle struct {
	clientID  string
	clientErr error // GoogleClient's error (a keyring that cannot be read)
	accounts  []googleaccounts.Account
	// importErr, when set, is ImportGoogleClient's error.
	importErr error
	// revokeErr, when set, is RemoveGoogleAccount's RevokeError.
	revokeErr string
	// signIn is who the next AddGoogleAccount signs in ("" fails it).
	signIn   string
	browser  error    // the opened callback's browser error
	waiting  func()   // called while a sign-in waits, after opened
	imported []string // the files imported
	added    []string // the sign-ins: email ("" for a new one) and services
	removed  []string
}

func (g *fakeGoogle) GoogleClient() (string, error) {
	if g == nil {
		return "", nil
	}
	return g.clientID, g.clientErr
}

func (g *fakeGoogle) GoogleAccounts() ([]googleaccounts.Account, error) {
	if g == nil {
		return nil, nil
	}
	return slices.Clone(g.accounts), nil
}

func (g *fakeGoogle) ImportGoogleClient(path string) (string, error) {
	g.imported = append(g.imported, path)
	if g.importErr != nil {
		return "", g.importErr
	}
	g.clientID = "1234-abc.apps.googleusercontent.com"
	return g.clientID, nil
}

func (g *fakeGoogle) AddGoogleAccount(ctx context.Context, services []string, email string, opened func(string, error)) (googleaccounts.Added, error) {
	g.added = append(g.added, email+" "+strings.Join(services, ","))
	opened("https://accounts.example.com/o/oauth2/auth?client_id=x", g.browser)
	if g.waiting != nil {
		g.waiting()
	}
	if err := ctx.Err(); err != nil {
		return googleaccounts.Added{}, fmt.Errorf("the Google sign-in was stopped before it finished: %w", err)
	}
	if g.signIn == "" {
		return googleaccounts.Added{}, errors.New("the sign-in was cancelled on Google's page (access_denied)")
	}
	acc := googleaccounts.Account{Email: g.signIn, Scopes: []string{"calendar", "gmail"}, Status: googleaccounts.StatusOK, Added: testNow}
	if email != "" {
		if i := slices.IndexFunc(g.accounts, func(a googleaccounts.Account) bool { return a.Email == email }); i >= 0 {
			acc = g.accounts[i]
			acc.Status, acc.Reason = googleaccounts.StatusOK, ""
			g.accounts[i] = acc
			return googleaccounts.Added{Account: acc}, nil
		}
	}
	if len(services) == 1 {
		acc.Scopes = services
	}
	g.accounts = append(g.accounts, acc)
	return googleaccounts.Added{Account: acc}, nil
}

func (g *fakeGoogle) RemoveGoogleAccount(_ context.Context, email string) (googleaccounts.Removed, error) {
	g.removed = append(g.removed, email)
	n := len(g.accounts)
	g.accounts = slices.DeleteFunc(g.accounts, func(a googleaccounts.Account) bool { return a.Email == email })
	if len(g.accounts) == n {
		return googleaccounts.Removed{}, errors.New("no Google account " + email + " (mcptray auth google list shows them)")
	}
	return googleaccounts.Removed{Email: email, RevokeError: g.revokeErr}, nil
}

// twoGoogleAccounts is a fake with a client, one account signed in and
// one that needs to sign in again.
func twoGoogleAccounts() *fakeGoogle {
	return &fakeGoogle{clientID: "1234-abc.apps.googleusercontent.com", accounts: []googleaccounts.Account{
		{Email: "ada@example.com", Scopes: []string{"calendar", "gmail"}, Status: googleaccounts.StatusOK,
			Added: time.Date(2026, 6, 1, 9, 30, 0, 0, time.Local)},
		{Email: "bob@example.com", Scopes: []string{"calendar"}, Status: googleaccounts.StatusNeedsSignIn,
			Reason: "Google no longer accepts this sign-in (invalid_grant: Token has been expired or revoked)",
			Added:  time.Date(2026, 6, 20, 17, 5, 0, 0, time.Local)},
	}}
}
