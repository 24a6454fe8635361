package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// This file holds the few JSON operations the gateway's fast path needs:
// find the spans of a JSON-RPC message's top-level fields without decoding
// them, and splice new values in. Values are never re-encoded, so whatever a
// server sends (content blocks, structuredContent, _meta, unknown fields)
// reaches the assistant byte for byte.
//
// The scanner trusts its input to be JSON: it finds where values begin and
// end, and rejects what it cannot delimit, but it does not validate numbers
// or nesting. Whatever it cannot handle goes the slow way, through the SDK,
// which does validate.

var errNotObject = errors.New("not a JSON object")

// span is the half-open byte range [s, e) of a value in a message; the zero
// span means "absent".
type span struct{ s, e int }

func (sp span) ok() bool                     { return sp.e > sp.s }
func (sp span) of(b []byte) []byte           { return b[sp.s:sp.e] }
func (sp span) within(base span) span        { return span{sp.s + base.s, sp.e + base.s} }
func (sp span) is(b []byte, lit string) bool { return sp.ok() && string(b[sp.s:sp.e]) == lit }

// rpcPeek is where a JSON-RPC message's top-level fields are.
type rpcPeek struct {
	id, method, params, result, err span
}

// peekMessage finds the top-level fields of one JSON-RPC message.
func peekMessage(b []byte) (rpcPeek, error) {
	var p rpcPeek
	err := scanObject(b, func(key []byte, v span) bool {
		switch {
		case keyIs(key, "id"):
			p.id = v
		case keyIs(key, "method"):
			p.method = v
		case keyIs(key, "params"):
			p.params = v
		case keyIs(key, "result"):
			p.result = v
		case keyIs(key, "error"):
			p.err = v
		}
		return true
	})
	return p, err
}

// field returns the span (relative to b) of key in the object b, if any.
func field(b []byte, key string) span {
	var found span
	scanObject(b, func(k []byte, v span) bool {
		if keyIs(k, key) {
			found = v
			return false
		}
		return true
	})
	return found
}

// scanObject calls fn with each key (raw, still escaped) and value span of
// the JSON object b, until fn returns false.
func scanObject(b []byte, fn func(key []byte, v span) bool) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return errNotObject
		}
		ke := skipString(b, i)
		if ke < 0 {
			return errNotObject
		}
		key := b[i+1 : ke-1]
		i = skipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return errNotObject
		}
		vs := skipWS(b, i+1)
		ve := skipValue(b, vs)
		if ve < 0 {
			return errNotObject
		}
		if !fn(key, span{vs, ve}) {
			return nil
		}
		i = skipWS(b, ve)
		if i >= len(b) {
			return errNotObject
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return nil
		default:
			return errNotObject
		}
	}
}

// keyIs compares a raw object key with want, unescaping it if needed.
func keyIs(key []byte, want string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key) == want
	}
	var s string
	if err := json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s); err != nil {
		return false
	}
	return s == want
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string that starts at b[i]
// (a '"'), or -1.
func skipString(b []byte, i int) int {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		bs := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			bs++
		}
		i++
		if bs%2 == 0 {
			return i
		}
	}
}

// skipValue returns the index just past the value that starts at b[i], or
// -1 when there is none.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				if i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	case ',', '}', ']', ':':
		return -1
	default:
		s := i
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
			i++
		}
		if i == s {
			return -1
		}
		return i
	}
}

// edit replaces b[s:e] with repl. An empty span with s == e inserts.
type edit struct {
	s, e int
	repl []byte
}

// splice applies edits, which must be sorted and not overlap, and appends a
// newline: the result is one line ready for a stream.
func splice(b []byte, edits ...edit) []byte {
	n := len(b) + 1
	for _, ed := range edits {
		n += len(ed.repl) - (ed.e - ed.s)
	}
	out := make([]byte, 0, n)
	at := 0
	for _, ed := range edits {
		out = append(out, b[at:ed.s]...)
		out = append(out, ed.repl...)
		at = ed.e
	}
	out = append(out, b[at:]...)
	return append(out, '\n')
}

// gwIDPrefix starts every request id and progress token the gateway makes
// for downstream servers. The SDK numbers its own requests, so the two never
// meet.
const gwIDPrefix = "gw-"

// appendGWID appends the JSON string "gw-N".
func appendGWID(b []byte, n uint64) []byte {
	b = append(b, '"')
	b = append(b, gwIDPrefix...)
	b = strconv.AppendUint(b, n, 10)
	return append(b, '"')
}

// parseGWID returns N from the raw JSON string "gw-N".
func parseGWID(raw []byte) (uint64, bool) {
	if len(raw) < len(gwIDPrefix)+3 || raw[0] != '"' || raw[len(raw)-1] != '"' || string(raw[1:1+len(gwIDPrefix)]) != gwIDPrefix {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw[1+len(gwIDPrefix):len(raw)-1]), 10, 64)
	return n, err == nil
}

// rawString returns the value of a JSON string span, unescaping only when
// needed; ok is false for anything but a string.
func rawString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// quoteJSON is s as a JSON string.
func quoteJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// errorLine is a JSON-RPC error response line for the raw id.
func errorLine(id []byte, code int64, msg string) []byte {
	b := make([]byte, 0, 64+len(msg))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if len(id) == 0 {
		id = []byte("null")
	}
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	b = append(b, quoteJSON(msg)...)
	return append(b, "}}\n"...)
}
