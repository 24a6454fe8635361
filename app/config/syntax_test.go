package config

import (
	"errors"
	"strings"
	"testing"
)

// TestSyntaxErrorPosition: line and column point at the offending
// character, in the original text (comments and all).
func TestSyntaxErrorPosition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data, want string
	}{
		{"missing colon", "{\n  \"mcpServers\": {\n    \"a\": {\"command\" \"x\"}\n  }\n}",
			`mcp.json:3:21: invalid character '"' after object key`},
		{"missing comma between entries", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n    \"b\": {}\n  }\n}",
			`mcp.json:4:5: invalid character '"' after object key:value pair`},
		{"stray closing brace", "{\n  \"mcpServers\": {\n    \"a\": }\n}",
			`mcp.json:3:10: invalid character '}' looking for beginning of value`},
		{"leading comma in object", "{\n  \"a\": 1,\n  ,\"b\": 2\n}",
			`mcp.json:3:3: invalid character ',' looking for beginning of object key string`},
		{"empty object with a comma", `{"mcpServers": {,}}`,
			`mcp.json:1:17: invalid character ',' looking for beginning of object key string`},
		{"double trailing comma", `{"args": [1,,]}`,
			`mcp.json:1:13: invalid character ',' looking for beginning of value`},
		{"truncated", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n",
			`mcp.json:3:26: unexpected end of file (a missing } or ]?)`},
		{"truncated before a comment", "{\"a\": [1, 2 // more to come\n\n",
			`mcp.json:1:12: unexpected end of file (a missing } or ]?)`},
		{"unclosed string", "{\"a\": \"abc",
			`mcp.json:1:11: unexpected end of file (a missing } or ]?)`},
		{"newline in string", "{\"a\": \"ab\nc\"}",
			`mcp.json:1:10: invalid character '\n' in string literal`},
		{"text after the object", "{}\n\nmore",
			`mcp.json:3:1: invalid character 'm' after top-level value`},
		{"bad literal", `{"disabled": tru}`,
			`mcp.json:1:17: invalid character '}' in literal true (expecting 'e')`},
		{"single quotes", `{'a': 1}`,
			`mcp.json:1:2: invalid character '\'' looking for beginning of object key string`},
		{"comment before the error", "{\n  /* a \"quoted\" {comment}\n     over lines */ \"a\": // x\n  1 2\n}",
			`mcp.json:4:5: invalid character '2' after object key:value pair`},
		{"columns count characters", "{\"ключ\": \"значение\" x}",
			`mcp.json:1:21: invalid character 'x' after object key:value pair`},
		{"CRLF", "{\r\n  \"a\": 1\r\n  \"b\": 2\r\n}",
			`mcp.json:3:3: invalid character '"' after object key:value pair`},
		{"CR only", "{\r  \"a\": 1\r  \"b\": 2\r}",
			`mcp.json:3:3: invalid character '"' after object key:value pair`},
		{"byte order mark", "\uFEFF{\"a\" 1}",
			`mcp.json:1:6: invalid character '1' after object key`},
		{"unclosed block comment", "{\n  \"a\": 1 /* no end\n}",
			`mcp.json:2:10: comment /* is not closed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data), testEnv())
			if errText(err) != tt.want {
				t.Errorf("err = %s\nwant  %s", errText(err), tt.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line == 0 || se.Col == 0 {
				t.Errorf("err = %#v, want a *SyntaxError with a position", err)
			}
		})
	}
}

func TestSyntaxErrorText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  SyntaxError
		want string
	}{
		{SyntaxError{Name: "mcp.json", Line: 3, Col: 14, Msg: "m"}, "mcp.json:3:14: m"},
		{SyntaxError{Line: 1, Col: 2, Msg: "m"}, "mcp.json:1:2: m"},
		{SyntaxError{Name: "other.json", Msg: "is empty"}, "other.json is empty"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestJSONC: comments and trailing commas are accepted, and strings that
// look like comments survive.
func TestJSONC(t *testing.T) {
	t.Parallel()
	data := `// mcptray config
/* block
   comment */
{
  "mcpServers": { // servers
    "a": {
      "command": "c", /* inline */
      "args": [
        "https://example.com//path", // a URL with //
        "/* not a comment */",
        "quote \" // still a string",
        "back\\", // an escaped backslash ends the string
        "end",
      ],
      "env": {"K": "v//w",},
    },
    /* "b": {"command": "commented out"}, */
  },
}
// trailing comment`
	cfg, err := Parse([]byte(data), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 1 {
		t.Fatalf("got %d servers, want 1: %+v", len(cfg.Servers), cfg.Servers)
	}
	s := cfg.Servers[0]
	want := []string{"https://example.com//path", "/* not a comment */", `quote " // still a string`, `back\`, "end"}
	if s.Err != nil || !equalStrings(s.Args, want) {
		t.Errorf("Args = %q (Err %v), want %q", s.Args, s.Err, want)
	}
	if s.Env["K"] != "v//w" {
		t.Errorf("Env = %q", s.Env)
	}
}

// TestStripJSONCKeepsLength: blanking keeps every offset and line break.
func TestStripJSONCKeepsLength(t *testing.T) {
	t.Parallel()
	in := "{ // c\r\n \"a\": [1, /* x\ny */ 2,], \"b\": \"//\" /**/ }"
	out, _, ok := stripJSONC([]byte(in))
	if !ok {
		t.Fatal("not ok")
	}
	if len(out) != len(in) {
		t.Fatalf("length %d, want %d", len(out), len(in))
	}
	if strings.Count(string(out), "\n") != strings.Count(in, "\n") || strings.Count(string(out), "\r") != strings.Count(in, "\r") {
		t.Errorf("line breaks changed: %q", out)
	}
	want := "{     \r\n \"a\": [1,     \n     2 ], \"b\": \"//\"      }"
	if string(out) != want {
		t.Errorf("stripped =\n%q\nwant\n%q", out, want)
	}
}
