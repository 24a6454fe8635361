package config

import "testing"

// ExactGlob's glob matches its tool and no other, whatever characters the
// server put in the name; the person's own globs match as globs only.
func TestExactGlob(t *testing.T) {
	t.Parallel()
	names := []string{"w*", "wipe", "[a-z]*", "zap", "*", "?", "a?c", "abc", `back\slash`, `backslash`, "[", "]", "w\\*", "\xff*", "plain_name"}
	for _, name := range names {
		g := ExactGlob(name)
		for _, other := range names {
			_, ok := matchAny([]string{g}, other)
			if ok != (other == name) {
				t.Errorf("ExactGlob(%q) = %q matches %q: %t", name, g, other, ok)
			}
		}
	}
	if g := ExactGlob("read_file"); g != "read_file" {
		t.Errorf("a plain name changed: %q", g)
	}
	r := ToolRules{DisabledTools: []string{"[a-z]*", "["}}
	if _, off := r.ToolOff("[a-z]*"); off {
		t.Error(`the glob "[a-z]*" turns off the tool named "[a-z]*" by spelling`)
	}
	if _, off := r.ToolOff("["); !off {
		t.Error(`the unreadable glob "[" does not match the tool "["`)
	}
	if _, off := r.ToolOff("zap"); !off {
		t.Error(`the glob "[a-z]*" does not match zap`)
	}
}
