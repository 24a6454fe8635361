package assistants

import (
	"strings"
	"testing"
)

const tomlBlock = "[mcp_servers.mcptray]\ncommand = \"/opt/mcptray/bin/mcptray\"\nargs = [\"connect\"]\n"

// The text edit of Codex's config.toml on the files it can meet: the
// table appended (or rewritten in place), then taken out again giving the
// same bytes, and the result parsed each time.
func TestTOMLRoundTrip(t *testing.T) {
	t.Parallel()
	want := tomlEntryOf(mustFind(t, "codex").Entry(self))
	for _, tc := range []struct {
		name, in, added string
	}{
		{"empty", "", tomlBlock},
		{"final line break", "model = \"o3\"\n", "model = \"o3\"\n\n" + tomlBlock},
		{"no final line break", "model = \"o3\"", "model = \"o3\"\n" + tomlBlock},
		{"CRLF", "model = \"o3\"\r\n[tui]\r\nx = 1\r\n", "model = \"o3\"\r\n[tui]\r\nx = 1\r\n\r\n" + strings.ReplaceAll(tomlBlock, "\n", "\r\n")},
		{"a comment last", "[a]\nx = 1\n# the end\n", "[a]\nx = 1\n# the end\n\n" + tomlBlock},
		{"an array over lines with a [ at a line's start",
			"[mcp_servers.a]\nargs = [\n  [\"x\"],\n  \"y\",\n]\n",
			"[mcp_servers.a]\nargs = [\n  [\"x\"],\n  \"y\",\n]\n\n" + tomlBlock},
		{"a multi-line string holding a header",
			"notes = \"\"\"\n[mcp_servers.mcptray]\ncommand = \"no\"\n\"\"\"\n",
			"notes = \"\"\"\n[mcp_servers.mcptray]\ncommand = \"no\"\n\"\"\"\n\n" + tomlBlock},
		{"mcp_servers as a table of its own",
			"[mcp_servers]\n\n[mcp_servers.a]\ncommand = \"a\"\n",
			"[mcp_servers]\n\n[mcp_servers.a]\ncommand = \"a\"\n\n" + tomlBlock},
		{"a quoted key in a header", "[projects.\"/a b\"]\ntrust_level = \"trusted\" # yes\n",
			"[projects.\"/a b\"]\ntrust_level = \"trusted\" # yes\n\n" + tomlBlock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tomlAdd([]byte(tc.in), want)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.added {
				t.Errorf("added:\n%q\nwant\n%q", got, tc.added)
			}
			back, err := tomlRemove(got, EntryName)
			if err != nil {
				t.Fatal(err)
			}
			if string(back) != tc.in {
				t.Errorf("removed:\n%q\nwant the original\n%q", back, tc.in)
			}
		})
	}
}

// A table of mcptray's that is not the last is rewritten where it is,
// and taken out with the blank line before it.
func TestTOMLInPlace(t *testing.T) {
	t.Parallel()
	want := tomlEntryOf(mustFind(t, "codex").Entry(self))
	in := "model = \"o3\"\n\n[mcp_servers.mcptray]\ncommand = \"/old/mcptray\" # moved\nargs = [\"connect\"]\n\n[mcp_servers.mcptray.env]\nX = \"1\"\n\n# figma\n[mcp_servers.figma]\nurl = \"u\"\n"
	got, err := tomlAdd([]byte(in), want)
	if err != nil {
		t.Fatal(err)
	}
	if w := "model = \"o3\"\n\n" + tomlBlock + "\n# figma\n[mcp_servers.figma]\nurl = \"u\"\n"; string(got) != w {
		t.Errorf("rewritten:\n%s\nwant\n%s", got, w)
	}
	back, err := tomlRemove(got, EntryName)
	if err != nil {
		t.Fatal(err)
	}
	if w := "model = \"o3\"\n\n# figma\n[mcp_servers.figma]\nurl = \"u\"\n"; string(back) != w {
		t.Errorf("removed:\n%s\nwant\n%s", back, w)
	}
}

// Forms the text edit does not handle are refused, not broken.
func TestTOMLRefused(t *testing.T) {
	t.Parallel()
	want := tomlEntryOf(mustFind(t, "codex").Entry(self))
	for _, in := range []string{
		"[mcp_servers]\nmcptray = { command = \"x\" }\n",
		"mcp_servers.mcptray.command = \"x\"\n",
		"mcp_servers = { a = { command = \"a\" } }\n",
		"[mcp_servers.mcptray]\ncommand = \"x\"\n[other]\n[mcp_servers.mcptray.env]\nA = \"1\"\n",
	} {
		if _, err := tomlAdd([]byte(in), want); err == nil {
			t.Errorf("added to %q", in)
		}
	}
	if _, err := tomlRemove([]byte("[mcp_servers]\nmcptray = { command = \"x\" }\n"), EntryName); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("removing an inline table: %v", err)
	}
}

func TestTOMLStrings(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`C:\Program Files\mcptray\mcptray.exe`: `"C:\\Program Files\\mcptray\\mcptray.exe"`,
		`/a "b"/c`:                             `"/a \"b\"/c"`,
		"/a\tb\x01":                            `"/a\tb\u0001"`,
	} {
		if got := tomlString(in); got != want {
			t.Errorf("tomlString(%q) = %s, want %s", in, got, want)
		}
		v, err := tomlDecode("t", []byte("k = "+tomlString(in)))
		if err != nil || v["k"] != in {
			t.Errorf("%q does not decode back: %v %v", in, v["k"], err)
		}
	}
}

func mustFind(t *testing.T, name string) *Client {
	t.Helper()
	c, ok := Find(name)
	if !ok {
		t.Fatalf("no client %s", name)
	}
	return c
}
