package keyring

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mcptray/mcptray/app/config"
)

// The secrets of ${keyring:NAME}: keyring entry keyring/NAME (service
// mcptray, username keyring/NAME), set by `mcptray secret set` and the
// Settings tab, or by any tool that writes the keyring.
//
// go-keyring cannot list entries, so the names are kept twice: the Secret
// Service is searched (service=mcptray, username keyring/…) and the
// Credential Manager enumerated (target mcptray:keyring/…), which also
// finds entries other tools stored; where the keyring cannot be searched
// (the Keychain), the list is the index entry
// keyring-index (a JSON list of names, never a value) that SetSecret and
// RemoveSecret keep on every platform. See docs/secrets.md.

const (
	secretPrefix     = "keyring/"
	secretIndexEntry = "keyring-index"
)

// secretIndexMu serialises this process's rewrites of the index entry.
var secretIndexMu sync.Mutex

// SetSecret stores value as ${keyring:name} in the OS keyring, without a
// running instance (app's Core.SetSecret also restarts the servers using
// it).
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
	err := setBounded(secretPrefix+name, value)
	if errors.Is(err, ErrTooLarge) {
		return fmt.Errorf("the value (%d bytes) is too large for this system's keyring", len(value))
	}
	if err != nil {
		return err
	}
	err = updateSecretIndex(func(names []string) []string {
		if slices.Contains(names, name) {
			return names
		}
		return append(names, name)
	})
	if listable && errors.Is(err, ErrTooLarge) {
		// The Credential Manager holds 2560 bytes an entry: about 100
		// names. Where the keyring is listed, the index is not read.
		return nil
	}
	return err
}

// RemoveSecret deletes ${keyring:name} from the OS keyring, without a
// running instance. A name that is not stored wraps config.ErrNoSecret.
func RemoveSecret(name string) error {
	if name == "" {
		return errors.New("the secret's name is empty")
	}
	err := deleteBounded(secretPrefix + name)
	indexErr := updateSecretIndex(func(names []string) []string {
		return slices.DeleteFunc(names, func(n string) bool { return n == name })
	})
	switch {
	case errors.Is(err, ErrNotFound):
		return fmt.Errorf("%w: there is no ${keyring:%s} in the keyring", config.ErrNoSecret, name)
	case err != nil:
		return err
	}
	return indexErr
}

// SecretNames lists the names of the ${keyring:NAME} secrets, sorted.
func SecretNames() ([]string, error) {
	var names []string
	_, err := WithTimeout(Timeout, func() (string, error) {
		var err error
		names, err = List(secretPrefix)
		return "", err
	})
	if errors.Is(err, ErrListUnsupported) {
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
	v, err := WithTimeout(Timeout, func() (string, error) { return Get(secretIndexEntry) })
	if errors.Is(err, ErrNotFound) {
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
	if err := setBounded(secretIndexEntry, string(b)); err != nil {
		return fmt.Errorf("updating the list of secret names (entry %s): %w", secretIndexEntry, err)
	}
	return nil
}

// Secret returns the value of ${keyring:name}, waiting for the keyring
// at most Timeout.
func Secret(name string) (string, error) {
	return WithTimeout(Timeout, func() (string, error) { return Get(secretPrefix + name) })
}

// setBounded is Set, waiting at most Timeout.
func setBounded(name, value string) error {
	_, err := WithTimeout(Timeout, func() (string, error) { return "", Set(name, value) })
	return err
}

// deleteBounded is Delete, waiting at most Timeout.
func deleteBounded(name string) error {
	_, err := WithTimeout(Timeout, func() (string, error) { return "", Delete(name) })
	return err
}
