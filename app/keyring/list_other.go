//go:build !((dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd || windows)

package keyring

// listable: List cannot enumerate the Keychain.
const listable = false

// List would return the names of the entries that start with prefix;
// go-keyring cannot enumerate the Keychain, so here it is
// ErrListUnsupported (callers keep an index of their own).
func List(prefix string) ([]string, error) { return nil, ErrListUnsupported }
