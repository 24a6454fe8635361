package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestToolsCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	if err := s.SaveTools(ctx, "a", json.RawMessage(`[{"name":"x"}]`), now); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveTools(ctx, "a", json.RawMessage(`[{"name":"y"}]`), now); err != nil {
		t.Fatal(err)
	}
	s.SaveTools(ctx, "b", json.RawMessage(`[]`), now)
	for _, bad := range []string{`{"name":"x"}`, `[`, ``} {
		if err := s.SaveTools(ctx, "c", json.RawMessage(bad), now); err == nil || !strings.Contains(err.Error(), "not a JSON array") {
			t.Errorf("SaveTools(%q) = %v", bad, err)
		}
	}
	s.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.CachedTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got["a"]) != `[{"name":"y"}]` || string(got["b"]) != `[]` {
		t.Errorf("CachedTools = %s", got)
	}
}
