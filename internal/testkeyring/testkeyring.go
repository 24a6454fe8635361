package testkeyring

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	if !ownInProcess(t, entry) {
		return // t has it already
	}
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

// owners is who in this process has which entry: a flock is held per open
// file, so a second lock of the same entry from this process would wait
// for itself.
var owners = struct {
	sync.Mutex
	cond *sync.Cond
	by   map[string]testing.TB
}{by: map[string]testing.TB{}}

func init() { owners.cond = sync.NewCond(&owners.Mutex) }

// ownInProcess gives entry to t among this process's tests, waiting while
// another has it, and gives it back when t ends. It returns false when t
// has it already.
func ownInProcess(t testing.TB, entry string) bool {
	owners.Lock()
	defer owners.Unlock()
	for {
		switch owners.by[entry] {
		case nil:
			owners.by[entry] = t
			t.Cleanup(func() {
				owners.Lock()
				delete(owners.by, entry)
				owners.cond.Broadcast()
				owners.Unlock()
			})
			return true
		case t:
			return false
		}
		owners.cond.Wait()
	}
}
