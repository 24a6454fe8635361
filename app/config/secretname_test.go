package config

import (
	"strings"
	"testing"
)

func TestCheckSecretName(t *testing.T) {
	for _, ok := range []string{"notes-key", "a", "google/ada@example.com", "x.y_z+1:2", strings.Repeat("n", maxSecretName)} {
		if err := CheckSecretName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	const rule = "a secret's name (what goes in ${keyring:NAME}) has letters, digits and . _ - / @ + : only"
	for name, want := range map[string]string{
		"":                                "the secret's name is empty",
		strings.Repeat("n", 201):          "a secret's name is at most 200 characters",
		"two words":                       rule,
		"brace}":                          rule,
		"${x}":                            rule,
		"tab\there":                       rule,
		"value-typed-as-name hunter2-xyz": rule,
	} {
		err := CheckSecretName(name)
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", name, err, want)
		}
	}
}
