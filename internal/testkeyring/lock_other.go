//go:build !unix && !windows

package testkeyring

import "testing"

// lockEntry does nothing here (no flock, no LockFileEx): the keyring
// tests run on Linux, macOS and Windows.
func lockEntry(testing.TB, string) {}
