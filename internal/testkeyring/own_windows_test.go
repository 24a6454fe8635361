package testkeyring

import (
	"errors"
	"testing"

	"github.com/mcptray/mcptray/app/keyring"
)

// TestWindowsOwn: Own takes the entry under its file lock (LockFileEx),
// empties it, and puts back what was there when the test ends.
func TestWindowsOwn(t *testing.T) {
	const entry = "test/windows-own"
	if err := keyring.Set(entry, "before"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keyring.Delete(entry) })
	t.Run("owner", func(t *testing.T) {
		Own(t, entry)
		if _, err := keyring.Get(entry); !errors.Is(err, keyring.ErrNotFound) {
			t.Errorf("an owned entry = %v, want it emptied", err)
		}
		keyring.Set(entry, "during")
	})
	if v, err := keyring.Get(entry); err != nil || v != "before" {
		t.Errorf("after the owner = %q, %v; want %q put back", v, err, "before")
	}
}
