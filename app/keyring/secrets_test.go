package keyring

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/config"
)

// SetSecret refuses what the keyring cannot take, before it is reached
// (the name's rule: config's TestCheckSecretName).
func TestSetSecretRefuses(t *testing.T) {
	t.Parallel()
	if err := SetSecret("", "v"); err == nil || err.Error() != "the secret's name is empty" {
		t.Errorf("empty name: %v", err)
	}
	if err := SetSecret("ok", ""); err == nil || err.Error() != "the value is empty: nothing stored" {
		t.Errorf("empty value: %v", err)
	}
	if err := SetSecret("ok", strings.Repeat("v", config.MaxSecretValue+1)); err == nil || !strings.Contains(err.Error(), "at most 65536") {
		t.Errorf("huge value: %v", err)
	}
}
