package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPeekMessage(t *testing.T) {
	line := []byte(` { "jsonrpc" : "2.0", "params": {"name":"a\"b}","arguments":{"x":[1,{"y":"}]"}]},"_meta":{"progressToken":7}}, "id" : 12 , "method":"tools/call"} `)
	p, err := peekMessage(line)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(p.id.of(line)); got != "12" {
		t.Errorf("id %q", got)
	}
	if !p.method.is(line, `"tools/call"`) {
		t.Errorf("method %q", p.method.of(line))
	}
	params := p.params.of(line)
	name, ok := rawString(field(params, "name").of(params))
	if !ok || name != `a"b}` {
		t.Errorf("name %q %v", name, ok)
	}
	meta := field(params, "_meta")
	tok := field(meta.of(params), "progressToken").within(meta).within(p.params)
	if got := string(tok.of(line)); got != "7" {
		t.Errorf("token %q", got)
	}
	out := splice(line, edit{tok.s, tok.e, []byte(`"gw-1"`)}, edit{p.id.s, p.id.e, []byte(`"gw-1"`)})
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
	line := []byte(`{"\u0069d":"x","result":{"s":"\\\"}"}}`)
	p, err := peekMessage(line)
	if err != nil || string(p.id.of(line)) != `"x"` || string(p.result.of(line)) != `{"s":"\\\"}"}` {
		t.Fatalf("peek: %+v %v", p, err)
	}
	for _, bad := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":"unterminated}`, `{"a":1 "b":2}`, `nope`} {
		if _, err := peekMessage([]byte(bad)); err == nil {
			t.Errorf("peekMessage(%q): no error", bad)
		}
	}
}

func TestGWID(t *testing.T) {
	b := appendGWID(nil, 42)
	if string(b) != `"gw-42"` {
		t.Fatalf("appendGWID: %s", b)
	}
	if n, ok := parseGWID(b); !ok || n != 42 {
		t.Errorf("parseGWID: %d %v", n, ok)
	}
	for _, bad := range []string{`42`, `"gw-"`, `"gx-1"`, `"gw-1x"`, `gw-1`, `""`} {
		if _, ok := parseGWID([]byte(bad)); ok {
			t.Errorf("parseGWID(%s) accepted", bad)
		}
	}
}

func TestErrorLine(t *testing.T) {
	var m struct {
		ID    any
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal(errorLine([]byte(`"a"`), -32001, `say "hi"`), &m); err != nil {
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
		p, _ := peekMessage(line)
		params := p.params.of(line)
		name := field(params, "name")
		splice(line, edit{p.id.s, p.id.e, []byte(`"gw-1"`)}, edit{name.s + p.params.s, name.e + p.params.s, []byte(`"echo"`)})
	}
}
