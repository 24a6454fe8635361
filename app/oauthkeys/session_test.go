package oauthkeys_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/app/oauthkeys"
)

// A token set bigger than a Windows keyring entry, against the real
// Secret Service of the private test session: split into parts, read
// back whole, every part deleted; no error shows the value.
func TestBigValueSecretService(t *testing.T) {
	if os.Getenv("MCPTRAY_TEST_SESSION") != "1" {
		t.Skip("needs the private test session (MCPTRAY_TEST_SESSION=1): scripts/desktop-session.sh")
	}
	key := fmt.Sprintf("test/big-%d-%d", os.Getpid(), time.Now().UnixNano())
	var b strings.Builder
	for b.Len() < 3*oauthkeys.PartBytes+500 {
		fmt.Fprintf(&b, "tok-%d-ü密🔑-", b.Len())
	}
	value := `{"access_token":"` + b.String() + `"}`
	s := oauthkeys.Store{}
	t.Cleanup(func() { s.Delete(key) })
	noValue := func(err error) {
		t.Helper()
		if err != nil && strings.Contains(fmt.Sprintf("%v %+v", err, err), value[20:60]) {
			t.Fatal("an error shows the value")
		}
	}
	err := s.Set(key, value)
	noValue(err)
	if err != nil {
		t.Fatalf("Set: %v", err)
	}
	got, err := s.Get(key)
	noValue(err)
	if err != nil || got != value {
		t.Fatalf("Get: %d bytes, %v; want %d bytes", len(got), err, len(value))
	}
	head, err := keyring.Get("oauth/" + key)
	if err != nil || !strings.HasPrefix(head, "mcptray-parts:4:") {
		t.Errorf("the head entry is %q, %v; want 4 parts", head, err)
	}
	for i := 1; i <= 4; i++ {
		p, err := keyring.Get(fmt.Sprintf("oauth-part/%d/%s", i, key))
		if err != nil || len(p) > oauthkeys.PartBytes {
			t.Errorf("part %d: %d bytes, %v", i, len(p), err)
		}
	}
	if out, _ := exec.Command("secret-tool", "search", "--all", "service", keyring.Service, "username", "oauth-part/1/"+key).CombinedOutput(); !strings.Contains(string(out), "oauth-part/1/"+key) {
		t.Errorf("secret-tool does not list part 1")
	}
	noValue(s.Delete(key))
	for _, name := range []string{"oauth/" + key, "oauth-part/1/" + key, "oauth-part/4/" + key} {
		if _, err := keyring.Get(name); err == nil {
			t.Errorf("%s is still in the keyring after Delete", name)
		}
	}
}
