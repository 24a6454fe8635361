//go:build linux

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 32, with the real daemon: a server on 2026-07-28 only that exits
// on initialize is started again with server/discover; after a restart
// of mcptray its first start goes straight to server/discover (the
// database remembers it by a hash of its launch). No file under DATA
// holds the server's environment value.
func TestProbeRememberedAcrossDaemonRestarts(t *testing.T) {
	const secret = "probe-env-s3cret-91"
	in := startDaemon(t, map[string]any{"nw": fakeEntry(t, "new-strict", "API_KEY", secret)})
	in.WaitFor("ready", states("nw", "ready"))
	logs := func() string {
		_, out, _ := in.Run("logs", "nw")
		return out
	}
	if l := logs(); strings.Count(l, "did not take initialize") != 1 || !strings.Contains(l, "protocol 2026-07-28") {
		t.Fatalf("the first start:\n%s", l)
	}
	stopInstance(t, in)

	in.Start()
	in.WaitFor("ready again", states("nw", "ready"))
	if l := logs(); strings.Count(l, "protocol 2026-07-28") != 2 || strings.Count(l, "did not take initialize") != 1 {
		t.Fatalf("the start after the restart did not go straight to server/discover:\n%s", l)
	}
	stopInstance(t, in)

	err := filepath.WalkDir(in.Data, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the server's environment value", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
