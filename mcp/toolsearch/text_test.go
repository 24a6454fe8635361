package toolsearch

import (
	"testing"
	"unicode/utf8"
)

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"files": "fil", "file": "fil", "filed": "fil", "issues": "issu", "issue": "issu",
		"repositories": "repository", "listing": "list", "created": "creat", "create": "creat",
		"running": "run", "modified": "modify", "reviewers": "review", "review": "review",
		"status": "status", "process": "process", "news": "news", "new": "new",
		"tree": "tree", "need": "need", "thing": "thing", "v2": "v2", "sql": "sql",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTermsAnyText(t *testing.T) {
	// Any text, valid UTF-8 or not, gives terms without panicking, and
	// a word in another script is kept as it is.
	for _, in := range []string{"Straße öffnen", "日本語のファイル", "🙂 emoji", "\xff\xfe bad", "a.b.c", "___", "ÉTÉ_été"} {
		for _, term := range terms(in) {
			if term == "" || !utf8.ValidString(term) {
				t.Errorf("terms(%q) has %q", in, term)
			}
		}
	}
	if got := terms("Straße öffnen"); len(got) != 2 || got[0] != "straße" {
		t.Errorf("terms(Straße öffnen) = %q", got)
	}
}
