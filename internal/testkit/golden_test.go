package testkit

import (
	"path/filepath"
	"testing"
)

// rec is a TB that records what a helper reports.
type rec struct{ errs, fatals []string }

func (r *rec) Helper()                           {}
func (r *rec) Fatal(args ...any)                 { r.fatals = append(r.fatals, "fatal") }
func (r *rec) Fatalf(format string, args ...any) { r.fatals = append(r.fatals, format) }
func (r *rec) Errorf(format string, args ...any) { r.errs = append(r.errs, format) }

func TestGolden(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	var r rec
	Golden(&r, path, []byte("a\nb\n"), true, "-update")
	Golden(&r, path, []byte("a\nb\n"), false, "-update")
	if len(r.errs)+len(r.fatals) != 0 {
		t.Fatalf("written, then the same: %+v", r)
	}
	Golden(&r, path, []byte("a\nc\n"), false, "-update")
	if len(r.errs) != 2 { // line 2, and how to rewrite
		t.Errorf("one line differs: %d errors, want 2", len(r.errs))
	}
}
