package config

import (
	"strings"
	"testing"
)

func TestSetSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"replace a value",
			`{"mcpServers": {}, "x-mcptray": {"listen": "127.0.0.1:0", "tools": "live"}}`,
			`{"mcpServers": {}, "x-mcptray": {"listen": "127.0.0.1:0", "tools": "stable"}}`},
		{"replace every repeated key",
			`{"x-mcptray": {"tools": "live", "tools": "dynamic"}}`,
			`{"x-mcptray": {"tools": "stable", "tools": "stable"}}`},
		{"insert into an empty object",
			`{"x-mcptray": {}}`,
			`{"x-mcptray": {"tools": "stable"}}`},
		{"insert inline",
			`{"x-mcptray": {"listen": "127.0.0.1:0"}}`,
			`{"x-mcptray": {"tools": "stable", "listen": "127.0.0.1:0"}}`},
		{"insert on its own line",
			"{\n  \"x-mcptray\": {\n    \"listen\": \"127.0.0.1:0\"\n  }\n}\n",
			"{\n  \"x-mcptray\": {\n    \"tools\": \"stable\",\n    \"listen\": \"127.0.0.1:0\"\n  }\n}\n"},
		{"append x-mcptray, two-space indentation, comments kept",
			"// mine\n{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"c\"}\n  }\n}\n",
			"// mine\n{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"c\"}\n  },\n  \"x-mcptray\": {\"tools\": \"stable\"}\n}\n"},
		{"append x-mcptray, CRLF",
			"{\r\n\t\"mcpServers\": {}\r\n}\r\n",
			"{\r\n\t\"mcpServers\": {},\r\n\t\"x-mcptray\": {\"tools\": \"stable\"}\r\n}\r\n"},
		{"append x-mcptray inline",
			`{"mcpServers": {}}`,
			`{"mcpServers": {}, "x-mcptray": {"tools": "stable"}}`},
		{"append to an empty file object",
			`{}`,
			`{"x-mcptray": {"tools": "stable"}}`},
		{"append after a trailing comma",
			"{\n  \"mcpServers\": {},\n}",
			"{\n  \"mcpServers\": {},\n  \"x-mcptray\": {\"tools\": \"stable\"},\n}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SetSetting([]byte(tc.in), "tools", "stable")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if _, err := Parse(got, Env{}); err != nil {
				t.Errorf("result does not parse: %v", err)
			}
		})
	}
}

func TestSetSettingErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"x-mcptray": "live"}`, `mcp.json:1:15: "x-mcptray" must be an object, got string`},
		{`{"x-mcptray": {`, "mcp.json:1:16:"},
		{`[]`, "the top level must be an object"},
		{``, "mcp.json is empty"},
	} {
		_, err := SetSetting([]byte(tc.in), "tools", "stable")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetSetting(%q) error = %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}
