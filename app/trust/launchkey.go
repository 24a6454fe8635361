package trust

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// launchKeyFile, in the data dir, holds the install's key for the hashes
// of the values a launch keeps (config.Env.LaunchKey): 32 random bytes,
// made at first start, readable by the user alone. Losing it changes
// every fingerprint: every entry then waits for a yes, as after a reset.
const launchKeyFile = "launch.key"

// LoadLaunchKey reads data's launch key, making it when there is none.
func LoadLaunchKey(data string) ([]byte, error) {
	path := filepath.Join(data, launchKeyFile)
	key, err := os.ReadFile(path)
	if err == nil && len(key) == 32 {
		return key, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the launch key: %w", err)
	}
	key = make([]byte, 32)
	rand.Read(key)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, key, 0o600); err != nil {
		return nil, fmt.Errorf("writing the launch key: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("writing the launch key: %w", err)
	}
	return key, nil
}
