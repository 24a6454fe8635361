package googlekeys

import (
	"errors"
	"log/slog"
	"path/filepath"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/mcp/servers/google"
)

// Store is the Store of package google on the OS keyring (app/keyring):
// its errors become google.ErrNotFound for a missing entry, and an
// unavailable keyring's reason alone.
type Store struct{}

// Get reads the entry name.
func (Store) Get(name string) (string, error) {
	v, err := keyring.Get(name)
	return v, storeError(err)
}

// Set stores value under name.
func (Store) Set(name, value string) error { return storeError(keyring.Set(name, value)) }

// Delete removes the entry name.
func (Store) Delete(name string) error { return storeError(keyring.Delete(name)) }

// storeError maps app/keyring's errors to what package google expects.
func storeError(err error) error {
	var ue *keyring.UnavailableError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keyring.ErrNotFound):
		return google.ErrNotFound
	case errors.As(err, &ue):
		return ue // its reason says what is missing
	case errors.Is(err, keyring.ErrTooLarge):
		return errors.New("the value is too large for this system's keyring")
	}
	return err
}

// Accounts returns the Google accounts of data dir data: metadata in
// DATA/google-accounts.json, tokens in the keyring. logger may be nil.
func Accounts(data string, logger *slog.Logger) *google.Accounts {
	return google.New(google.Options{
		Store:  Store{},
		Path:   filepath.Join(data, google.AccountsFile),
		Logger: logger,
	})
}
