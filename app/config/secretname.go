package config

import (
	"errors"
	"fmt"
	"strings"
)

// The names and values of ${keyring:NAME}: what the keyring takes, checked
// where a secret is stored (keyring.SetSecret) and where an entry names one
// (File.Add).

// ErrNoSecret is wrapped when no secret has the name asked for
// (app.Core.RemoveSecret, the control API's 404).
var ErrNoSecret = errors.New("no such secret")

const (
	// maxSecretName bounds a name (it is part of a keyring entry's
	// username).
	maxSecretName = 200
	// MaxSecretValue bounds a value (the Keychain and the Credential
	// Manager take far less: about 3000 and 2560 bytes).
	MaxSecretValue = 64 << 10
)

// CheckSecretName says why name cannot be the NAME of ${keyring:NAME}.
func CheckSecretName(name string) error {
	switch {
	case name == "":
		return errors.New("the secret's name is empty")
	case len(name) > maxSecretName:
		return fmt.Errorf("a secret's name is at most %d characters", maxSecretName)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/@+:", r)) {
			// The name is not repeated: a value typed in its place must not
			// be echoed.
			return errors.New("a secret's name (what goes in ${keyring:NAME}) has letters, digits and . _ - / @ + : only")
		}
	}
	return nil
}
