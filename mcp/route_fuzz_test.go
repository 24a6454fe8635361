package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcptray/mcptray/mcp/wire"
)

// deepArguments is a tools/call whose arguments nest n arrays deep.
func deepArguments(id, tool string, n int) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}}`
}

// dupKeyCases are messages with a key twice (or nested too deep), with
// the id their error answers and what its message says.
func dupKeyCases(prefix string) []struct{ msg, id, want string } {
	read, del := prefix+"read_note", prefix+"delete_note"
	return []struct{ msg, id, want string }{
		// The probe of issue 28: read_note approved and recorded, delete_note run.
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + read + `","arguments":{"id":1},"name":"delete_note"}}`, `3`, `duplicate key "name" in params`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"` + read + `","arguments":{"id":1},"name":"` + del + `"}}`, `4`, `duplicate key "name" in params`},
		{`{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"na\u006de":"` + read + `","arguments":{},"name":"` + del + `"}}`, `"e"`, `duplicate key "name" in params`},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"` + read + `","arguments":{"path":"notes/old.txt","path":"~"}}}`, `5`, `duplicate key "path" in params.arguments`},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"` + read + `","arguments":{"list":[{"p":"a"},{"p":"a","p":"~"}]}}}`, `6`, `duplicate key "p" in params.arguments.list[1]`},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/list","method":"tools/call","params":{"name":"` + del + `"}}`, `7`, `duplicate key "method" in the message`},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"` + read + `"},"params":{"name":"` + del + `"}}`, `8`, `duplicate key "params" in the message`},
		{`{"jsonrpc":"2.0","id":9,"id":10,"method":"tools/call","params":{"name":"` + read + `"}}`, `null`, `duplicate key "id" in the message`},
		{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"` + read + `","arguments":{"__proto__":{"admin":true},"__proto__":{}}}}`, `11`, `duplicate key "__proto__" in params.arguments`},
		{`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"` + read + `","_meta":{"progressToken":1,"progressToken":2}}}`, `12`, `duplicate key "progressToken" in params._meta`},
		{`{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"cursor":"a","cursor":"b"}}`, `13`, `duplicate key "cursor" in params`},
		{deepArguments("14", read, 200), `14`, `nested more than 128 deep`},
		{deepArguments("15", read, 100000), `15`, `nested more than 128 deep`},
		{"{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"tools/call\",\"params\":{\"name\":\"" + read + "\",\"arguments\":{\"pa\xffth\":\"~\"}}}", `16`, `is not valid UTF-8`},
		{`{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"` + read + `","arguments":{},"Name":"` + del + `"}}`, `18`, `duplicate key "Name" in params (another key differs from it only in case`},
		{`{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"` + read + `","argument\u017f":{"id":1},"arguments":{}}}`, `19`, `duplicate key "arguments" in params (another key differs`},
		{`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"` + read + `","arguments":{"\ud83d\ude00":1,"😀":2}}}`, `17`, `duplicate key "😀" in params.arguments`},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}`, `null`, `duplicate key "requestId" in params`},
		{`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":{},"_meta":{}}}`, `null`, `duplicate key "_meta" in params`},
	}
}

// fuzzRoutes is a route table: the tool a name reaches, server/tool.
var fuzzRoutes = map[string]string{
	"mem__read_graph": "mem/read_graph", "mem__delete_entities": "mem/delete_entities",
	"h__read_note": "h/read_note", "h__delete_note": "h/delete_note",
	"read_note": "h/read_note", "delete_note": "h/delete_note", "safe": "a/safe", "wipe": "a/wipe",
}

// fastRouteOf is the way the gateway takes line: refused, the SDK's, or
// the fast path's with the method and the tool (a tools/call's route) or
// the request id (a cancellation's), as handleLine decides.
func fastRouteOf(line []byte) (way int, method, target string, err error) {
	t := bytes.TrimSpace(line)
	p, err := wire.CheckMessage(t)
	if err != nil {
		return 0, "", "", err
	}
	switch fastWay(t, &p) {
	case fastToolCall:
		name, _, ok := callName(t, &p)
		if !ok {
			return slowPath, "", "", nil
		}
		return fastToolCall, "tools/call", fuzzRoutes[name] + "|" + name, nil
	case fastCancelled:
		params := p.Params.Of(t)
		if !p.Params.OK() {
			return slowPath, "", "", nil
		}
		id := wire.Field(params, "requestId")
		if !id.OK() {
			return slowPath, "", "", nil
		}
		return fastCancelled, "notifications/cancelled", string(id.Of(params)), nil
	}
	return slowPath, "", "", nil
}

// strictDecode reads b the way a strict decoder does, independently of
// package wire: valid JSON (encoding/json), no object with a key twice
// (keys as encoding/json decodes them), at most wire.MaxDepth deep. ok is
// false when b is none of that; top is b's top-level object then.
func strictDecode(b []byte) (top map[string]json.RawMessage, ok bool) {
	if !json.Valid(b) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		keys    map[string]bool // nil for an array
		wantKey bool
		fold    bool // the message or an object right under it: case is folded
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false
		}
		if n := len(stack); n > 0 && stack[n-1].keys != nil && stack[n-1].wantKey {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			key := tok.(string)
			if stack[n-1].fold {
				key = refFold(key)
			}
			if stack[n-1].keys[key] {
				return nil, false
			}
			stack[n-1].keys[key] = true
			stack[n-1].wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true, fold: len(stack) < 2})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'), json.Delim('}'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
		if len(stack) > wire.MaxDepth {
			return nil, false
		}
	}
	json.Unmarshal(b, &top)
	return top, true
}

// refFold folds s the way encoding/json matches a key to a field: each
// rune to the smallest of its fold set (ASCII: upper case).
func refFold(s string) string {
	var b strings.Builder
	for _, r := range s {
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		b.WriteRune(r)
	}
	return b.String()
}

// FuzzRouteAgreesWithDecoder: for any bytes, the gateway either refuses
// them, or sends them the SDK's way, or routes them on the fast path
// exactly as a strict full decode reads them (method, tool and server; a
// cancellation's request id). And what a strict decode reads without
// doubt (valid UTF-8, an object) is not refused.
func FuzzRouteAgreesWithDecoder(f *testing.F) {
	for _, prefix := range []string{"h__", ""} {
		for _, tc := range dupKeyCases(prefix) {
			if len(tc.msg) <= 4096 { // 100000 levels deep: every mutation of it slows the run
				f.Add([]byte(tc.msg))
			}
		}
	}
	for _, s := range []string{
		// The probe of issue 28, and its variants.
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mem__read_graph","arguments":{"entityNames":["victim"]},"name":"delete_entities"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"safe","arguments":{},"name":"wipe"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"na\u006de":"safe","arguments":{},"name":"wipe"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mem__read_graph","arguments":{"entityNames":["victim"]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"s\u0061fe","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"arguments":{"name":"wipe"},"name":"safe","_meta":{"progressToken":7}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x","reason":"no"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{"name":"wipe"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		way, method, target, err := fastRouteOf(b)
		top, ok := strictDecode(bytes.TrimSpace(b))
		if err != nil {
			if ok && top != nil && utf8.Valid(b) && bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
				t.Fatalf("refused %q (%v), which decodes without doubt", b, err)
			}
			return
		}
		if !ok {
			t.Fatalf("passed %q, which a strict decode refuses", b)
		}
		if way == slowPath {
			return
		}
		var gotMethod string
		if json.Unmarshal(top["method"], &gotMethod) != nil || gotMethod != method {
			t.Fatalf("%q: the fast path routes method %s; a decoder reads %s", b, method, top["method"])
		}
		var params map[string]json.RawMessage
		if json.Unmarshal(top["params"], &params) != nil {
			t.Fatalf("%q: the fast path routes it; a decoder reads no params", b)
		}
		_, hasID := top["id"]
		switch way {
		case fastToolCall:
			var name string
			json.Unmarshal(params["name"], &name)
			if want := fuzzRoutes[name] + "|" + name; !hasID || target != want {
				t.Fatalf("%q: the fast path routes to %s; a decoder reads %s (id %t)", b, target, want, hasID)
			}
		case fastCancelled:
			var got, want any
			json.Unmarshal([]byte(target), &got)
			json.Unmarshal(params["requestId"], &want)
			if hasID || !jsonEqual(got, want) {
				t.Fatalf("%q: the fast path cancels %s; a decoder reads %s", b, target, params["requestId"])
			}
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
