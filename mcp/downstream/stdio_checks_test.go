package downstream

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptray/mcptray/mcp/wire"
)

func TestValidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"a\xffb":                         "a\uFFFDb",
		"\xc3(":                          "\uFFFD(",
		"\xe2\x82":                       "\uFFFD\uFFFD",
		"{\"t\":\"Grüße \xf0\x9f\x98\"}": `{"t":"Grüße ` + "\uFFFD\uFFFD\uFFFD" + `"}`,
		`{"t":"ok \u00e9 é 世界"}`:         `{"t":"ok \u00e9 é 世界"}`,
		"\xed\xa0\x80 (a surrogate)":     "\uFFFD\uFFFD\uFFFD (a surrogate)",
	} {
		got := string(validUTF8([]byte(in)))
		if got != want || !utf8.ValidString(got) {
			t.Errorf("validUTF8(%q) = %q, want %q", in, got, want)
		}
		// The same as what a JSON decoder makes of the string.
		if strings.HasPrefix(in, "{") {
			var a, b map[string]string
			json.Unmarshal([]byte(in), &a)
			json.Unmarshal([]byte(got), &b)
			if a["t"] != b["t"] {
				t.Errorf("%q: decoded %q before, %q after", in, a["t"], b["t"])
			}
		}
	}
}

// TestToolEntryCheck: a tools/list entry is left out for a key twice at
// any depth (an annotation twice decides what is asked), keys compared
// decoded.
func TestToolEntryCheck(t *testing.T) {
	for in, want := range map[string]string{
		`{"name":"a","description":"d"}`:      "",
		`{"name":"a","name":"b"}`:             `has the key "name" twice,`,
		`{"name":"a","n\u0061me":"b"}`:        `has the key "name" twice,`,
		`{"x":{"y":1,"y":2},"z":1}`:           `has the key "y" twice in x,`,
		`{"d":"1","name":"n","d":"2"}`:        `has the key "d" twice,`,
		`{"name":"a","inputSchema":{},"a":1}`: "",
		`{"name":"a","annotations":{"destructiveHint":false,"destructiveHint":true}}`: `has the key "destructiveHint" twice in annotations,`,
	} {
		err := wire.Check([]byte(in))
		if (err == nil) != (want == "") || err != nil && !strings.Contains(toolSkippedText([]byte(in), err), want) {
			t.Errorf("%s: %v; want %q", in, err, want)
		}
	}
}

func TestCheckTools(t *testing.T) {
	var logs []string
	c := &stdioConn{hooks: Hooks{Log: func(kind, line string) { logs = append(logs, kind+"|"+line) }}}
	in := `{"tools":[{"name":"x"}, {"name":"y","name":"z"} ,{"name":"w"}],"nextCursor":"c"}`
	if got, want := string(c.checkTools(json.RawMessage(in))), `{"tools":[{"name":"x"},{"name":"w"}],"nextCursor":"c"}`; got != want {
		t.Errorf("checkTools = %s, want %s", got, want)
	}
	if len(logs) != 1 || !strings.Contains(logs[0], `tool "y" / "z" skipped`) {
		t.Errorf("logs: %q", logs)
	}
	for _, same := range []string{`{"tools":[{"name":"x"}]}`, `{"tools":[]}`, `{"tools":"odd"}`, `{}`} {
		if got := string(c.checkTools(json.RawMessage(same))); got != same {
			t.Errorf("checkTools(%s) = %s", same, got)
		}
	}
}
