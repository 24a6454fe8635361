package config

import (
	"slices"
	"strings"
	"testing"
)

func TestSetEntryList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		list           []string
	}{
		{"replace the list",
			`{"mcpServers": {"a": {"command": "c", "x-mcptray": {"disabledTools": ["x"]}}}}`,
			`{"mcpServers": {"a": {"command": "c", "x-mcptray": {"disabledTools": ["x","move_*"]}}}}`,
			[]string{"x", "move_*"}},
		{"empty list",
			`{"mcpServers": {"a": {"command": "c", "x-mcptray": {"disabledTools": ["x"]}}}}`,
			`{"mcpServers": {"a": {"command": "c", "x-mcptray": {"disabledTools": []}}}}`,
			nil},
		{"insert into the entry's x-mcptray",
			"{\"mcpServers\": {\"a\": {\n  \"command\": \"c\",\n  \"x-mcptray\": {\n    \"approve\": \"all\"\n  }\n}}}",
			"{\"mcpServers\": {\"a\": {\n  \"command\": \"c\",\n  \"x-mcptray\": {\n    \"disabledTools\": [\"w\"],\n    \"approve\": \"all\"\n  }\n}}}",
			[]string{"w"}},
		{"append x-mcptray to the entry, comments kept",
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"c\" // mine\n    }\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"c\",\n      \"x-mcptray\": {\"disabledTools\": [\"w\"]} // mine\n    }\n  }\n}\n",
			[]string{"w"}},
		{"both sections",
			`{"mcpServers": {"a": {"command": "c"}}, "servers": {"a": {"command": "c"}}}`,
			`{"mcpServers": {"a": {"command": "c", "x-mcptray": {"disabledTools": ["w"]}}}, "servers": {"a": {"command": "c", "x-mcptray": {"disabledTools": ["w"]}}}}`,
			[]string{"w"}},
		{"other entries untouched",
			`{"mcpServers": {"b": {"command": "c"}, "a": {}}}`,
			`{"mcpServers": {"b": {"command": "c"}, "a": {"x-mcptray": {"disabledTools": ["w"]}}}}`,
			[]string{"w"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetEntryList([]byte(tt.in), "a", "disabledTools", tt.list)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			back, err := EntryList(got, "a", "disabledTools")
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.list; !slices.Equal(back, want) && !(len(back) == 0 && len(want) == 0) {
				t.Errorf("EntryList = %q, want %q", back, want)
			}
			cfg, err := Parse(got, Env{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.list) > 0 && !slices.Equal(cfg.Servers[len(cfg.Servers)-1].Rules.DisabledTools, tt.list) {
				t.Errorf("parsed rules %+v", cfg.Servers[0].Rules)
			}
		})
	}
	if _, err := SetEntryList([]byte(`{"mcpServers": {}}`), "a", "disabledTools", nil); err == nil || !strings.Contains(err.Error(), `no server named "a"`) {
		t.Errorf("unknown server: %v", err)
	}
	if _, err := SetEntryList([]byte(`{"mcpServers": {"a": {"x-mcptray": 3}}}`), "a", "disabledTools", nil); err == nil {
		t.Error("x-mcptray of the wrong type: no error")
	}
}

func TestToolRules(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]byte(`{"mcpServers": {
		"a": {"command": "c", "x-mcptray": {"disabledTools": ["write_file", "move_*", "[bad"], "allowTools": ["read_*"], "approve": "writes", "pinTools": false}},
		"b": {"command": "c", "x-mcptray": {"approve": "sometimes"}},
		"c": {"command": "c", "x-mcptray": {"disabledTools": "write_file"}}
	}}`), Env{})
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Servers[0].Rules
	for tool, want := range map[string]bool{"write_file": true, "move_file": true, "move": false, "read_file": false, "[bad": true} {
		if _, off := r.ToolOff(tool); off != want {
			t.Errorf("ToolOff(%q) = %t, want %t", tool, off, want)
		}
	}
	if !r.ToolAllowed("read_file") || r.ToolAllowed("write_file") || r.Approve != ApproveWrites || r.Pins() {
		t.Errorf("rules %+v", r)
	}
	if err := cfg.Servers[1].Err; err == nil || !strings.Contains(err.Error(), "x-mcptray.approve must be") {
		t.Errorf("bad approve: %v", err)
	}
	if err := cfg.Servers[2].Err; err == nil || !strings.Contains(err.Error(), "x-mcptray.disabledTools must be an array") {
		t.Errorf("bad disabledTools: %v", err)
	}
}

func TestFingerprintLeavesRulesOut(t *testing.T) {
	t.Parallel()
	parse := func(s string) Server {
		cfg, err := Parse([]byte(s), Env{})
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Servers[0]
	}
	a := parse(`{"mcpServers": {"a": {"command": "c", "x-mcptray": {"ssh": {"x": 1}}}}}`)
	b := parse(`{"mcpServers": {"a": {"command": "c", "x-mcptray": {"ssh": {"x": 1}, "disabledTools": ["w"], "allowTools": ["r"], "approve": "all", "pinTools": false}}}}`)
	c := parse(`{"mcpServers": {"a": {"command": "c", "x-mcptray": {"ssh": {"x": 2}}}}}`)
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("a tool rule changes the fingerprint: the server would restart")
	}
	if a.Fingerprint() == c.Fingerprint() {
		t.Error("another setting does not change the fingerprint")
	}
}
