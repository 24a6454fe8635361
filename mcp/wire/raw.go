package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
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

var ErrNotObject = errors.New("not a JSON object")

// Span is the half-open byte range [s, e) of a value in a message; the zero
// span means "absent".
type Span struct{ Start, End int }

// OK reports whether the span is present; Of is its bytes in b, Within
// the span shifted by base (a span relative to base's value), Is whether
// it is present and its bytes are lit.
func (sp Span) OK() bool                     { return sp.End > sp.Start }
func (sp Span) Of(b []byte) []byte           { return b[sp.Start:sp.End] }
func (sp Span) Within(base Span) Span        { return Span{sp.Start + base.Start, sp.End + base.Start} }
func (sp Span) Is(b []byte, lit string) bool { return sp.OK() && string(b[sp.Start:sp.End]) == lit }

// rpcPeek is where a JSON-RPC message's top-level fields are.
type Peek struct {
	ID, Method, Params, Result, Err Span
}

// PeekMessage finds the top-level fields of one JSON-RPC message.
func PeekMessage(b []byte) (Peek, error) {
	var p Peek
	err := ScanObject(b, func(key []byte, v Span) bool {
		switch {
		case KeyIs(key, "id"):
			p.ID = v
		case KeyIs(key, "method"):
			p.Method = v
		case KeyIs(key, "params"):
			p.Params = v
		case KeyIs(key, "result"):
			p.Result = v
		case KeyIs(key, "error"):
			p.Err = v
		}
		return true
	})
	return p, err
}

// Field returns the span (relative to b) of key in the object b, if any.
func Field(b []byte, key string) Span {
	var found Span
	ScanObject(b, func(k []byte, v Span) bool {
		if KeyIs(k, key) {
			found = v
			return false
		}
		return true
	})
	return found
}

// ScanObject calls fn with each key (raw, still escaped) and value span of
// the JSON object b, until fn returns false.
func ScanObject(b []byte, fn func(key []byte, v Span) bool) error {
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrNotObject
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return ErrNotObject
		}
		ke := skipString(b, i)
		if ke < 0 {
			return ErrNotObject
		}
		key := b[i+1 : ke-1]
		i = SkipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return ErrNotObject
		}
		vs := SkipWS(b, i+1)
		ve := SkipValue(b, vs)
		if ve < 0 {
			return ErrNotObject
		}
		if !fn(key, Span{vs, ve}) {
			return nil
		}
		i = SkipWS(b, ve)
		if i >= len(b) {
			return ErrNotObject
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
		case '}':
			return nil
		default:
			return ErrNotObject
		}
	}
}

// KeyIs compares a raw object key with want, decoding it (KeyText) if
// needed.
func KeyIs(key []byte, want string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key) == want
	}
	s, ok := KeyText(key)
	return ok && s == want
}

// SkipWS returns the index of the first byte at or after i in b that is
// not JSON white space.
func SkipWS(b []byte, i int) int {
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

// SkipValue returns the index just past the value that starts at b[i], or
// -1 when there is none.
func SkipValue(b []byte, i int) int {
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

// Edit replaces b[s:e] with repl. An empty span with s == e inserts.
type Edit struct {
	Start, End int
	Repl       []byte
}

// Splice applies edits, which must be sorted and not overlap, and appends a
// newline: the result is one line ready for a stream.
func Splice(b []byte, edits ...Edit) []byte {
	n := len(b) + 1
	for _, ed := range edits {
		n += len(ed.Repl) - (ed.End - ed.Start)
	}
	out := make([]byte, 0, n)
	at := 0
	for _, ed := range edits {
		out = append(out, b[at:ed.Start]...)
		out = append(out, ed.Repl...)
		at = ed.End
	}
	out = append(out, b[at:]...)
	return append(out, '\n')
}

// GWIDPrefix starts every request id and progress token the gateway makes
// for downstream servers. The SDK numbers its own requests, so the two never
// meet.
const GWIDPrefix = "gw-"

// AppendGWID appends the JSON string "gw-N".
func AppendGWID(b []byte, n uint64) []byte {
	b = append(b, '"')
	b = append(b, GWIDPrefix...)
	b = strconv.AppendUint(b, n, 10)
	return append(b, '"')
}

// ParseGWID returns N from the raw JSON string "gw-N".
func ParseGWID(raw []byte) (uint64, bool) {
	if len(raw) < len(GWIDPrefix)+3 || raw[0] != '"' || raw[len(raw)-1] != '"' || string(raw[1:1+len(GWIDPrefix)]) != GWIDPrefix {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw[1+len(GWIDPrefix):len(raw)-1]), 10, 64)
	return n, err == nil
}

// RawString returns the value of a JSON string span, unescaping only when
// needed, as encoding/json reads it (invalid UTF-8 becomes U+FFFD); ok is
// false for anything but a string.
func RawString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v[1:len(v)-1]) {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// QuoteJSON is s as a JSON string.
func QuoteJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// ErrorLine is a JSON-RPC error response line for the raw id.
func ErrorLine(id []byte, code int64, msg string) []byte {
	b := make([]byte, 0, 64+len(msg))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if len(id) == 0 {
		id = []byte("null")
	}
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	b = append(b, QuoteJSON(msg)...)
	return append(b, "}}\n"...)
}
