package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPeekMessage(t *testing.T) {
	t.Parallel()
	line := []byte(` { "jsonrpc" : "2.0", "params": {"name":"a\"b}","arguments":{"x":[1,{"y":"}]"}]},"_meta":{"progressToken":7}}, "id" : 12 , "method":"tools/call"} `)
	p, err := PeekMessage(line)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(p.ID.Of(line)); got != "12" {
		t.Errorf("id %q", got)
	}
	if !p.Method.Is(line, `"tools/call"`) {
		t.Errorf("method %q", p.Method.Of(line))
	}
	params := p.Params.Of(line)
	name, ok := RawString(Field(params, "name").Of(params))
	if !ok || name != `a"b}` {
		t.Errorf("name %q %v", name, ok)
	}
	meta := Field(params, "_meta")
	tok := Field(meta.Of(params), "progressToken").Within(meta).Within(p.Params)
	if got := string(tok.Of(line)); got != "7" {
		t.Errorf("token %q", got)
	}
	out := Splice(line, Edit{tok.Start, tok.End, []byte(`"gw-1"`)}, Edit{p.ID.Start, p.ID.End, []byte(`"gw-1"`)})
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("spliced line is not JSON: %v\n%s", err, out)
	}
	if m["id"] != "gw-1" || m["params"].(map[string]any)["_meta"].(map[string]any)["progressToken"] != "gw-1" {
		t.Errorf("spliced: %s", out)
	}
	if !strings.HasSuffix(string(out), "\n") {
		t.Error("spliced line has no newline")
	}
}

func TestPeekEscapedKeysAndBadInput(t *testing.T) {
	t.Parallel()
	line := []byte(`{"\u0069d":"x","result":{"s":"\\\"}"}}`)
	p, err := PeekMessage(line)
	if err != nil || string(p.ID.Of(line)) != `"x"` || string(p.Result.Of(line)) != `{"s":"\\\"}"}` {
		t.Fatalf("peek: %+v %v", p, err)
	}
	for _, bad := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":"unterminated}`, `{"a":1 "b":2}`, `nope`} {
		if _, err := PeekMessage([]byte(bad)); err == nil {
			t.Errorf("peekMessage(%q): no error", bad)
		}
	}
}

func TestGWID(t *testing.T) {
	t.Parallel()
	b := AppendGWID(nil, 42)
	if string(b) != `"gw-42"` {
		t.Fatalf("appendGWID: %s", b)
	}
	if n, ok := ParseGWID(b); !ok || n != 42 {
		t.Errorf("parseGWID: %d %v", n, ok)
	}
	for _, bad := range []string{`42`, `"gw-"`, `"gx-1"`, `"gw-1x"`, `gw-1`, `""`} {
		if _, ok := ParseGWID([]byte(bad)); ok {
			t.Errorf("parseGWID(%s) accepted", bad)
		}
	}
}

func TestErrorLine(t *testing.T) {
	t.Parallel()
	var m struct {
		ID    any
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(ErrorLine([]byte(`"a"`), -32001, `say "hi"`), &m); err != nil {
		t.Fatal(err)
	}
	if m.ID != "a" || m.Error.Code != -32001 || m.Error.Message != `say "hi"` {
		t.Errorf("%+v", m)
	}
}

func BenchmarkPeekAndSplice(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"srv__echo","arguments":{"message":"hello world"},"_meta":{"progressToken":"abc"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		p, _ := PeekMessage(line)
		params := p.Params.Of(line)
		name := Field(params, "name")
		Splice(line, Edit{p.ID.Start, p.ID.End, []byte(`"gw-1"`)}, Edit{name.Start + p.Params.Start, name.End + p.Params.Start, []byte(`"echo"`)})
	}
}
