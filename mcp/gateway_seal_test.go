package mcp

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestStateSeal: a sealed requestState opens for its server and tool,
// with the server's state as it came; a changed one, another mcptray's,
// another call's, an old one and what is not a sealed state at all are
// refused with an error saying so.
func TestStateSeal(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	k := newStateSeal()
	k.now = func() time.Time { return now }
	state := []byte(`"opaque \"state\" of the server"`)
	sealed := k.seal("vault", "login", state)
	if strings.Contains(sealed, "\n") || !strings.HasPrefix(sealed, sealPrefix) {
		t.Fatalf("sealed %q", sealed)
	}
	got, err := k.open(sealed, "vault", "login")
	if err != nil || string(got) != string(state) {
		t.Fatalf("open: %s, %v", got, err)
	}
	if got, err := k.open(k.seal("vault", "login", nil), "vault", "login"); err != nil || got != nil {
		t.Errorf("no state: %s, %v", got, err)
	}

	other := newStateSeal()
	other.now = k.now
	flipped := []byte(sealed)
	flipped[len(sealPrefix)+3] ^= 1
	for name, tc := range map[string]struct {
		sealed, server, tool string
		want                 error
		text                 string
	}{
		"changed":        {string(flipped), "vault", "login", errStateTampered, "the requestState was changed"},
		"another key":    {other.seal("vault", "login", state), "vault", "login", errStateTampered, "or it was made by another mcptray"},
		"not ours":       {`{"step":2}`, "vault", "login", errStateForeign, "was not made by this mcptray"},
		"empty":          {"", "vault", "login", errStateForeign, "was not made by this mcptray"},
		"no signature":   {sealPrefix + "abc", "vault", "login", errStateTampered, "was changed"},
		"bad signature":  {sealPrefix + "abc.!!", "vault", "login", errStateTampered, "was changed"},
		"another server": {sealed, "notes", "login", nil, `belongs to a call of "login" on server "vault", not of "login" on "notes"`},
		"another tool":   {sealed, "vault", "logout", nil, `belongs to a call of "login" on server "vault", not of "logout" on "vault"`},
	} {
		_, err := k.open(tc.sealed, tc.server, tc.tool)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v, want %q", name, err, tc.text)
		}
	}

	now = now.Add(sealLife + time.Second)
	if _, err := k.open(sealed, "vault", "login"); !errors.Is(err, errStateExpired) {
		t.Errorf("after sealLife: %v", err)
	}
}
