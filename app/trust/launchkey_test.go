package trust

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The launch key is made once, readable by the user alone, and read back
// as it is; a key of the wrong length is replaced.
func TestLoadLaunchKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, err := LoadLaunchKey(dir)
	if err != nil || len(key) != 32 {
		t.Fatalf("key %x, %v", key, err)
	}
	fi, err := os.Stat(filepath.Join(dir, launchKeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v, %v", fi, err)
	}
	again, err := LoadLaunchKey(dir)
	if err != nil || !bytes.Equal(again, key) {
		t.Errorf("read back %x, %v; want %x", again, err, key)
	}
	if err := os.WriteFile(filepath.Join(dir, launchKeyFile), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fresh, err := LoadLaunchKey(dir); err != nil || len(fresh) != 32 || bytes.Equal(fresh, key) {
		t.Errorf("a short key was not replaced: %x, %v", fresh, err)
	}
}
