package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestProbes: a server's first request is kept by its key across a
// reopen, replaced, forgotten; a row with a key of the wrong size is
// left out.
func TestProbes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, b := [ProbeKeySize]byte{1}, [ProbeKeySize]byte{2}
	for _, step := range []struct {
		key     [ProbeKeySize]byte
		version string
	}{{a, "2025-11-25"}, {a, "2026-07-28"}, {b, "2025-11-25"}, {b, ""}} {
		if err := s.SaveProbe(ctx, step.key, step.version, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db().Exec(`INSERT INTO stdio_probes VALUES (x'0102', '2025-11-25', '')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Probes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[a] != "2026-07-28" {
		t.Errorf("Probes = %v", got)
	}
}
