package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// defaultConfig is the first-run mcp.json: the built-in servers, ssh on,
// gcal and gmail off until an account is connected.
const defaultConfig = `{
  "mcpServers": {
    "ssh": {
      "command": "${self}",
      "args": ["serve", "ssh"]
    },
    "gcal": {
      "command": "${self}",
      "args": ["serve", "gcal"],
      "disabled": true
    },
    "gmail": {
      "command": "${self}",
      "args": ["serve", "gmail"],
      "disabled": true
    }
  },
  "x-mcptray": {
    "listen": "127.0.0.1:7823",
    "tools": "live"
  }
}
`

// Default returns the first-run mcp.json (DESIGN.md section 4).
func Default() []byte { return []byte(defaultConfig) }

// DefaultPath is where mcp.json lives: $MCPTRAY_CONFIG when set, else
// os.UserConfigDir()/mcptray/mcp.json.
func DefaultPath() (string, error) {
	if p := os.Getenv("MCPTRAY_CONFIG"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the config directory: %w", err)
	}
	return filepath.Join(dir, "mcptray", "mcp.json"), nil
}

// EnsureDefault writes Default() to path, creating its directory (0700),
// when nothing is there yet; created reports whether it wrote. An existing
// file is never touched. The file is created exclusively (0600), so two
// starts racing cannot clobber each other.
func EnsureDefault(path string) (created bool, err error) {
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("checking %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("creating the config directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("creating %s: %w", path, err)
	}
	_, err = f.Write(Default())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, nil
}

// SystemEnv is the Env of the running process: its environment, the
// user's home directory and the executable's absolute path. Keyring and Dir
// are left for the caller.
func SystemEnv() Env {
	env := Env{Lookup: os.LookupEnv}
	env.Home, _ = os.UserHomeDir()
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		env.Self = exe
	}
	return env
}
