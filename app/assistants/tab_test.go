package assistants

import (
	"strings"
	"testing"
)

// A plan made by hand (as the UI's tests make them) has nothing to diff or
// write: Diff and Apply refuse it and store nothing.
func TestImportPlanByHandIsRefused(t *testing.T) {
	t.Parallel()
	p := &ImportPlan{Client: "claude-desktop", Secrets: []ImportSecret{{Server: "github", Field: "env", Key: "GITHUB_TOKEN"}}}
	if _, err := p.Diff(ImportChoice{Move: []bool{true}}); err == nil || !strings.Contains(err.Error(), "not made by PlanImport") {
		t.Errorf("Diff: %v", err)
	}
	stored := false
	err := p.Apply(ImportChoice{Move: []bool{true}}, func(string, string) error { stored = true; return nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "not made by PlanImport") || stored {
		t.Errorf("Apply: %v (stored %t)", err, stored)
	}
}

// An add's hint is the reload hint, then the client's note; a removal's is
// the reload hint alone.
func TestHint(t *testing.T) {
	t.Parallel()
	for _, cl := range Clients() {
		add, rm := hint(cl, Add), hint(cl, Remove)
		if rm != cl.ReloadHint(Remove) {
			t.Errorf("%s: remove's hint %q, want %q", cl.Name, rm, cl.ReloadHint(Remove))
		}
		if note := cl.AddNote(); note != "" && !strings.HasSuffix(add, note) {
			t.Errorf("%s: add's hint %q lacks the note %q", cl.Name, add, note)
		}
		if r := cl.ReloadHint(Add); r != "" && !strings.HasPrefix(add, r) {
			t.Errorf("%s: add's hint %q does not start with %q", cl.Name, add, r)
		}
	}
}
