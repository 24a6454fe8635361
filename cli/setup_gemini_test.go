//go:build linux

package cli

import (
	"strings"
	"testing"
)

// `mcptray setup gemini` says that Gemini CLI runs no MCP server in a
// folder it does not trust, and how to trust one; --remove does not.
func TestSetupGeminiTrustHint(t *testing.T) {
	home := t.TempDir()
	code, out, errs := runHome(t, home, "", "setup", "gemini")
	if code != 0 {
		t.Fatalf("setup gemini: exit %d %q", code, errs)
	}
	for _, want := range []string{"restart Gemini CLI to load mcptray", "does not trust", "Trust folder", "/permissions", "~/.gemini/trustedFolders.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("setup gemini does not say %q:\n%s", want, out)
		}
	}
	code, out, errs = runHome(t, home, "", "setup", "gemini", "--remove")
	if code != 0 || strings.Contains(out, "trust") {
		t.Errorf("setup gemini --remove: exit %d %q %q", code, out, errs)
	}
}
