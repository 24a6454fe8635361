package google

import "errors"

// Store is the OS keyring as this package uses it: entries by name, under
// mcptray's service. The caller (cli) implements it on app/keyring, which
// this package may not import.
//
// Get returns an error matching ErrNotFound for a missing entry; an
// unavailable keyring (no D-Bus, no Secret Service, locked) is an error
// whose text names what is missing. Nothing falls back to a file.
type Store interface {
	Get(name string) (string, error)
	Set(name, value string) error
	Delete(name string) error
}

// ErrNotFound is what a Store's Get and Delete return (errors.Is) for an
// entry that is not there.
var ErrNotFound = errors.New("not found in the keyring")

// accountEntry is the keyring entry of an account's refresh token.
func accountEntry(email string) string { return "google/" + email }
