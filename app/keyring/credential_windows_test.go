package keyring

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestWindowsCredentialManager: the keyring is the Credential Manager
// (go-keyring's wincred, target "mcptray:<name>"): Set, Get, List and
// Delete round-trip, the ${keyring:NAME} secrets are listed from it, and a
// value past its 2560 bytes is refused with a message that says so.
// Throwaway names and values: Wine keeps them barely obfuscated.
func TestWindowsCredentialManager(t *testing.T) {
	name := fmt.Sprintf("TEST_WINDOWS_%d", os.Getpid())
	entry := secretPrefix + name
	t.Cleanup(func() { Delete(entry); RemoveSecret(name) })

	if err := Set(entry, "v1"); err != nil {
		t.Fatal(err)
	}
	if v, err := Get(entry); err != nil || v != "v1" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	names, err := List(secretPrefix)
	if err != nil || !slices.Contains(names, name) {
		t.Errorf("List(%q) = %q, %v; want it to hold %s", secretPrefix, names, err, name)
	}
	if err := Delete(entry); err != nil {
		t.Fatal(err)
	}
	if _, err := Get(entry); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete = %v, want ErrNotFound", err)
	}
	if err := Delete(entry); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete of a missing entry = %v, want ErrNotFound", err)
	}

	if err := SetSecret(name, strings.Repeat("s", 2560)); err != nil {
		t.Fatalf("SetSecret of 2560 bytes: %v", err)
	}
	if names, err := SecretNames(); err != nil || !slices.Contains(names, name) {
		t.Errorf("SecretNames = %q, %v; want it to hold %s", names, err, name)
	}
	err = SetSecret(name, strings.Repeat("s", 2561))
	if err == nil || err.Error() != "the value (2561 bytes) is too large for this system's keyring" {
		t.Errorf("SetSecret of 2561 bytes = %v", err)
	}
	if err := Set(entry, strings.Repeat("s", 2561)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Set of 2561 bytes = %v, want ErrTooLarge", err)
	}
	if err := RemoveSecret(name); err != nil {
		t.Fatal(err)
	}
	if names, _ := List(secretPrefix); slices.Contains(names, name) {
		t.Errorf("List after RemoveSecret still holds %s: %q", name, names)
	}
}

// TestWindowsManySecrets: more secret names than the index entry holds
// (2560 bytes) are still stored and listed: the Credential Manager is
// enumerated, the index not read.
func TestWindowsManySecrets(t *testing.T) {
	var names []string
	for i := range 15 {
		names = append(names, fmt.Sprintf("TEST_MANY_%d_%02d_%s", os.Getpid(), i, strings.Repeat("N", 180)))
	}
	t.Cleanup(func() {
		for _, n := range names {
			RemoveSecret(n)
		}
	})
	for _, n := range names {
		if err := SetSecret(n, "v"); err != nil {
			t.Fatalf("SetSecret(%.24s…): %v", n, err)
		}
	}
	listed, err := SecretNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !slices.Contains(listed, n) {
			t.Errorf("SecretNames lacks %s", n)
		}
	}
}
