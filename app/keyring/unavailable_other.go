//go:build !((dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd)

package keyring

import (
	"errors"
	"os/exec"
)

// unavailableReason says whether an error from go-keyring's Keychain or
// Credential Manager provider means the keyring cannot be used. Those
// providers report little beyond "not found"; a missing helper program is
// the one cause recognised here.
func unavailableReason(err error) (string, bool) {
	var execErr *exec.Error
	if errors.As(err, &execErr) {
		return "the system keyring tool cannot be run: " + execErr.Error(), true
	}
	return "", false
}
