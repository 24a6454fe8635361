package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openBrowser opens http and https addresses only: an address from a
// remote server's metadata with another scheme never reaches $BROWSER or
// the desktop's opener, and the error does not repeat the address.
func TestOpenBrowserRefusesOtherSchemes(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "opened")
	browser := filepath.Join(dir, "browser")
	if err := os.WriteFile(browser, []byte("#!/bin/sh\necho \"$1\" >> "+marker+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", browser)
	for _, u := range []string{
		"file:///etc/passwd?state=secret-state",
		"smb://evil.example/share/authorize",
		"javascript:alert(1)",
		"--help",
		"x-custom:authorize",
		"https:///no-host",
		"",
	} {
		err := openBrowser(u)
		if err == nil {
			t.Errorf("openBrowser(%q) = nil, want a refusal", u)
			continue
		}
		if !strings.Contains(err.Error(), "only http and https addresses") || (u != "" && strings.Contains(err.Error(), u)) {
			t.Errorf("openBrowser(%q) = %q, want the refusal without the address", u, err)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("the browser was started for %q", b)
	}
}
