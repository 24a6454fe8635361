package keyring

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestSecretServiceRoundTrip uses the real keyring of the session it runs
// in. It runs only inside the project's private test session
// (MCPTRAY_TEST_SESSION=1: Xvfb, dbus-run-session, an unlocked
// gnome-keyring), and there an unreachable keyring fails it.
func TestSecretServiceRoundTrip(t *testing.T) {
	if !inSession() {
		t.Skip("needs the private test session (MCPTRAY_TEST_SESSION=1); see the Makefile")
	}
	name := fmt.Sprintf("test/roundtrip-%d-%d", os.Getpid(), time.Now().UnixNano())
	value := secretValue(2048)
	other := secretValue(100) + "-second"
	t.Cleanup(func() { Delete(name) })

	// checkErr fails if err's text, or its detail, holds a secret.
	checkErr := func(err error) {
		t.Helper()
		if err == nil {
			return
		}
		for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(s, value) || strings.Contains(s, other) {
				t.Fatal("an error contains the secret value")
			}
		}
	}

	_, err := Get(name)
	checkErr(err)
	if ue := (*UnavailableError)(nil); errors.As(err, &ue) {
		t.Fatalf("the session's keyring is unreachable: %v (detail: %v)", err, ue.Err)
	}
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing entry: %v, want ErrNotFound", err)
	}
	if want := fmt.Sprintf("reading %q: not found in the keyring", name); err.Error() != want {
		t.Errorf("message:\n got: %s\nwant: %s", err, want)
	}

	err = Set(name, value)
	checkErr(err)
	if err != nil {
		t.Fatalf("Set: %v", err)
	}
	got, err := Get(name)
	checkErr(err)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got != value {
		t.Errorf("Get returned a different value (%d bytes, want %d)", len(got), len(value))
	}
	if !listed(t, name) {
		t.Errorf("secret-tool search service %s does not list %s", Service, name)
	}

	// Set replaces.
	checkErr(Set(name, other))
	got, err = Get(name)
	checkErr(err)
	if err != nil || got != other {
		t.Errorf("after a second Set, Get returned the old value or %v", err)
	}

	err = Delete(name)
	checkErr(err)
	if err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err = Get(name)
	checkErr(err)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	err = Delete(name)
	checkErr(err)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete: %v, want ErrNotFound", err)
	}
	if want := fmt.Sprintf("deleting %q: not found in the keyring", name); err != nil && err.Error() != want {
		t.Errorf("message:\n got: %s\nwant: %s", err, want)
	}
	if listed(t, name) {
		t.Errorf("secret-tool still lists %s after Delete", name)
	}
}

// listed reports whether `secret-tool search --all service mcptray
// username NAME` shows the entry name. Its output holds the secrets, so it
// is never printed. The search names the entry: a search of the whole
// service lists every entry the other packages' tests keep in the same
// session keyring, and one of them deleted while secret-tool reads it
// ends the listing early (seen once, in CI-like `make test`).
func listed(t *testing.T, name string) bool {
	t.Helper()
	tool := needTool(t, "secret-tool")
	out, err := exec.Command(tool, "search", "--all", "service", Service, "username", name).CombinedOutput()
	if err != nil && len(out) > 0 {
		// secret-tool exits 1 when nothing matches; say only how it failed.
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("secret-tool: %v", err)
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(line) == "attribute.username = "+name {
			return true
		}
	}
	return false
}

// secretValue returns exactly n bytes of valid UTF-8 with multi-byte
// characters (2-, 3- and 4-byte) and a newline.
func secretValue(n int) string {
	const chunk = "pässwörd 密码 🔑\n"
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(chunk)
	}
	s := b.String()[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + strings.Repeat("x", n-len(s))
}
