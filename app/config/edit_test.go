package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

const entryValue = `{"command": "/opt/mcptray", "args": ["connect"]}`

// TestSetMemberAdds: a new member in each style a file can have, and
// RemoveMember giving back the very bytes.
func TestSetMemberAdds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		path []string
		want string
	}{
		{"two-space indentation, after the last entry",
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"c\"\n    }\n  }\n}\n",
			[]string{"mcpServers", "mcptray"},
			"{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"c\"\n    },\n    \"mcptray\": {\n      \"command\": \"/opt/mcptray\",\n      \"args\": [\n        \"connect\"\n      ]\n    }\n  }\n}\n"},
		{"tabs",
			"{\n\t\"servers\": {\n\t\t\"a\": {\"type\": \"stdio\"}\n\t}\n}",
			[]string{"servers", "mcptray"},
			"{\n\t\"servers\": {\n\t\t\"a\": {\"type\": \"stdio\"},\n\t\t\"mcptray\": {\n\t\t\t\"command\": \"/opt/mcptray\",\n\t\t\t\"args\": [\n\t\t\t\t\"connect\"\n\t\t\t]\n\t\t}\n\t}\n}"},
		{"CRLF",
			"{\r\n  \"mcpServers\": {\r\n    \"a\": {}\r\n  }\r\n}\r\n",
			[]string{"mcpServers", "b"},
			"{\r\n  \"mcpServers\": {\r\n    \"a\": {},\r\n    \"b\": {\r\n      \"command\": \"/opt/mcptray\",\r\n      \"args\": [\r\n        \"connect\"\r\n      ]\r\n    }\r\n  }\r\n}\r\n"},
		{"a comment after the last member stays on its line",
			"{\n  \"a\": 1 // one\n}",
			[]string{"b"},
			"{\n  \"a\": 1, // one\n  \"b\": {\n    \"command\": \"/opt/mcptray\",\n    \"args\": [\n      \"connect\"\n    ]\n  }\n}"},
		{"comments on lines of their own stay where they are",
			"// head\n{\n  // about a\n  \"a\": 1\n  // the end\n}\n// tail\n",
			[]string{"b"},
			"// head\n{\n  // about a\n  \"a\": 1,\n  \"b\": {\n    \"command\": \"/opt/mcptray\",\n    \"args\": [\n      \"connect\"\n    ]\n  }\n  // the end\n}\n// tail\n"},
		{"a trailing comma is kept, and given to the new member",
			"{\n  \"a\": 1,\n}",
			[]string{"b"},
			"{\n  \"a\": 1,\n  \"b\": {\n    \"command\": \"/opt/mcptray\",\n    \"args\": [\n      \"connect\"\n    ]\n  },\n}"},
		{"a trailing comma and a comment",
			"{\n  \"a\": 1, // one\n}",
			[]string{"b"},
			"{\n  \"a\": 1, // one\n  \"b\": {\n    \"command\": \"/opt/mcptray\",\n    \"args\": [\n      \"connect\"\n    ]\n  },\n}"},
		{"one-line object",
			`{"mcpServers": {"a": {"command": "c"}}}`,
			[]string{"mcpServers", "mcptray"},
			`{"mcpServers": {"a": {"command": "c"}, "mcptray": {"command": "/opt/mcptray", "args": ["connect"]}}}`},
		{"one-line object with a trailing comma",
			`{"a": 1,}`,
			[]string{"b"},
			`{"a": 1, "b": {"command": "/opt/mcptray", "args": ["connect"]},}`},
		{"compact file",
			`{"mcpServers":{"a":{"command":"c"}}}`,
			[]string{"mcpServers", "mcptray"},
			`{"mcpServers":{"a":{"command":"c"},"mcptray":{"command":"/opt/mcptray","args":["connect"]}}}`},
		{"closing brace on the last member's line",
			"{\n  \"a\": 1}",
			[]string{"b"},
			"{\n  \"a\": 1,\n  \"b\": {\n    \"command\": \"/opt/mcptray\",\n    \"args\": [\n      \"connect\"\n    ]\n  }}"},
		{"empty top level",
			"{}\n",
			[]string{"mcpServers", "mcptray"},
			"{\n  \"mcpServers\": {\n    \"mcptray\": {\n      \"command\": \"/opt/mcptray\",\n      \"args\": [\n        \"connect\"\n      ]\n    }\n  }\n}\n"},
		{"empty object in a pretty file",
			"{\n    \"other\": true,\n    \"mcpServers\": {}\n}",
			[]string{"mcpServers", "mcptray"},
			"{\n    \"other\": true,\n    \"mcpServers\": {\n        \"mcptray\": {\n            \"command\": \"/opt/mcptray\",\n            \"args\": [\n                \"connect\"\n            ]\n        }\n    }\n}"},
		{"empty object holding a comment",
			"{\n  \"mcpServers\": {\n    // none yet\n  }\n}",
			[]string{"mcpServers", "x"},
			"{\n  \"mcpServers\": {\n    // none yet\n    \"x\": {\n      \"command\": \"/opt/mcptray\",\n      \"args\": [\n        \"connect\"\n      ]\n    }\n  }\n}"},
		{"empty object in a one-line file",
			`{"a": 1, "mcpServers": {}}`,
			[]string{"mcpServers", "mcptray"},
			`{"a": 1, "mcpServers": {"mcptray": {"command": "/opt/mcptray", "args": ["connect"]}}}`},
		{"missing parents are created",
			"{\n  \"theme\": \"dark\"\n}\n",
			[]string{"context_servers", "mcptray"},
			"{\n  \"theme\": \"dark\",\n  \"context_servers\": {\n    \"mcptray\": {\n      \"command\": \"/opt/mcptray\",\n      \"args\": [\n        \"connect\"\n      ]\n    }\n  }\n}\n"},
		{"a key with characters to escape",
			"{}",
			[]string{"a \"b\" <c>"},
			"{\n  \"a \\\"b\\\" <c>\": {\n    \"command\": \"/opt/mcptray\",\n    \"args\": [\n      \"connect\"\n    ]\n  }\n}"},
		{"a byte order mark and a block comment after the last value",
			"\xef\xbb\xbf{\n  \"a\": 1 /* one */\n}",
			[]string{"b"},
			"\xef\xbb\xbf{\n  \"a\": 1, /* one */\n  \"b\": {\n    \"command\": \"/opt/mcptray\",\n    \"args\": [\n      \"connect\"\n    ]\n  }\n}"},
		{"a block comment over lines after the last value",
			"{\n  \"a\": 1 /* one\n  two */\n}",
			[]string{"b"},
			"{\n  \"a\": 1,\n  \"b\": {\n    \"command\": \"/opt/mcptray\",\n    \"args\": [\n      \"connect\"\n    ]\n  } /* one\n  two */\n}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SetMember([]byte(tc.in), tc.path, json.RawMessage(entryValue))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("SetMember gave\n%s\nwant\n%s", got, tc.want)
			}
			v, found, err := Lookup(got, tc.path)
			if err != nil || !found || !jsonEqual(v, []byte(entryValue)) {
				t.Errorf("Lookup after SetMember: %s %v %v", v, found, err)
			}
			again, err := SetMember(got, tc.path, json.RawMessage(`{"args":["connect"],"command":"/opt/mcptray"}`))
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("setting the same value again changed the file:\n%s", again)
			}
			if len(tc.path) == 1 || strings.Contains(tc.in, `"`+tc.path[0]+`"`) {
				back, err := RemoveMember(got, tc.path)
				if err != nil {
					t.Fatal(err)
				}
				if string(back) != tc.in {
					t.Errorf("RemoveMember gave\n%q\nwant the original\n%q", back, tc.in)
				}
			}
		})
	}
}

// Removing members a person wrote: each takes its line (or its inline
// separator) with it, and comments on other lines stay.
func TestRemoveMember(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		path     []string
		want     string
	}{
		{"first of several lines",
			"{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}", []string{"a"},
			"{\n  \"b\": 2,\n  \"c\": 3\n}"},
		{"middle",
			"{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}", []string{"b"},
			"{\n  \"a\": 1,\n  \"c\": 3\n}"},
		{"last: the comma before it goes",
			"{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3\n}", []string{"c"},
			"{\n  \"a\": 1,\n  \"b\": 2\n}"},
		{"last, with a comment after the comma before it",
			"{\n  \"a\": 1, // one\n  \"b\": 2\n}", []string{"b"},
			"{\n  \"a\": 1 // one\n}"},
		{"a multi-line value",
			"{\n  \"a\": {\n    \"x\": [1,\n      2]\n  },\n  \"b\": 2\n}", []string{"a"},
			"{\n  \"b\": 2\n}"},
		{"a comment line above stays",
			"{\n  \"a\": 1,\n  // about b\n  \"b\": 2\n}", []string{"b"},
			"{\n  \"a\": 1\n  // about b\n}"},
		{"the only member of a multi-line object",
			"{\n  \"s\": {\n    \"a\": 1\n  }\n}", []string{"s", "a"},
			"{\n  \"s\": {}\n}"},
		{"the only member, with a comment",
			"{\n  \"s\": {\n    // c\n    \"a\": 1\n  }\n}", []string{"s", "a"},
			"{\n  \"s\": {\n    // c\n  }\n}"},
		{"inline, first",
			`{"a": 1, "b": 2}`, []string{"a"}, `{"b": 2}`},
		{"inline, last",
			`{"a": 1, "b": 2}`, []string{"b"}, `{"a": 1}`},
		{"inline, only",
			`{"s": {"a": 1}}`, []string{"s", "a"}, `{"s": {}}`},
		{"inline, with trailing comma",
			`{"a": 1, "b": 2,}`, []string{"b"}, `{"a": 1,}`},
		{"every repeated key",
			"{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3\n}", []string{"a"},
			"{\n  \"b\": 2\n}"},
		{"CRLF",
			"{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n", []string{"b"},
			"{\r\n  \"a\": 1\r\n}\r\n"},
		{"tabs and a trailing comma",
			"{\n\t\"a\": 1,\n\t\"b\": 2,\n}", []string{"b"},
			"{\n\t\"a\": 1,\n}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RemoveMember([]byte(tc.in), tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
			if _, _, err := parseEdit(got); err != nil {
				t.Errorf("result does not parse: %v", err)
			}
		})
	}
}

// An existing member keeps its place; its value takes the member's
// indentation.
func TestSetMemberReplaces(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		path     []string
		value    string
		want     string
	}{
		{"a string",
			"{\n  \"a\": {\n    \"command\": \"old\", // the binary\n    \"args\": []\n  }\n}", []string{"a", "command"}, `"new"`,
			"{\n  \"a\": {\n    \"command\": \"new\", // the binary\n    \"args\": []\n  }\n}"},
		{"an object over lines",
			"{\n  \"a\": {\"command\": \"old\"},\n  \"b\": 1\n}", []string{"a"}, entryValue,
			"{\n  \"a\": {\n    \"command\": \"/opt/mcptray\",\n    \"args\": [\n      \"connect\"\n    ]\n  },\n  \"b\": 1\n}"},
		{"inline",
			`{"a": {"command": "old"}, "b": 1}`, []string{"a"}, entryValue,
			`{"a": {"command": "/opt/mcptray", "args": ["connect"]}, "b": 1}`},
		{"an equal value changes nothing",
			"{\"a\": {\"args\": [\"connect\"], \"command\": \"/opt/mcptray\"}} // x", []string{"a"}, entryValue,
			"{\"a\": {\"args\": [\"connect\"], \"command\": \"/opt/mcptray\"}} // x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SetMember([]byte(tc.in), tc.path, json.RawMessage(tc.value))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestEditErrors(t *testing.T) {
	t.Parallel()
	_, err := SetMember([]byte("{\n  \"a\": 1,,\n}"), []string{"b"}, json.RawMessage(`1`))
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 || se.Col != 10 {
		t.Errorf("broken file: %v, want a SyntaxError at 2:10", err)
	}
	_, err = SetMember([]byte("{\n  \"mcpServers\": []\n}"), []string{"mcpServers", "x"}, json.RawMessage(`1`))
	if err == nil || err.Error() != "mcp.json:2:17: mcpServers must be an object, got array" {
		t.Errorf("a parent that is not an object: %v", err)
	}
	if _, err := SetMember([]byte(`{}`), []string{"a"}, json.RawMessage(`{`)); err == nil {
		t.Error("an invalid value was taken")
	}
	if _, err := SetMember([]byte(`{}`), nil, json.RawMessage(`1`)); err == nil {
		t.Error("an empty path was taken")
	}
	_, err = RemoveMember([]byte(`{"a": {}}`), []string{"a", "b"})
	if !errors.Is(err, ErrNoMember) || err.Error() != "no such member: a.b" {
		t.Errorf("removing a missing member: %v", err)
	}
	if _, err := RemoveMember([]byte(`{}`), []string{"a", "b"}); !errors.Is(err, ErrNoMember) {
		t.Errorf("removing under a missing parent: %v", err)
	}
	if _, err := RemoveMember([]byte(`[]`), []string{"a"}); err == nil {
		t.Error("a top level that is not an object was taken")
	}
	if _, err := AppendElement([]byte(`{"inputs": {}}`), []string{"inputs"}, json.RawMessage(`1`)); err == nil || !strings.Contains(err.Error(), "inputs must be an array, got object") {
		t.Errorf("appending to an object: %v", err)
	}
}

func TestLookupAndMembers(t *testing.T) {
	t.Parallel()
	data := []byte("{\n  // servers\n  \"mcpServers\": {\n    \"b\": {\"command\": \"x\", /* c */ \"args\": [\"1\",],},\n    \"a\": 2,\n  },\n}")
	ms, err := Members(data, []string{"mcpServers"})
	if err != nil || len(ms) != 2 || ms[0].Key != "b" || ms[1].Key != "a" {
		t.Fatalf("Members: %v %v", ms, err)
	}
	var e struct {
		Command string
		Args    []string
	}
	if err := json.Unmarshal(ms[0].Value, &e); err != nil || e.Command != "x" || len(e.Args) != 1 {
		t.Errorf("a member's value does not decode: %v %+v", err, e)
	}
	if ms, err := Members(data, []string{"servers"}); err != nil || ms != nil {
		t.Errorf("Members of a missing object: %v %v", ms, err)
	}
	if _, err := Members(data, []string{"mcpServers", "a"}); err == nil {
		t.Error("Members of a number")
	}
	v, found, err := Lookup(data, []string{"mcpServers", "a"})
	if err != nil || !found || string(v) != "2" {
		t.Errorf("Lookup: %s %v %v", v, found, err)
	}
	if _, found, err := Lookup(data, []string{"nope", "x"}); err != nil || found {
		t.Errorf("Lookup of a missing member: %v %v", found, err)
	}
	if _, _, err := Lookup(data, []string{"mcpServers", "a", "x"}); err == nil {
		t.Error("Lookup through a number")
	}
}

func TestAppendElement(t *testing.T) {
	t.Parallel()
	input := `{"id": "k", "type": "promptString"}`
	tests := []struct{ name, in, want string }{
		{"over lines",
			"{\n  \"inputs\": [\n    {\"id\": \"a\"}\n  ]\n}",
			"{\n  \"inputs\": [\n    {\"id\": \"a\"},\n    {\n      \"id\": \"k\",\n      \"type\": \"promptString\"\n    }\n  ]\n}"},
		{"inline",
			`{"inputs": [{"id": "a"}]}`,
			`{"inputs": [{"id": "a"}, {"id": "k", "type": "promptString"}]}`},
		{"empty",
			"{\n  \"inputs\": []\n}",
			"{\n  \"inputs\": [\n    {\n      \"id\": \"k\",\n      \"type\": \"promptString\"\n    }\n  ]\n}"},
		{"missing",
			"{\n  \"servers\": {}\n}",
			"{\n  \"servers\": {},\n  \"inputs\": [\n    {\n      \"id\": \"k\",\n      \"type\": \"promptString\"\n    }\n  ]\n}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AppendElement([]byte(tc.in), []string{"inputs"}, json.RawMessage(input))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// Add then remove gives back the same bytes, for members added at every
// depth of a set of documents in different styles.
func TestSetThenRemoveIsIdentity(t *testing.T) {
	t.Parallel()
	docs := []string{
		"{}",
		"{ }",
		"{\n}\n",
		"  {\"x\":1}  ",
		"{\"a\": {\"b\": {}}, \"c\": []}",
		"{\n  \"a\": {\n    \"b\": {}\n  },\n  \"c\": [] // c\n}\n",
		"{\r\n\t\"a\": {\r\n\t\t\"b\": { /* nothing */ }\r\n\t},\r\n}\r\n",
		"// top\n{\n    \"a\": {\"b\": {\"x\": 1,\n                 \"y\": 2}}, // a\n    /* end */\n}",
		"{\"a\":{\"b\":{\"x\":1}}}",
	}
	paths := [][]string{{"new"}, {"a", "new"}, {"a", "b", "new"}, {"z", "y", "new"}}
	values := []string{`1`, `"s"`, `{}`, `[]`, entryValue, `{"env": {"K": "v"}, "args": [[1], {"x": null}]}`}
	for _, doc := range docs {
		for _, path := range paths {
			for _, v := range values {
				got, err := SetMember([]byte(doc), path, json.RawMessage(v))
				if err != nil {
					t.Errorf("%q + %v: %v", doc, path, err)
					continue
				}
				if lv, found, err := Lookup(got, path); err != nil || !found || !jsonEqual(lv, []byte(v)) {
					t.Errorf("%q + %v = %q: Lookup %s %v %v", doc, path, got, lv, found, err)
				}
				// Remove what was added: the member, then the parents
				// SetMember created.
				created := 0
				for i := range path[:len(path)-1] {
					if _, found, _ := Lookup([]byte(doc), path[:i+1]); !found {
						created = len(path) - 1 - i
						break
					}
				}
				back := got
				for k := 0; k <= created; k++ {
					if back, err = RemoveMember(back, path[:len(path)-k]); err != nil {
						t.Fatalf("%q + %v: remove: %v", doc, path, err)
					}
				}
				want := doc
				if strings.HasPrefix(doc, "{\n}") {
					want = "{}" + doc[3:] // the one exception
				}
				if string(back) != want {
					t.Errorf("%q + %v %s, then removed:\n%q", doc, path, v, back)
				}
			}
		}
	}
}

// FuzzSetMember: on any file that parses, SetMember gives a file that
// parses and holds the value, and RemoveMember then gives back the same
// bytes (but for the documented "{\n}").
func FuzzSetMember(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), "mcpServers", "mcptray")
	}
	f.Add([]byte("{\n  \"a\": 1, // x\n  \"b\": [\n  ],\n}"), "b", "c")
	f.Fuzz(func(t *testing.T, data []byte, k1, k2 string) {
		path := []string{k1, k2}
		if !utf8.ValidString(k1) || !utf8.ValidString(k2) {
			return // a key is written as JSON: U+FFFD for a bad byte
		}
		if _, _, err := parseEdit(data); err != nil {
			return
		}
		got, err := SetMember(data, path, json.RawMessage(entryValue))
		if err != nil {
			return // a member on the way that is not an object
		}
		v, found, err := Lookup(got, path)
		if err != nil || !found || !jsonEqual(v, []byte(entryValue)) {
			t.Fatalf("%q: after SetMember %q: Lookup %s %v %v", data, got, v, found, err)
		}
		_, had, _ := Lookup(data, path)
		_, hadParent, _ := Lookup(data, path[:1])
		if had {
			return
		}
		back, err := RemoveMember(got, path)
		if err == nil && !hadParent {
			back, err = RemoveMember(back, path[:1])
		}
		if err != nil {
			t.Fatalf("%q: RemoveMember: %v", got, err)
		}
		if !bytes.Equal(back, data) && !(emptyOverTwoLines.Match(data) && bytes.Equal(dropBlanks(back), dropBlanks(data))) {
			t.Fatalf("%q: set then removed gives %q", data, back)
		}
	})
}

// emptyOverTwoLines matches the documented exception: an empty object
// with one line break inside, which may come back without it.
var emptyOverTwoLines = regexp.MustCompile(`\{[ \t]*(\r\n|\r|\n)[ \t]*\}`)

func dropBlanks(b []byte) []byte {
	return bytes.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, b)
}
