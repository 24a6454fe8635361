package downstream

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
)

// A secret echoed by a server is redacted however its JSON encoder wrote
// it: Go's (HTML characters escaped), node's (as is), Python's json.dumps
// (ASCII only), PHP's (\/), upper-case hex, every character escaped, and
// mixes of these.
func TestRedactJSONForms(t *testing.T) {
	const secret = `p&ss/<é😀>"x`
	s := newSession(Hooks{})
	s.addSecret(secret)
	goForm, _ := json.Marshal("said " + secret)
	for name, line := range map[string]string{
		"go":         `{"text":` + string(goForm) + `}`,
		"node":       `{"text":"said p&ss/<é😀>\"x"}`,
		"python":     `{"text":"said p&ss/<\u00e9\ud83d\ude00>\"x"}`,
		"php":        `{"text":"said p&ss\/<\u00e9\ud83d\ude00>\"x"}`,
		"upper":      `{"text":"said p&ss/<\u00E9\uD83D\uDE00>\"x"}`,
		"every":      `{"text":"said ` + escapeEvery(secret, "\\u%04x") + `"}`,
		"every, UP":  `{"text":"said ` + escapeEvery(secret, "\\u%04X") + `"}`,
		"mixed":      `{"text":"said \u0070&s\u0073\/<é\uD83D\ude00\u003e\"\u0078"}`,
		"in a key":   `{"said p\u0026ss/<é😀>\"x":"[redacted]"}`,
		"not json":   `{"text":"said p&ss\/<é😀>\"x", oops}`,
		"unfinished": `{"text":"said p&ss\/<é😀>\"x`,
	} {
		got := string(s.RedactJSON([]byte(line)))
		want := `{"text":"said [redacted]"}`
		switch name {
		case "in a key":
			want = `{"said [redacted]":"[redacted]"}`
		case "not json":
			want = `{"text":"said [redacted]", oops}`
		case "unfinished":
			want = `{"text":"said [redacted]"`
		}
		if got != want {
			t.Errorf("%s: %s", name, got)
		}
	}
	if got := s.RedactText("log: " + secret); got != "log: [redacted]" {
		t.Errorf("log line: %s", got)
	}
	if got := s.RedactText(`{"level":"info","msg":"pw p&ss\/<\u00E9\ud83d\ude00>\"x"}`); got != `{"level":"info","msg":"pw [redacted]"}` {
		t.Errorf("JSON log line: %s", got)
	}
	for _, line := range []string{`{"a":"p&ss"}`, `{"a":"p\u0026ss/<é"}`, `["p&ss/<é😀>", "\"x"]`} {
		if got := string(s.RedactJSON([]byte(line))); got != line {
			t.Errorf("a part of the secret was redacted: %s → %s", line, got)
		}
	}
	// Nesting deeper than encoding/json goes is searched string by string.
	deep := strings.Repeat("[", 20000) + `"said p&ss\/<é😀>\"x"` + strings.Repeat("]", 20000)
	if got := string(s.RedactJSON([]byte(deep))); got != strings.Repeat("[", 20000)+`"said [redacted]"`+strings.Repeat("]", 20000) {
		t.Errorf("deep nesting: …%s…", got[19990:20030])
	}
	// Lone surrogates and unknown escapes decode leniently; nothing breaks.
	if line := `{"a":"\ud83d x \ude00 \q \u12"}`; string(s.RedactJSON([]byte(line))) != line {
		t.Errorf("odd escapes changed: %s", s.RedactJSON([]byte(line)))
	}
}

// escapeEvery writes every UTF-16 unit of s as a \u escape.
func escapeEvery(s, format string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, format, u)
	}
	return b.String()
}

// A secret split across adjacent text blocks is caught on the joined
// text; each block's part is replaced, the rest of each block is kept.
func TestRedactJSONSplit(t *testing.T) {
	s := newSession(Hooks{})
	s.addSecret("hunter2-horse")
	for _, c := range []struct{ in, want string }{
		{ // tool result content blocks
			`{"content":[{"type":"text","text":"pw: hun"},{"type":"text","text":"ter2-h\u006frse, ok"}],"isError":false}`,
			`{"content":[{"type":"text","text":"pw: [redacted]"},{"type":"text","text":"[redacted], ok"}],"isError":false}`,
		},
		{ // over three blocks, the middle one all secret
			`[{"type":"text","text":"a hunt"},{"text":"er2-"},{"type":"text","text":"horse b"}]`,
			`[{"type":"text","text":"a [redacted]"},{"text":"[redacted]"},{"type":"text","text":"[redacted] b"}]`,
		},
		{ // prompt and sampling messages: the text is in "content"
			`{"messages":[{"role":"user","content":{"type":"text","text":"hunter"}},{"role":"user","content":{"type":"text","text":"2-horse!"}}]}`,
			`{"messages":[{"role":"user","content":{"type":"text","text":"[redacted]"}},{"role":"user","content":{"type":"text","text":"[redacted]!"}}]}`,
		},
		{ // not adjacent: an image between
			`[{"type":"text","text":"hunter"},{"type":"image","data":"AAAA"},{"type":"text","text":"2-horse"}]`,
			`[{"type":"text","text":"hunter"},{"type":"image","data":"AAAA"},{"type":"text","text":"2-horse"}]`,
		},
		{ // whole secrets in single blocks, and next to other strings
			`{"contents":[{"uri":"x://hunter2-horse","text":"hunter2-horse hunter2-horse"}]}`,
			`{"contents":[{"uri":"x://[redacted]","text":"[redacted] [redacted]"}]}`,
		},
	} {
		if got := string(s.RedactJSON([]byte(c.in))); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// Without secrets the redactor is one nil check; with one, a result is
// scanned once.
func BenchmarkRedactJSON(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":"gw-1","result":{"content":[{"type":"text","text":"` + strings.Repeat(`hello \"world\"\n`, 256) + `"}],"isError":false}}`)
	for _, secrets := range []int{0, 1} {
		b.Run(fmt.Sprintf("secrets=%d", secrets), func(b *testing.B) {
			s := newSession(Hooks{})
			if secrets > 0 {
				s.addSecret("hunter2-horse")
			}
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				s.RedactJSON(line)
			}
		})
	}
}
