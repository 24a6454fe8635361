package mcp

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcptray/mcptray/mcp/wire"
)

// SEP-2243: a tool's input schema may bind a property to a header
// ("x-mcp-header": "Region"), and a 2026-07-28 client then mirrors that
// argument in Mcp-Param-Region, so that a proxy can route on it. The
// gateway checks the mirror against the body, as it does Mcp-Method and
// Mcp-Name (checkParamHeaders), from the definitions it listed (the
// route's params). The SDK's own check is kept off: the views register
// their tools without the annotations (exposeTool), since go-sdk v1.8's
// server reads an empty header as a missing one, and its client sends an
// empty string as an empty header (a go-sdk client's call with an empty
// argument would be refused).

// paramBinding is one header a tool's listed schema binds: the property's
// path in the arguments, and the header's full name.
type paramBinding struct {
	path   []string
	header string // "Mcp-Param-" + the annotation
}

// paramBindings are the headers the tool definition raw (as listed)
// binds; nil when none.
func paramBindings(raw json.RawMessage) []paramBinding {
	if raw == nil || !strings.Contains(string(raw), "x-mcp-header") {
		return nil
	}
	type prop struct {
		Header     json.RawMessage  `json:"x-mcp-header"`
		Properties map[string]*prop `json:"properties"`
	}
	var def struct {
		InputSchema prop `json:"inputSchema"`
	}
	if json.Unmarshal(raw, &def) != nil {
		return nil
	}
	var out []paramBinding
	var walk func(props map[string]*prop, prefix []string)
	walk = func(props map[string]*prop, prefix []string) {
		for name, p := range props {
			if p == nil {
				continue
			}
			path := append(append([]string{}, prefix...), name)
			var h string
			if json.Unmarshal(p.Header, &h) == nil && h != "" {
				out = append(out, paramBinding{path, "Mcp-Param-" + h})
			}
			walk(p.Properties, path)
		}
	}
	walk(def.InputSchema.Properties, nil)
	return out
}

// checkParamHeaders says why the Mcp-Param-* headers of h do not mirror
// the arguments of the tools/call params (its raw bytes) as bs bind them;
// "" when they do. An argument that is absent or null has no header; a
// string, boolean or safe integer has one, equal once decoded (an empty
// string's is empty); any other value cannot be mirrored, and has none.
func checkParamHeaders(h http.Header, params []byte, bs []paramBinding) string {
	args := wire.Field(params, "arguments").Of(params)
	for _, b := range bs {
		val, found := argumentAt(args, b.path)
		hv, present, bad := headerValue(h, b.header)
		if bad != "" {
			return bad
		}
		want, mirrored := mirror(val)
		switch {
		case !found || !mirrored:
			if present {
				return "header mismatch: unexpected " + b.header + " header for parameter " + strconv.Quote(strings.Join(b.path, ".")) + ", which is absent, null or not a string, boolean or integer"
			}
		case !present:
			return "header mismatch: missing " + b.header + " header for parameter " + strconv.Quote(strings.Join(b.path, "."))
		case hv != want && !sameInteger(hv, val):
			return "header mismatch: " + b.header + " header value does not match the body's " + strconv.Quote(strings.Join(b.path, "."))
		}
	}
	return ""
}

// argumentAt is the raw value at path in the arguments object args.
func argumentAt(args []byte, path []string) ([]byte, bool) {
	cur := args
	for _, k := range path {
		if len(cur) == 0 || cur[0] != '{' {
			return nil, false
		}
		sp := wire.Field(cur, k)
		if !sp.OK() {
			return nil, false
		}
		cur = sp.Of(cur)
	}
	return cur, true
}

// mirror is the header text of a raw argument: a string's value, a
// boolean's, a safe integer's decimal; ok is false for null and for what
// has no header (objects, arrays, fractions, big numbers).
func mirror(raw []byte) (string, bool) {
	switch {
	case len(raw) == 0, string(raw) == "null":
		return "", false
	case raw[0] == '"':
		return wire.RawString(raw)
	case string(raw) == "true", string(raw) == "false":
		return string(raw), true
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53-1 {
			return "", false
		}
		return strconv.FormatInt(int64(f), 10), true
	}
	return "", false
}

// sameInteger reports whether the header text hv names the integer the
// raw argument is (1e2 and 100.0 are 100).
func sameInteger(hv string, raw []byte) bool {
	if len(raw) == 0 || raw[0] == '"' {
		return false
	}
	a, err1 := strconv.ParseFloat(hv, 64)
	b, err2 := strconv.ParseFloat(string(raw), 64)
	return err1 == nil && err2 == nil && a == b && a == math.Trunc(a)
}

// checkParams is checkParamHeaders for a POST of the 2026-07-28 wire
// that calls a tool of v whose listed definition binds headers.
func (v *view) checkParams(r *http.Request, t []byte, p *wire.Peek) string {
	if !newWire(r.Header.Get("Mcp-Protocol-Version")) || !p.Method.Is(t, `"tools/call"`) || !p.Params.OK() {
		return ""
	}
	name, _, ok := callName(t, p)
	if !ok {
		return ""
	}
	rt := v.routes.Load().tools[name]
	if rt == nil || rt.params == nil {
		return ""
	}
	return checkParamHeaders(r.Header, p.Params.Of(t), rt.params)
}
