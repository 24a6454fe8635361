package oauthkeys

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/mcp/oauthclient"
)

// limitedKV is a keyring in RAM that refuses values over Windows' 2,560
// bytes, as the Credential Manager does.
type limitedKV struct {
	mu sync.Mutex
	m  map[string]string // guarded by mu
}

func (k *limitedKV) Get(n string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[n]
	if !ok {
		return "", fmt.Errorf("reading %q: %w", n, keyring.ErrNotFound)
	}
	return v, nil
}

func (k *limitedKV) Set(n, v string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(v) > 2560 {
		return fmt.Errorf("storing %q: %w", n, keyring.ErrTooLarge)
	}
	k.m[n] = v
	return nil
}

func (k *limitedKV) Delete(n string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.m[n]; !ok {
		return fmt.Errorf("deleting %q: %w", n, keyring.ErrNotFound)
	}
	delete(k.m, n)
	return nil
}

func (k *limitedKV) names() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for n := range k.m {
		out = append(out, n)
	}
	return out
}

func bigValue(n int) string {
	const chunk = `{"access_token":"eyJ…ü密🔑",`
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(chunk)
	}
	return b.String()
}

func TestSplitRoundTrip(t *testing.T) {
	kv := &limitedKV{m: map[string]string{}}
	s := Store{kv: kv}
	big := bigValue(7000)
	if err := s.Set("token/x", big); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("token/x"); err != nil || got != big {
		t.Fatalf("Get = %d bytes, %v; want %d bytes", len(got), err, len(big))
	}
	if n := len(kv.names()); n != 5 { // head + 4 parts
		t.Errorf("%d entries for 7000 bytes: %v", n, kv.names())
	}
	// A shorter value drops the parts it no longer needs.
	if err := s.Set("token/x", "small"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get("token/x"); got != "small" || len(kv.names()) != 1 {
		t.Errorf("after a small Set: %q, entries %v", got, kv.names())
	}
	// A value that looks like a head is stored split, and read back.
	fake := headMark + "1:" + strings.Repeat("0", 64)
	if err := s.Set("token/x", fake); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get("token/x"); got != fake {
		t.Errorf("a head-like value read back as %q", got)
	}
	if err := s.Set("token/x", big); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("token/x"); err != nil {
		t.Fatal(err)
	}
	if n := kv.names(); len(n) != 0 {
		t.Errorf("Delete left %v", n)
	}
	if _, err := s.Get("token/x"); !errors.Is(err, oauthclient.ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	if err := s.Delete("token/x"); err != nil {
		t.Errorf("Delete of a missing key: %v", err)
	}
}

// A part lost or changed (a write interrupted): the value is torn, not
// wrong.
func TestSplitTorn(t *testing.T) {
	kv := &limitedKV{m: map[string]string{}}
	s := Store{kv: kv}
	if err := s.Set("k", bigValue(5000)); err != nil {
		t.Fatal(err)
	}
	kv.Set(partName("k", 2), "changed")
	if _, err := s.Get("k"); !errors.Is(err, errTorn) {
		t.Errorf("a changed part: %v", err)
	}
	kv.Delete(partName("k", 2))
	if _, err := s.Get("k"); !errors.Is(err, errTorn) {
		t.Errorf("a missing part: %v", err)
	}
}

func TestSplitCharacters(t *testing.T) {
	v := strings.Repeat("密", 1000) // 3 bytes each
	for _, p := range split(v, PartBytes) {
		if len(p) > PartBytes || !strings.HasPrefix(p, "密") {
			t.Fatalf("a part of %d bytes cut a character", len(p))
		}
	}
	if strings.Join(split(v, PartBytes), "") != v {
		t.Fatal("the parts do not join back")
	}
}

func TestBadKey(t *testing.T) {
	s := Store{kv: &limitedKV{m: map[string]string{}}}
	if _, err := s.Get(""); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Get(\"\"): %v", err)
	}
	if err := s.Set("", "v"); err == nil {
		t.Error("Set(\"\") succeeded")
	}
	if err := s.Set("k", bigValue(PartBytes*maxParts+1)); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a value over %d parts: %v", maxParts, err)
	}
}
