package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/keyring"
)

// The secrets of ${keyring:NAME}: keyring entry keyring/NAME (service
// mcptray, username keyring/NAME), set by `mcptray secret set` and the
// Settings tab, or by any tool that writes the keyring.
//
// go-keyring cannot list entries, so the names are kept twice: the Secret
// Service is searched (service=mcptray, username keyring/…), which also
// finds entries other tools stored; where the keyring cannot be searched
// (Keychain, Credential Manager), the list is the index entry
// keyring-index (a JSON list of names, never a value) that SetSecret and
// RemoveSecret keep on every platform. See docs/secrets.md.

const (
	secretPrefix     = "keyring/"
	secretIndexEntry = "keyring-index"
)

// secretIndexMu serialises this process's rewrites of the index entry.
var secretIndexMu sync.Mutex

// SetSecret stores value as ${keyring:name} in the OS keyring, without a
// running instance (Core.SetSecret also restarts the servers using it).
func SetSecret(name, value string) error {
	if err := config.CheckSecretName(name); err != nil {
		return err
	}
	switch {
	case value == "":
		return errors.New("the value is empty: nothing stored")
	case len(value) > config.MaxSecretValue:
		return fmt.Errorf("the value has %d bytes; a secret holds at most %d", len(value), config.MaxSecretValue)
	}
	err := (osKeyring{}).Set(secretPrefix+name, value)
	if errors.Is(err, keyring.ErrTooLarge) {
		return fmt.Errorf("the value (%d bytes) is too large for this system's keyring", len(value))
	}
	if err != nil {
		return err
	}
	return updateSecretIndex(func(names []string) []string {
		if slices.Contains(names, name) {
			return names
		}
		return append(names, name)
	})
}

// RemoveSecret deletes ${keyring:name} from the OS keyring, without a
// running instance. A name that is not stored wraps config.ErrNoSecret.
func RemoveSecret(name string) error {
	if name == "" {
		return errors.New("the secret's name is empty")
	}
	err := (osKeyring{}).Delete(secretPrefix + name)
	indexErr := updateSecretIndex(func(names []string) []string {
		return slices.DeleteFunc(names, func(n string) bool { return n == name })
	})
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return fmt.Errorf("%w: there is no ${keyring:%s} in the keyring", config.ErrNoSecret, name)
	case err != nil:
		return err
	}
	return indexErr
}

// SecretNames lists the names of the ${keyring:NAME} secrets, sorted.
func SecretNames() ([]string, error) {
	var names []string
	_, err := withTimeout(keyringTimeout, func() (string, error) {
		var err error
		names, err = keyring.List(secretPrefix)
		return "", err
	})
	if errors.Is(err, keyring.ErrListUnsupported) {
		names, err = readSecretIndex()
	}
	if err != nil {
		return nil, err
	}
	if names == nil {
		names = []string{}
	}
	slices.Sort(names)
	return names, nil
}

// readSecretIndex reads the index entry (none yet: no names).
func readSecretIndex() ([]string, error) {
	v, err := (osKeyring{}).Get(secretIndexEntry)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	if err := json.Unmarshal([]byte(v), &names); err != nil {
		return nil, fmt.Errorf("the keyring entry %s is not a list of names: %v", secretIndexEntry, err)
	}
	return names, nil
}

// updateSecretIndex rewrites the index entry with edit's list.
func updateSecretIndex(edit func([]string) []string) error {
	secretIndexMu.Lock()
	defer secretIndexMu.Unlock()
	names, err := readSecretIndex()
	if err != nil {
		names = nil // a damaged index is rebuilt from here on
	}
	before := len(names)
	names = edit(slices.Clone(names))
	if err == nil && len(names) == before {
		return nil
	}
	if names == nil {
		names = []string{}
	}
	b, _ := json.Marshal(names)
	if err := (osKeyring{}).Set(secretIndexEntry, string(b)); err != nil {
		return fmt.Errorf("updating the list of secret names (entry %s): %w", secretIndexEntry, err)
	}
	return nil
}

// SetSecret stores value as ${keyring:name} and re-reads mcp.json: a
// server that was refused for want of it starts, and one that ran with an
// older value restarts with the new one.
func (c *Core) SetSecret(name, value string) error {
	if err := SetSecret(name, value); err != nil {
		return err
	}
	c.log.Info("secret set; servers using it restart", "secret", name)
	c.requestReload()
	return nil
}

// RemoveSecret deletes ${keyring:name} and re-reads mcp.json: the servers
// using it are refused until it is set again.
func (c *Core) RemoveSecret(name string) error {
	if err := RemoveSecret(name); err != nil {
		return err
	}
	c.log.Info("secret removed", "secret", name)
	c.requestReload()
	return nil
}

// SecretNames lists the names of the ${keyring:NAME} secrets.
func (c *Core) SecretNames() ([]string, error) { return SecretNames() }
