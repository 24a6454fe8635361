package testkeyring

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/keyring"
)

// Own gives t the keyring entry to itself until it ends: other test
// processes that Own it wait; the entry is emptied, and what was there is
// put back afterwards. Without a keyring t is skipped, except inside the
// desktop session (MCPTRAY_TEST_SESSION=1), where it fails. Take several
// entries in the same order everywhere (google/client first), so that two
// tests never wait for each other.
func Own(t testing.TB, entry string) {
	t.Helper()
	lockEntry(t, filepath.Join(os.TempDir(), "mcptray-test-keyring-"+strings.NewReplacer("/", "_", "@", "_").Replace(entry)+".lock"))
	old, err := keyring.Get(entry)
	switch {
	case errors.Is(err, keyring.ErrUnavailable) && os.Getenv("MCPTRAY_TEST_SESSION") != "1":
		t.Skipf("no keyring (run in scripts/desktop-session.sh): %v", err)
	case err != nil && !errors.Is(err, keyring.ErrNotFound):
		t.Fatal(err)
	}
	keyring.Delete(entry)
	t.Cleanup(func() {
		if old != "" {
			keyring.Set(entry, old)
		} else {
			keyring.Delete(entry)
		}
	})
}
