package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestCheckMessageRefuses: every message a decoder could read otherwise
// than the gateway is refused, with an error naming the key and where it
// is; the ones every decoder reads alike pass, with their fields found.
func TestCheckMessageRefuses(t *testing.T) {
	t.Parallel()
	deep := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}}`
	}
	for _, tc := range []struct {
		name, msg, want string
	}{
		{"name twice", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mem__read_graph","arguments":{"entityNames":["victim"]},"name":"delete_entities"}}`, `duplicate key "name" in params`},
		{"name escaped", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"na\u006de":"safe","arguments":{},"name":"wipe"}}`, `duplicate key "name" in params`},
		{"both escaped differently", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"\u006eame":"safe","na\u006De":"wipe"}}`, `duplicate key "name" in params`},
		{"escaped slash", `{"a\/b":1,"a/b":2}`, `duplicate key "a/b" in the message`},
		{"method twice", `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}`, `duplicate key "method" in the message`},
		{"id twice", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, `duplicate key "id" in the message`},
		{"params twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"},"params":{"name":"b"}}`, `duplicate key "params" in the message`},
		{"in arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm","arguments":{"path":"notes/old.txt","path":"~"}}}`, `duplicate key "path" in params.arguments`},
		{"deep in arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm","arguments":{"files":[{"p":1},{"p":2,"p":3}]}}}`, `duplicate key "p" in params.arguments.files[1]`},
		{"in _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1,"progressToken":2}}}`, `duplicate key "progressToken" in params._meta`},
		{"__proto__", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"__proto__":{"admin":true},"__proto__":{}}}}`, `duplicate key "__proto__" in params.arguments`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"requestId":2}}`, `duplicate key "requestId" in params`},
		{"response", `{"jsonrpc":"2.0","id":7,"result":{"action":"accept","content":{"to":"a","to":"b"}}}`, `duplicate key "to" in result.content`},
		{"name in another case", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"safe","arguments":{},"NAME":"wipe"}}`, `duplicate key "NAME" in params (another key differs from it only in case`},
		{"method in another case", `{"jsonrpc":"2.0","id":1,"method":"tools/list","Method":"tools/call"}`, `duplicate key "Method" in the message (another`},
		{"long s", "{\"params\":{\"arguments\":{},\"argument\u017f\":{}}}", "duplicate key \"argument\u017f\" in params (another"},
		{"case in a big params", `{"params":{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"K3":18}}`, `duplicate key "K3" in params (another`},
		{"surrogates", `{"\ud800":1,"\udbff":2}`, "duplicate key \"\uFFFD\" in the message"},
		{"key not UTF-8", "{\"na\xffme\":1}", `is not valid UTF-8`},
		{"too deep", deep(MaxDepth), `nested more than 128 deep (at params.arguments.a[0][0]`},
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":tru}}}`, `invalid JSON`},
		{"trailing", `{"id":1} {"id":2}`, `more after the message`},
		{"leading zero", `{"id":01}`, `invalid JSON`},
		{"control character", "{\"id\":\"a\x01\"}", `a control character`},
		{"bad escape", `{"id":"\x"}`, `a bad escape`},
		{"array", `[{"id":1}]`, `not a JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CheckMessage([]byte(tc.msg))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("CheckMessage(%s) = %v; want an error with %q", tc.msg, err, tc.want)
			}
			var (
				ke *KeyError
				de *DepthError
				se *SyntaxError
			)
			if !errors.As(err, &ke) && !errors.As(err, &de) && !errors.As(err, &se) {
				t.Errorf("error %T is none of the three kinds", err)
			}
		})
	}

	for _, msg := range []string{
		deep(MaxDepth - 3), // the message, params and arguments are three levels
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":{"name":1},"b":{"name":2},"name":3}}}`,
		` {"id":-1.5e+3,"a":[true,false,null,"\u00e9\n"],"b":{}} ` + "\n",
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18}`,
		"{\"caf\u00e9\":1,\"cafe\":2}",
		// In the arguments, keys may differ in case: the person sees both.
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"path":"a","PATH":"b"}}}`,
	} {
		p, err := CheckMessage([]byte(msg))
		if err != nil {
			t.Errorf("CheckMessage(%.80s) = %v; want nil", msg, err)
			continue
		}
		if want, _ := PeekMessage([]byte(msg)); p != want {
			t.Errorf("CheckMessage(%.80s) found %+v; PeekMessage %+v", msg, p, want)
		}
		if err := Check([]byte(msg)); err != nil || !json.Valid([]byte(msg)) {
			t.Errorf("Check(%.80s) = %v; json.Valid %v", msg, err, json.Valid([]byte(msg)))
		}
	}
	// A big object: the duplicate is found in the map.
	var sb strings.Builder
	sb.WriteString(`{`)
	for i := range 1000 {
		sb.WriteString(`"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `":0,`)
	}
	sb.WriteString(`"end":1}`)
	if _, err := CheckMessage([]byte(sb.String())); err == nil || !strings.Contains(err.Error(), "duplicate key") {
		t.Errorf("an object of 1000 keys with repeats: %v", err)
	}
}

// TestRequestID: a refused message's id is answered only when it can be
// read one way.
func TestRequestID(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		`{"jsonrpc":"2.0","id":3,"params":{"name":"a","name":"b"}}`: `3`,
		`{"id":"x\"y","params":{"a":1,"a":2}}`:                      `"x\"y"`,
		`{"id":1,"id":2}`:                                           ``,
		`{"id":1,"i\u0064":2}`:                                      ``,
		`{"id":{"a":1}}`:                                            ``,
		`{"id":null}`:                                               ``,
		`{"method":"x"}`:                                            ``,
		`{"id":1,"params":`:                                         ``,
	} {
		if got := string(RequestID([]byte(msg))); got != want {
			t.Errorf("RequestID(%s) = %s; want %s", msg, got, want)
		}
	}
}

// TestKeyIsDecodes: KeyIs compares keys decoded, RawString values.
func TestKeyIsDecodes(t *testing.T) {
	t.Parallel()
	if !KeyIs([]byte(`na\u006de`), "name") || KeyIs([]byte("na\\u006d\xffe"), "nam\xffe") {
		t.Error("KeyIs does not decode keys, or takes an escaped key that is not UTF-8")
	}
	// RawString reads a value as encoding/json does: the fast path routes
	// on the name a server decodes (FuzzRouteAgreesWithDecoder found it).
	if s, ok := RawString([]byte("\"\xe9\"")); !ok || s != "\uFFFD" {
		t.Errorf("RawString of invalid UTF-8 = %q, %t", s, ok)
	}
}

var benchLine = []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"fs__read_text_file","arguments":{"path":"/home/user/notes/2026/meeting-notes.md","head":40},"_meta":{"progressToken":"tok-12345"}}}`)

// BenchmarkCheckMessage is the strict pass the fast path makes over a
// typical tools/call; BenchmarkPeekMessage the scan it made before.
func BenchmarkCheckMessage(b *testing.B) {
	b.SetBytes(int64(len(benchLine)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CheckMessage(benchLine); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPeekMessage(b *testing.B) {
	b.SetBytes(int64(len(benchLine)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PeekMessage(benchLine); err != nil {
			b.Fatal(err)
		}
	}
}
