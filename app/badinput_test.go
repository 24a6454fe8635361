package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/control"
)

// Each bad entry is refused with a one-line reason in status and in its log,
// and the good server beside it keeps running.
func TestBadEntriesAreRefusedAlone(t *testing.T) {
	cases := []struct {
		name, entry, want string
	}{
		{"neither", `{"args": ["x"]}`, `"command"`},
		{"both", `{"command": "x", "url": "http://127.0.0.1:1/mcp"}`, "both"},
		{"nonstring", `{"command": "x", "args": ["a", 2]}`, "args[1]"},
		{"unset", `{"command": "x", "env": {"K": "${env:MCPTRAY_TEST_UNSET_VAR}"}}`, "MCPTRAY_TEST_UNSET_VAR"},
		{"keyring", `{"command": "x", "args": ["${keyring:nope}"]}`, "nope"},
		{"input", `{"command": "x", "env": {"K": "${input:key}"}}`, "${input:key}"},
	}
	pairs := []string{"good", fake(t, "echo")}
	for _, c := range cases {
		pairs = append(pairs, c.name, c.entry)
	}
	h := startCore(t, servers(pairs...))
	st := h.wait("all refused, good ready", func(st control.Status) bool {
		if !stateIs("good", control.StateReady)(st) {
			return false
		}
		for _, c := range cases {
			if s, _ := find(st, c.name); s.State != control.StateError {
				return false
			}
		}
		return true
	})
	for _, c := range cases {
		s, _ := find(st, c.name)
		if !strings.Contains(s.Error, c.want) || strings.Contains(s.Error, "\n") {
			t.Errorf("%s: error %q should be one line naming %q", c.name, s.Error, c.want)
		}
		h.waitLog(c.name, "[lifecycle] refused: ")
	}
}

// No env value of a server is ever written under DATA: not in logs, not in
// the database.
func TestEnvValuesNeverReachDisk(t *testing.T) {
	const secret = "s3cret-Value-4242"
	t.Setenv("MCPTRAY_TEST_SECRET", secret)
	h := startCore(t, servers(
		"s", fake(t, "stderr-log", "TOKEN", "${env:MCPTRAY_TEST_SECRET}"),
		"bad", `{"command": "x", "args": ["${env:MCPTRAY_TEST_SECRET}"], "env": {"A": "${env:MCPTRAY_TEST_UNSET_VAR}"}}`,
		"missing", `{"command": "/no/such/command", "env": {"T": "${env:MCPTRAY_TEST_SECRET}"}}`,
	))
	h.wait("settled", func(st control.Status) bool {
		return stateIs("s", control.StateReady)(st) && stateIs("bad", control.StateError)(st)
	})
	h.waitLog("s", "[lifecycle] ready")
	h.stop()
	filepath.WalkDir(h.data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), secret) {
			t.Errorf("%s contains an env value", p)
		}
		return nil
	})
}
