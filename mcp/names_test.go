package mcp

import (
	"maps"
	"strings"
	"testing"
)

func TestToolName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ server, tool, want string }{
		{"ssh", "exec", "ssh__exec"},
		{"my server", "do.it", "my_server__do_it"},
		{"gmail", "søg/ned", "gmail__s_g_ned"},
		{"", "", "____"},
	} {
		if got := toolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("toolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	long := toolName("server", strings.Repeat("t", 100))
	if len(long) != maxToolName {
		t.Errorf("long name has %d characters: %s", len(long), long)
	}
	if long != toolName("server", strings.Repeat("t", 100)) {
		t.Error("long name is not stable")
	}
	if other := toolName("server", strings.Repeat("t", 99)+"u"); other == long || len(other) != maxToolName {
		t.Errorf("two long names collide: %s", other)
	}
	for _, n := range []string{long, toolName("a b", "c.d")} {
		for _, c := range []byte(n) {
			if !nameByte(c) {
				t.Errorf("%q has %q", n, c)
			}
		}
	}
}

func TestNamerResolvesCollisions(t *testing.T) {
	t.Parallel()
	order := func() []string {
		nm := newNamer()
		nm.reserve("mcptray__servers", "mcptray/servers")
		return []string{
			nm.assign(toolName("a.b", "c"), "a.b", "c"),
			nm.assign(toolName("a_b", "c"), "a_b", "c"),
			nm.assign("mcptray__servers", "mcptray", "servers"),
			strings.Join(nm.collisions, ";"),
		}
	}
	got := order()
	if got[0] != "a_b__c" || got[1] == "a_b__c" || !strings.HasPrefix(got[1], "a_b__c_") || len(got[1]) != len("a_b__c_")+8 {
		t.Errorf("names %q", got[:2])
	}
	if got[2] == "mcptray__servers" {
		t.Error("a server tool took a builtin's name")
	}
	if !strings.Contains(got[3], "a.b/c and a_b/c both map to a_b__c") {
		t.Errorf("collisions: %s", got[3])
	}
	if again := order(); strings.Join(again, "|") != strings.Join(got, "|") {
		t.Errorf("not deterministic: %q vs %q", again, got)
	}
}

// Prefixes follow from the configured names alone: a later server whose
// name sanitises like an earlier one's gets its name's hash (and a server
// configured under that very name does not take it over), and a prefix
// that holds "__" before its end, or a name ending in "_", can shadow.
func TestServerPrefixes(t *testing.T) {
	t.Parallel()
	hashed := "a_b_" + hash8("a_b")
	p, notes := serverPrefixes([]string{"a.b", "a_b", hashed, "a", "a_", "c"})
	if p["a.b"] != "a_b__" || p["a_b"] != hashed+"__" || p[hashed] == hashed+"__" || p["a"] != "a__" || p["a_"] != "a___" {
		t.Errorf("prefixes: %v", p)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "servers a.b and a_b both sanitise to a_b") {
		t.Errorf("notes: %q", notes)
	}
	if again, _ := serverPrefixes([]string{"a.b", "a_b", hashed, "a", "a_", "c"}); !maps.Equal(again, p) {
		t.Errorf("not deterministic: %v vs %v", again, p)
	}
	nested := nestedServers([]string{"a", "a_", "c"}, p)
	if len(nested) != 1 || nested[0].server != "a_" {
		t.Errorf("nested: %v", nested)
	}
	if owner, ok := shadowedBy(nested, "a", "a__", "a___b"); !ok || owner.server != "a_" {
		t.Errorf("a___b from a: %v %v", owner, ok)
	}
	if _, ok := shadowedBy(nested, "a_", "a___", "a___b"); ok {
		t.Error("a_'s own name shadowed")
	}
}
