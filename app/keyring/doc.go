// Package keyring keeps mcptray's small secrets in the operating system's
// keyring (Secret Service on Linux, Keychain on macOS, Credential Manager on
// Windows) through github.com/zalando/go-keyring, under the service name
// "mcptray". Entry names are listed in DESIGN.md §9.
//
// Its errors are meant to be shown to a person: a missing entry is
// [ErrNotFound]; a keyring that cannot be reached (no session D-Bus, no
// Secret Service, a locked collection) is an [*UnavailableError] whose
// message says what is missing, and which matches [ErrUnavailable] with
// errors.Is. No error ever contains a secret value. The package has no
// state and starts no goroutines; every call is safe for concurrent use.
package keyring
