package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/oauth2"
)

var _ AccountSource = (*Accounts)(nil)

// accountToken is one account's token source: access tokens in RAM only,
// refreshed silently from the refresh token in the keyring. When Google
// refuses the refresh token (invalid_grant), the account's status becomes
// needs-sign-in and Token returns a *SignInNeededError.
type accountToken struct {
	a     *Accounts
	email string
	cfg   *oauth2.Config

	mu      sync.Mutex         // guards ts and refresh
	ts      oauth2.TokenSource // cfg.TokenSource (a ReuseTokenSource) over refresh
	refresh string             // the refresh token ts started from, as in the keyring
}

func newAccountToken(a *Accounts, email string, cfg *oauth2.Config, refresh string) *accountToken {
	t := &accountToken{a: a, email: email, cfg: cfg}
	t.restart(refresh)
	return t
}

// restart makes the source start over from refresh. The source outlives
// the call that made it: it refreshes with a context of its own.
func (t *accountToken) restart(refresh string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refresh = refresh
	t.ts = t.cfg.TokenSource(t.a.oauthContext(context.Background()), &oauth2.Token{RefreshToken: refresh})
}

func (t *accountToken) current() (oauth2.TokenSource, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ts, t.refresh
}

// Token returns a valid access token, refreshing it when needed.
func (t *accountToken) Token() (*oauth2.Token, error) {
	ts, rt := t.current()
	tok, err := ts.Token()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
		// Signed in again meanwhile (`mcptray auth google add` in another
		// process)? Then the keyring holds a newer token: start over.
		if cur, gerr := t.a.opts.Store.Get(accountEntry(t.email)); gerr == nil && cur != rt {
			t.restart(cur)
			ts, rt = t.current()
			tok, err = ts.Token()
		}
	}
	if err != nil {
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			reason := invalidGrantReason(re.ErrorDescription)
			t.a.log.Info("Google refused a refresh token", "account", t.email, "description", re.ErrorDescription)
			if err := t.a.markNeedsSignIn(t.email, reason, t); err != nil {
				t.a.log.Warn("saving an account's status", "account", t.email, "err", err)
			}
			return nil, &SignInNeededError{Email: t.email, Reason: reason}
		}
		return nil, fmt.Errorf("getting an access token for %s: %w", t.email, err)
	}
	// Google's refresh replies keep the refresh token (x/oauth2 carries
	// the old one over); a server that rotates it gets the new one saved.
	if tok.RefreshToken != "" && tok.RefreshToken != rt {
		if err := t.a.opts.Store.Set(accountEntry(t.email), tok.RefreshToken); err != nil {
			t.a.log.Warn("saving a new refresh token", "account", t.email, "err", err)
		} else {
			t.mu.Lock()
			if t.refresh == rt {
				t.refresh = tok.RefreshToken
			}
			t.mu.Unlock()
		}
	}
	return tok, nil
}

// TestingExpiryHint is the part of a sign-in reason that says how to stop
// the 7-day expiry of a consent screen left in "Testing".
const TestingExpiryHint = `if your OAuth consent screen is in "Testing", Google ends every sign-in after 7 days: ` +
	`publish it "In production" (Google Cloud console → Google Auth Platform → Audience → Publish app; ` +
	`for personal use it needs no verification) and sign-ins will last`

// invalidGrantReason says, for the error_description of an invalid_grant,
// why the account must sign in again.
func invalidGrantReason(desc string) string {
	said := ""
	if desc != "" {
		said = fmt.Sprintf(" (Google said: %q)", desc)
	}
	if strings.Contains(strings.ToLower(desc), "expired") {
		return "Google no longer accepts its saved sign-in" + said + "; " + TestingExpiryHint
	}
	return "Google no longer accepts its saved sign-in" + said + ": the access was revoked, or the account's password changed"
}

// markNeedsSignIn sets email's status to needs-sign-in with reason, and
// forgets src, its token source.
func (a *Accounts) markNeedsSignIn(email, reason string, src *accountToken) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sources[email] == src {
		delete(a.sources, email)
	}
	return a.update(func(list []Account) []Account {
		for i := range list {
			if strings.EqualFold(list[i].Email, email) {
				list[i].Status, list[i].Reason = StatusNeedsSignIn, reason
			}
		}
		return list
	})
}

// Client returns an HTTP client whose requests carry a fresh access token
// of email ("" means the first account). It returns a *SignInNeededError
// when the account has to sign in (again), or does not exist; a keyring
// that cannot be read is an error naming what is missing.
func (a *Accounts) Client(ctx context.Context, email string) (*http.Client, error) {
	src, err := a.source(email)
	if err != nil {
		return nil, err
	}
	// Fail here rather than in the first request: the caller can then ask
	// the person to sign in before it starts.
	if _, err := src.Token(); err != nil {
		return nil, err
	}
	return &http.Client{Transport: &oauth2.Transport{Source: src, Base: a.opts.HTTPClient.Transport}}, nil
}

// source returns the token source of email, making it from the keyring
// the first time.
func (a *Accounts) source(email string) (*accountToken, error) {
	list, err := a.List()
	if err != nil {
		return nil, err
	}
	var acc *Account
	for i := range list {
		if email == "" || strings.EqualFold(list[i].Email, email) {
			acc = &list[i]
			break
		}
	}
	switch {
	case acc == nil && email == "":
		return nil, &SignInNeededError{Reason: "no Google account has been added yet"}
	case acc == nil:
		return nil, &SignInNeededError{Email: email, Reason: "it is not one of mcptray's Google accounts"}
	case acc.Status == StatusNeedsSignIn:
		return nil, &SignInNeededError{Email: acc.Email, Reason: acc.Reason}
	}
	a.mu.Lock()
	src := a.sources[acc.Email]
	a.mu.Unlock()
	if src != nil {
		return src, nil
	}
	c, err := LoadClient(a.opts.Store)
	if err != nil {
		return nil, err
	}
	rt, err := a.opts.Store.Get(accountEntry(acc.Email))
	if errors.Is(err, ErrNotFound) {
		return nil, &SignInNeededError{Email: acc.Email, Reason: "its saved sign-in is missing from the keyring"}
	}
	if err != nil {
		return nil, fmt.Errorf("reading the sign-in of %s from the keyring: %w", acc.Email, err)
	}
	// Config.TokenSource is an oauth2.ReuseTokenSource: it refreshes only
	// when the access token is about to expire.
	src = newAccountToken(a, acc.Email, c.config("", nil), rt)
	a.mu.Lock()
	defer a.mu.Unlock()
	if old := a.sources[acc.Email]; old != nil {
		return old, nil
	}
	a.sources[acc.Email] = src
	return src, nil
}
