package googleaccounts

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
// (googlekeys.Store), the rest in DATA/google-accounts.json. Both go
// through package google; this file only adapts it to the keyring and to
// the UI.

// Account statuses, as Account.Status has them.
const (
	StatusOK          = google.StatusOK
	StatusNeedsSignIn = google.StatusNeedsSignIn
)

// Account is a signed-in Google account as the UI shows it: never a
// token.
type Account struct {
	Email string
	// Scopes are the services granted: "calendar", "gmail".
	Scopes []string
	Status string // StatusOK or StatusNeedsSignIn
	Reason string // why it needs to sign in again
	Added  time.Time
}

// Added is a finished sign-in.
type Added struct {
	Account Account
	// Warnings say what each service the person did not grant disables.
	Warnings []string
}

// Removed says how a removal went.
type Removed struct {
	Email string
	// RevokeError, when not empty, is why the sign-in could not be revoked
	// at Google; the account was removed here all the same.
	RevokeError string
}

// Manager is the Google accounts of one data dir, as the Google tab
// manages them. It holds no state beyond its data dir and logger: each
// call reads the accounts file and the keyring afresh.
type Manager struct {
	data string
	log  *slog.Logger
}

// New returns the Manager of data dir data, logging what it changes to
// logger (nil: slog.Default()).
func New(data string, logger *slog.Logger) *Manager {
	if logger == nil {
		logger = slog.Default()
	}
	return &Manager{data: data, log: logger}
}

func (m *Manager) accounts() *google.Accounts {
	return googlekeys.Accounts(m.data, m.log)
}

// List lists the Google accounts, first added first. It reads only the
// accounts file, not the keyring.
func (m *Manager) List() ([]Account, error) {
	list, err := m.accounts().List()
	if err != nil {
		return nil, err
	}
	out := make([]Account, 0, len(list))
	for _, a := range list {
		out = append(out, account(a))
	}
	return out, nil
}

func account(a google.Account) Account {
	return Account{Email: a.Email, Scopes: a.Scopes, Status: a.Status, Reason: a.Reason, Added: a.Added}
}

// Client returns the imported OAuth client's id, "" when none was
// imported; an error when the keyring cannot be read.
func (m *Manager) Client() (string, error) {
	cl, err := google.LoadClient(googlekeys.Store{})
	if errors.Is(err, google.ErrNoClient) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return cl.ID, nil
}

// ImportClient imports the "Desktop app" OAuth client file at path (as
// `mcptray auth google client FILE`) and returns its id. A file that is no
// such client gets package google's error saying what it is and what to
// download instead.
func (m *Manager) ImportClient(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the client file: %w", err)
	}
	cl, err := google.ParseClientFile(b)
	if err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if err := google.SetClient(googlekeys.Store{}, cl); err != nil {
		return "", err
	}
	m.log.Info("imported the Google OAuth client", "client_id", cl.ID)
	return cl.ID, nil
}

// Add signs an account in for services (calendar, gmail; both when
// empty), as `mcptray auth google add`: it opens Google's consent page in
// the browser ($BROWSER, else the desktop's opener), calls opened with its
// address and the browser's error (nil when it opened), and waits for the
// loopback redirect until ctx ends (5 minutes at most). email, when not
// empty, is an account signing in again: it is preselected on Google's
// page, and asked for the services it had.
func (m *Manager) Add(ctx context.Context, services []string, email string, opened func(url string, browserErr error)) (Added, error) {
	accs := m.accounts()
	if email != "" && len(services) == 0 {
		if a, err := accs.Get(email); err == nil && a != nil {
			services = a.Scopes
		}
	}
	s, err := accs.StartSignIn(services, email)
	if err != nil {
		return Added{}, err
	}
	defer s.Close()
	berr := google.OpenBrowser(s.URL)
	if opened != nil {
		opened(s.URL, berr)
	}
	added, err := s.Wait(ctx)
	if err != nil {
		return Added{}, err
	}
	m.log.Info("signed a Google account in", "account", added.Account.Email, "scopes", added.Account.Scopes)
	return Added{Account: account(added.Account), Warnings: added.Messages()}, nil
}

// Remove revokes email's sign-in at Google and forgets the account, as
// `mcptray auth google remove`. When the revocation fails (offline, say),
// the account is removed all the same and the result says why it was not
// revoked.
func (m *Manager) Remove(ctx context.Context, email string) (Removed, error) {
	res, err := m.accounts().Remove(ctx, email)
	if err != nil {
		return Removed{}, err
	}
	out := Removed{Email: res.Email}
	if res.RevokeError != nil {
		out.RevokeError = res.RevokeError.Error()
		m.log.Warn("removed a Google account without revoking its sign-in", "account", res.Email, "err", res.RevokeError)
	} else {
		m.log.Info("removed a Google account", "account", res.Email)
	}
	return out, nil
}
