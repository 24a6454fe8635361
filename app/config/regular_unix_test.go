//go:build unix

package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
)

// A named pipe (real mkfifo) in place of mcp.json or of an envFile is
// refused with a reason, never read (its open would block for ever).
func TestFIFORefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	var err error
	testkit.Within(t, time.Minute, "Load of a FIFO", func() { _, err = Load(path, testEnv()) })
	if want := path + " is a named pipe (FIFO), not a regular file"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load of a FIFO: %v, want %q", err, want)
	}
	testkit.Within(t, time.Minute, "ReadFile of a folder", func() { _, err = ReadFile(dir) })
	if err == nil || !strings.Contains(err.Error(), "is a folder, not a regular file") {
		t.Errorf("ReadFile of a folder: %v", err)
	}
	testkit.Within(t, time.Minute, "ReadFile of a device", func() { _, err = ReadFile("/dev/zero") })
	if err == nil || !strings.Contains(err.Error(), "is a device, not a regular file") {
		t.Errorf("ReadFile of /dev/zero: %v", err)
	}

	os.Remove(path)
	if err := os.WriteFile(path, []byte(`{"mcpServers": {
      "notes": {"command": "c", "envFile": "notes.env"},
      "other": {"command": "c"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "notes.env"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnv()
	env.Dir = ""
	var cfg *Config
	testkit.Within(t, time.Minute, "Load with a FIFO envFile", func() { cfg, err = Load(path, env) })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := errText(cfg.Servers[0].Err), `notes: envFile "notes.env" is a named pipe (FIFO), not a regular file`; got != want {
		t.Errorf("envFile FIFO: %s, want %s", got, want)
	}
	if cfg.Servers[1].Err != nil {
		t.Errorf("the other entry: %v", cfg.Servers[1].Err)
	}
}
