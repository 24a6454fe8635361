package remote_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/internal/testkeyring"
)

// TestSecretsAndToken runs on the OS keyring (scripts/desktop-session.sh;
// skipped without one): the secrets go through the instance, the token is
// read where the instance keeps it.
func TestSecretsAndToken(t *testing.T) {
	const name, value = "REMOTE_TEST_SECRET", "v4lue-that-never-shows-5c2a"
	testkeyring.Own(t, "http-token")
	testkeyring.Own(t, "keyring/"+name)
	d := newDirs(t, servers())
	in := start(t, d)
	c := dial(t, d)

	tok, err := c.Token()
	want, werr := app.Token()
	if err != nil || werr != nil || tok != want || tok == "" {
		t.Errorf("Token = %q, %v; app.Token %q, %v", tok, err, want, werr)
	}
	if err := c.SetSecret(name, value); err != nil {
		t.Fatal(err)
	}
	names, err := c.SecretNames()
	core, cerr := in.core.SecretNames()
	if err != nil || cerr != nil || !slices.Contains(names, name) || !slices.Equal(names, core) {
		t.Errorf("SecretNames = %q, %v; the core's %q, %v", names, err, core, cerr)
	}
	if err := c.SetSecret("bad name!", value); err == nil || strings.Contains(err.Error(), value) {
		t.Errorf("SetSecret(bad name!) = %v, want an error without the value", err)
	}
	if err := c.RemoveSecret(name); err != nil {
		t.Fatal(err)
	}
	if err := c.RemoveSecret(name); !errors.Is(err, config.ErrNoSecret) {
		t.Errorf("removing it again = %v, want config.ErrNoSecret", err)
	}
	in.stop()
	if strings.Contains(in.logs.String(), value) {
		t.Error("the secret's value is in the instance's log")
	}
}
