package keyring

import (
	"errors"
	"fmt"
	"strings"

	gokeyring "github.com/zalando/go-keyring"
)

// Service is the service name every mcptray entry is stored under.
const Service = "mcptray"

var (
	// ErrNotFound means the keyring has no entry of that name.
	ErrNotFound = errors.New("not found in the keyring")

	// ErrUnavailable matches (errors.Is) every error that says the keyring
	// cannot be reached at all. The error itself is an *UnavailableError
	// with a one-line reason.
	ErrUnavailable = errors.New("the keyring is unavailable")

	// ErrTooLarge means the value is too large for this platform's keyring
	// (macOS allows ≈ 3000 bytes, Windows 2560).
	ErrTooLarge = errors.New("the value is too large for the keyring")

	// ErrListUnsupported means this platform's keyring cannot list its
	// entries: the Keychain (go-keyring has no list; the Secret Service
	// and the Credential Manager are listed here).
	ErrListUnsupported = errors.New("this keyring cannot list its entries")
)

// UnavailableError says why the keyring cannot be reached. Error returns
// only Reason, a line for a person; Err is the underlying detail, for the
// log.
type UnavailableError struct {
	Reason string
	Err    error
}

func (e *UnavailableError) Error() string { return e.Reason }

// Unwrap makes errors.Is(e, ErrUnavailable) true and keeps Err reachable.
func (e *UnavailableError) Unwrap() []error { return []error{ErrUnavailable, e.Err} }

// Get returns the value stored under name.
func Get(name string) (string, error) {
	if name == "" {
		return "", errEmptyName
	}
	v, err := gokeyring.Get(Service, name)
	if err != nil {
		return "", fmt.Errorf("reading %q: %w", name, classify(err, ""))
	}
	return v, nil
}

// Set stores value under name, replacing any value already there.
func Set(name, value string) error {
	if name == "" {
		return errEmptyName
	}
	if err := gokeyring.Set(Service, name, value); err != nil {
		return fmt.Errorf("storing %q: %w", name, classify(err, value))
	}
	return nil
}

// Delete removes the entry name. Deleting a missing entry is ErrNotFound.
func Delete(name string) error {
	if name == "" {
		return errEmptyName
	}
	if err := gokeyring.Delete(Service, name); err != nil {
		return fmt.Errorf("deleting %q: %w", name, classify(err, ""))
	}
	return nil
}

var errEmptyName = errors.New("keyring entry name is empty")

// classify maps an error from go-keyring to this package's errors. value,
// when not empty, is the secret being stored: an underlying error whose
// text contains it is replaced, so it can reach no log.
func classify(err error, value string) error {
	if value != "" && strings.Contains(err.Error(), value) {
		err = errWithheld
	}
	switch {
	case errors.Is(err, gokeyring.ErrNotFound):
		return ErrNotFound
	case errors.Is(err, gokeyring.ErrSetDataTooBig):
		return ErrTooLarge
	}
	if reason, ok := unavailableReason(err); ok {
		return &UnavailableError{Reason: reason, Err: err}
	}
	return err
}

// errWithheld stands in for an underlying error that quoted the secret.
var errWithheld = errors.New("keyring error withheld: its text contained the secret value")
