package oauthkeys_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/app/oauthkeys"
)

// TestWindowsBigTokenSplit: the Credential Manager refuses a value past
// 2,560 bytes; a token set of 7,000 bytes goes through oauthkeys in parts,
// reads back whole, and Delete leaves none behind. Throwaway values: Wine
// keeps them barely obfuscated.
func TestWindowsBigTokenSplit(t *testing.T) {
	key := fmt.Sprintf("test/windows-big-%d", os.Getpid())
	value := `{"access_token":"` + strings.Repeat("throwaway-ü密-", 500) + `"}`
	if len(value) < 7000 {
		t.Fatalf("the value is %d bytes", len(value))
	}
	s := oauthkeys.Store{}
	t.Cleanup(func() { s.Delete(key) })
	if err := keyring.Set("test/windows-whole", value); !errors.Is(err, keyring.ErrTooLarge) {
		keyring.Delete("test/windows-whole")
		t.Fatalf("the Credential Manager took %d bytes in one entry (%v): this test proves nothing", len(value), err)
	}
	if err := s.Set(key, value); err != nil {
		t.Fatalf("Set: %v", err)
	}
	if got, err := s.Get(key); err != nil || got != value {
		t.Fatalf("Get: %d bytes, %v; want %d", len(got), err, len(value))
	}
	if err := s.Delete(key); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"oauth/" + key, "oauth-part/1/" + key, "oauth-part/4/" + key} {
		if _, err := keyring.Get(name); !errors.Is(err, keyring.ErrNotFound) {
			t.Errorf("%s after Delete: %v", name, err)
		}
	}
}
