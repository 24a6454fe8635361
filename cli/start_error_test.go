//go:build linux

package cli

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// A Node server that cannot find its module: the error names the module,
// not the version Node prints last, and status --json keeps the stderr
// lines around it (stderrTail).
func TestStartErrorNamesTheRealCause(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is needed (make test installs it with the npm peers)")
	}
	missing := t.TempDir() + "/dist/index.js"
	in := startDaemon(t, map[string]any{"notes": map[string]any{"command": "node", "args": []string{missing}}})
	in.WaitFor("notes failed", func(st statusJSON) bool {
		s, _ := state(st, "notes")
		return s == "error" || s == "crash-loop"
	})
	_, out, _ := in.Run("status", "--json")
	var st struct {
		Servers []struct {
			Name       string   `json:"name"`
			Error      string   `json:"error"`
			StderrTail []string `json:"stderrTail"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Servers) != 1 {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	s := st.Servers[0]
	if want := "exited with code 1 before initialize: Error: Cannot find module '" + missing + "'"; !strings.HasPrefix(s.Error, want) {
		t.Errorf("error %q, want it to start %q", s.Error, want)
	}
	tail := strings.Join(s.StderrTail, "\n")
	if !strings.Contains(tail, "Cannot find module") || !strings.Contains(tail, "Node.js v") {
		t.Errorf("stderrTail lacks the error or the version line:\n%s", tail)
	}
	_, table, _ := in.Run("status")
	if !strings.Contains(table, "Error: Cannot find module") {
		t.Errorf("mcptray status:\n%s", table)
	}
	t.Logf("error: %s\nstderrTail:\n%s", s.Error, tail)
}
