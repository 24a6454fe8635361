package google

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// AccountsFile is the name of the accounts file in mcptray's data dir:
// each account's address, services, status and when it was added. It holds
// no secret; the refresh tokens are in the keyring.
const AccountsFile = "google-accounts.json"

// An account's status.
const (
	StatusOK          = "ok"
	StatusNeedsSignIn = "needs-sign-in"
)

// Account is what mcptray knows of a signed-in Google account, apart from
// its token.
type Account struct {
	Email string `json:"email"`
	// Scopes are the services granted: "calendar", "gmail".
	Scopes []string  `json:"scopes"`
	Status string    `json:"status"`           // StatusOK or StatusNeedsSignIn
	Reason string    `json:"reason,omitempty"` // why it needs to sign in
	Added  time.Time `json:"added"`
}

// Has says whether the account was granted service.
func (a Account) Has(service string) bool { return slices.Contains(a.Scopes, service) }

// Options configure Accounts.
type Options struct {
	// Store is the keyring: the OAuth client and the refresh tokens.
	Store Store
	// Path is the accounts file (DATA/AccountsFile).
	Path string
	// HTTPClient sends the OAuth requests (token, revoke); nil means
	// http.DefaultClient.
	HTTPClient *http.Client
	// OpenBrowser opens the sign-in page for Add; nil means $BROWSER, else
	// xdg-open (open on macOS).
	OpenBrowser func(url string) error
	// Logger gets what a person does not need to see; nil discards.
	Logger *slog.Logger
	// SignInTimeout is how long a sign-in waits for the browser;
	// DefaultSignInTimeout when 0.
	SignInTimeout time.Duration
}

// Accounts are the Google accounts signed in with the user's OAuth
// client. It implements AccountSource. Its methods are safe for concurrent
// use; several processes (the CLI, gcal, gmail) share the accounts file,
// which is read afresh by every call.
type Accounts struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex               // guards sources and the file's read-modify-write
	sources map[string]*accountToken // email → its access tokens (RAM only)

	pending pendingSignIns // sign-ins waiting for a call's retry (signin_rounds.go)
}

// New returns the accounts kept in opts.Path and opts.Store.
func New(opts Options) *Accounts {
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	if opts.SignInTimeout <= 0 {
		opts.SignInTimeout = DefaultSignInTimeout
	}
	if opts.OpenBrowser == nil {
		opts.OpenBrowser = OpenBrowser
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Accounts{opts: opts, log: log, sources: map[string]*accountToken{}}
}

// oauthContext is the context x/oauth2 sends token requests with.
func (a *Accounts) oauthContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, a.opts.HTTPClient)
}

// accountsFile is the accounts file's JSON.
type accountsFile struct {
	Accounts []Account `json:"accounts"`
}

// load reads the accounts file; a missing file is no accounts.
func (a *Accounts) load() ([]Account, error) {
	b, err := os.ReadFile(a.opts.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the Google accounts file: %w", err)
	}
	var f accountsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("the Google accounts file %s is damaged (%v): remove it and add the accounts again", a.opts.Path, err)
	}
	return f.Accounts, nil
}

// save writes the accounts file atomically.
func (a *Accounts) save(list []Account) error {
	if list == nil {
		list = []Account{}
	}
	b, err := json.MarshalIndent(accountsFile{Accounts: list}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(a.opts.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing the Google accounts file: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".google-accounts-*")
	if err != nil {
		return fmt.Errorf("writing the Google accounts file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the Google accounts file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the Google accounts file: %w", err)
	}
	if err := os.Rename(tmp.Name(), a.opts.Path); err != nil {
		return fmt.Errorf("writing the Google accounts file: %w", err)
	}
	return nil
}

// update applies f to the accounts under a.mu and saves them.
func (a *Accounts) update(f func([]Account) []Account) error {
	list, err := a.load()
	if err != nil {
		return err
	}
	return a.save(f(list))
}

// List returns the accounts, first added first.
func (a *Accounts) List() ([]Account, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.load()
}

// Emails lists the accounts' addresses, first added first.
func (a *Accounts) Emails() ([]string, error) {
	list, err := a.List()
	var out []string
	for _, acc := range list {
		out = append(out, acc.Email)
	}
	return out, err
}

// Get returns the account of email, nil when there is none.
func (a *Accounts) Get(email string) (*Account, error) {
	list, err := a.List()
	if err != nil {
		return nil, err
	}
	for _, acc := range list {
		if strings.EqualFold(acc.Email, email) {
			return &acc, nil
		}
	}
	return nil, nil
}

// Removed says how Remove went.
type Removed struct {
	Email string
	// RevokeError is why the token could not be revoked at Google (it was
	// deleted here all the same); nil when it was revoked.
	RevokeError error
}

// Remove revokes email's refresh token at Google and deletes it and the
// account. When the revocation fails (offline, say), it deletes all the
// same and says so in the result.
func (a *Accounts) Remove(ctx context.Context, email string) (*Removed, error) {
	acc, err := a.Get(email)
	if err != nil {
		return nil, err
	}
	if acc != nil {
		email = acc.Email
	}
	rt, err := a.opts.Store.Get(accountEntry(email))
	found := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("reading the sign-in of %s from the keyring: %w", email, err)
	}
	if acc == nil && !found {
		return nil, fmt.Errorf("no Google account %s (mcptray auth google list shows them)", email)
	}
	res := &Removed{Email: email}
	if found {
		res.RevokeError = a.revoke(ctx, rt)
		if err := a.opts.Store.Delete(accountEntry(email)); err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("deleting the sign-in of %s from the keyring: %w", email, err)
		}
	} else {
		res.RevokeError = errors.New("the keyring held no sign-in of it to revoke")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.sources, email)
	err = a.update(func(list []Account) []Account {
		return slices.DeleteFunc(list, func(x Account) bool { return strings.EqualFold(x.Email, email) })
	})
	return res, err
}

// revoke revokes a token at the client's revocation endpoint (RFC 7009:
// the token in the form body, never in the URL).
func (a *Accounts) revoke(ctx context.Context, token string) error {
	c, err := LoadClient(a.opts.Store)
	if err != nil {
		return err
	}
	u, err := c.RevokeURL()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(url.Values{"token": {token}}.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := a.opts.HTTPClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("could not reach %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error == "invalid_token" {
		return nil // revoked or expired already
	}
	return fmt.Errorf("%s answered %s", u, resp.Status)
}
