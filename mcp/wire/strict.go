package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the one strict pass over a message from an assistant
// (and over what a server sends that a person sees or approves): the
// gateway and the server must read the same message, so a message is
// passed on only when every decoder reads it alike.
//
//   - It is JSON (RFC 8259), one value and white space around it.
//   - No object holds a key twice, at any depth. Keys are compared
//     decoded (KeyText): "na\u006de" and "name" are the same key.
//     Decoders disagree on which of two counts (encoding/json, JS and
//     Python take the last; the gateway's scanner took the first).
//   - In the message itself and the objects right under it (params,
//     result, error) no two keys differ only in case: Go servers built on
//     encoding/json (mcp-go, say) match "Name" and "NAME" to the field
//     "name", so {"name":"safe","NAME":"wipe"} would run wipe. Case is
//     folded as encoding/json folds it (foldKey). Deeper, in a tool's
//     arguments, keys may differ in case: the person sees both.
//   - Every key is valid UTF-8: decoders replace invalid bytes
//     differently, so two keys could be one key to one and two to another.
//   - Objects and arrays nest at most MaxDepth deep.
//
// CheckMessage does this in one pass over the bytes, finding the
// message's top-level fields (a Peek) on the way, so the fast path pays
// for one scan, not two.

// MaxDepth is how deeply objects and arrays may nest in a checked message
// (the message itself is level 1).
const MaxDepth = 128

// A KeyError is a message refused for one of its keys: a key twice in one
// object, or a key that is not valid UTF-8.
type KeyError struct {
	Key     string // decoded
	Path    string // where the object is: "params.arguments", "" for the message itself
	Invalid bool   // the key is not valid UTF-8 (else: it is there twice)
	Case    bool   // it is there twice but for case
}

func (e *KeyError) Error() string {
	where := "the message"
	if e.Path != "" {
		where = e.Path
	}
	if e.Invalid {
		return fmt.Sprintf("key %q in %s is not valid UTF-8", shorten(e.Key), where)
	}
	if e.Case {
		return fmt.Sprintf("duplicate key %q in %s (another key differs from it only in case, which some decoders ignore)", shorten(e.Key), where)
	}
	return fmt.Sprintf("duplicate key %q in %s", shorten(e.Key), where)
}

// foldDepth is the deepest object whose keys are compared without case:
// the message (1) and its params, result or error (2).
const foldDepth = 2

// foldKey is key with case folded as encoding/json folds a field name:
// ASCII upper-cased, any other rune the smallest of its fold set.
func foldKey(key []byte) []byte {
	out := make([]byte, 0, len(key))
	for i := 0; i < len(key); {
		if c := key[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(key[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}

// foldEqual reports whether keys a and b are one under foldKey.
func foldEqual(a, b []byte) bool {
	ascii := true
	for _, c := range a {
		ascii = ascii && c < utf8.RuneSelf
	}
	for _, c := range b {
		ascii = ascii && c < utf8.RuneSelf
	}
	if ascii {
		return len(a) == len(b) && strings.EqualFold(string(a), string(b))
	}
	return bytes.Equal(foldKey(a), foldKey(b))
}

// A DepthError is a message nested deeper than MaxDepth.
type DepthError struct {
	Path string // the object or array that went too deep, shortened
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("objects and arrays nested more than %d deep (at %s)", MaxDepth, e.Path)
}

// A SyntaxError is bytes that are not JSON.
type SyntaxError struct {
	Offset int
	What   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.What)
}

// shorten keeps a key fit for an error message and a log line.
func shorten(s string) string {
	if len(s) <= 64 {
		return s
	}
	return strings.ToValidUTF8(s[:61], "") + "..."
}

// KeyText is a raw object key (as it is between its quotes, still
// escaped) decoded: the one way keys are compared, by CheckMessage,
// Check and KeyIs. ok is false for a key that is not valid UTF-8
// or has a bad escape.
func KeyText(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '\\') < 0 {
		if !utf8.Valid(raw) {
			return "", false
		}
		return string(raw), true
	}
	if !utf8.Valid(raw) {
		return "", false
	}
	var s string
	if err := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s); err != nil {
		return "", false
	}
	return s, true
}

// CheckMessage finds the top-level fields of one JSON-RPC message, as
// PeekMessage does, checking all of it on the way (see above). Its error
// is a *SyntaxError, *KeyError or *DepthError.
func CheckMessage(b []byte) (Peek, error) {
	var c checker
	c.b = b
	c.peek = true
	var kbuf [32][]byte // the keys of the objects being checked, outermost first
	i := SkipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return Peek{}, &SyntaxError{i, "not a JSON object"}
	}
	e := c.value(i, 0, kbuf[:0])
	if e >= 0 {
		if j := SkipWS(b, e); j < len(b) {
			e = c.fail(&SyntaxError{j, "more after the message"})
		}
	}
	if e < 0 {
		return Peek{}, c.error()
	}
	return c.p, nil
}

// Check checks that b is one JSON value, with white space around it, by
// the rules above.
func Check(b []byte) error {
	c := checker{b: b}
	var kbuf [32][]byte // the keys of the objects being checked, outermost first
	e := c.value(0, 0, kbuf[:0])
	if e >= 0 {
		if j := SkipWS(b, e); j < len(b) {
			e = c.fail(&SyntaxError{j, "more after the value"})
		}
	}
	if e < 0 {
		return c.error()
	}
	return nil
}

// RequestID returns the raw id of a refused message when it can be read
// unambiguously: the message's top level delimits, has "id" once, and it
// is a string or a number. Else nil (the error's id is then null).
func RequestID(b []byte) []byte {
	var id Span
	n := 0
	if ScanObject(b, func(k []byte, v Span) bool {
		if KeyIs(k, "id") {
			id = v
			n++
		}
		return true
	}) != nil || n != 1 {
		return nil
	}
	raw := id.Of(b)
	c := checker{b: raw}
	if e := c.value(0, 0, nil); e != len(raw) || (raw[0] != '"' && raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return nil
	}
	return raw
}

// checker is one strict pass. Its value methods return the index just
// past what they checked, or -1 after fail.
type checker struct {
	b    []byte
	peek bool // record the top level's fields in p
	p    Peek
	err  error
	path []string // the failing value's place, innermost first, added while unwinding
}

func (c *checker) fail(err error) int {
	c.err = err
	return -1
}

// error is c.err with its path filled in.
func (c *checker) error() error {
	return withPath(c.err, c.path)
}

func withPath(err error, elems []string) error {
	if len(elems) == 0 {
		return err
	}
	slices.Reverse(elems)
	path := strings.Join(elems, ".")
	path = strings.ReplaceAll(path, ".[", "[")
	switch e := err.(type) {
	case *KeyError:
		e.Path = path
	case *DepthError:
		if len(path) > 120 {
			path = path[:117] + "..."
		}
		e.Path = path
	}
	return err
}

// unwind notes, while an error returns through a container, the key or
// index it was found under.
func (c *checker) unwind(elem string) int {
	switch c.err.(type) {
	case *KeyError, *DepthError:
		c.path = append(c.path, shorten(elem))
	}
	return -1
}

// value checks the value at b[i]; the keys of the objects around it are
// keys, and its own objects' keys go after them.
func (c *checker) value(i, depth int, keys [][]byte) int {
	b := c.b
	i = SkipWS(b, i)
	if i >= len(b) {
		return c.fail(&SyntaxError{i, "a value is missing"})
	}
	switch b[i] {
	case '{':
		return c.object(i, depth+1, keys)
	case '[':
		return c.array(i, depth+1, keys)
	case '"':
		e, _, _ := c.str(i)
		return e
	case 't':
		return c.literal(i, "true")
	case 'f':
		return c.literal(i, "false")
	case 'n':
		return c.literal(i, "null")
	default:
		return c.number(i)
	}
}

func (c *checker) literal(i int, lit string) int {
	if !bytes.HasPrefix(c.b[i:], []byte(lit)) {
		return c.fail(&SyntaxError{i, "not a value"})
	}
	return i + len(lit)
}

func (c *checker) number(i int) int {
	b := c.b
	s := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return c.fail(&SyntaxError{s, "not a value"})
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return c.fail(&SyntaxError{i, "a number without digits after its point"})
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return c.fail(&SyntaxError{i, "a number without digits in its exponent"})
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// str checks the string that starts at b[i] (a '"') and returns the
// index past it, and whether it has escapes and bytes over 0x7f.
func (c *checker) str(i int) (end int, esc, high bool) {
	b := c.b
	s := i
	for i++; i < len(b); i++ {
		if plain[b[i]] {
			continue
		}
		switch ch := b[i]; {
		case ch == '"':
			return i + 1, esc, high
		case ch == '\\':
			esc = true
			i++
			if i >= len(b) {
				break
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !isHex(b[i+1]) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) {
					return c.fail(&SyntaxError{i - 1, `a bad \u escape in a string`}), esc, high
				}
				i += 4
			default:
				return c.fail(&SyntaxError{i - 1, "a bad escape in a string"}), esc, high
			}
		case ch < 0x20:
			return c.fail(&SyntaxError{i, "a control character in a string"}), esc, high
		case ch >= utf8.RuneSelf:
			high = true
		}
	}
	return c.fail(&SyntaxError{s, "a string without its end"}), esc, high
}

// plain are the bytes a string holds as they are: not '"', '\\', a
// control character or a byte over 0x7f.
var plain = func() (t [256]bool) {
	for ch := 0x20; ch < 0x80; ch++ {
		t[ch] = ch != '"' && ch != '\\'
	}
	return t
}()

func isHex(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
}

// mapAfter is how many keys an object may have before its duplicates are
// looked up in a map rather than a list.
const mapAfter = 16

func (c *checker) object(i, depth int, keys [][]byte) int {
	if depth > MaxDepth {
		return c.fail(&DepthError{})
	}
	b := c.b
	top := c.peek && depth == 1
	base := len(keys)
	var seen map[string]struct{}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return c.fail(&SyntaxError{i, "an object key is missing"})
		}
		ke, esc, high := c.str(i)
		if ke < 0 {
			return -1
		}
		key := b[i+1 : ke-1] // decoded: the same bytes without escapes
		if esc || high {
			k, ok := KeyText(key)
			if !ok {
				return c.fail(&KeyError{Key: strings.ToValidUTF8(string(key), "\uFFFD"), Invalid: true})
			}
			key = []byte(k)
		}
		fold := depth <= foldDepth
		// Up to mapAfter keys are compared one by one; past that, in a
		// map of their folded forms. Either way clash says how they met.
		if seen != nil {
			mk := mapKey(key, fold)
			if _, dup := seen[string(mk)]; dup {
				_, caseOnly := clash(keys[base:], key, fold)
				return c.fail(&KeyError{Key: string(key), Case: caseOnly})
			}
			seen[string(mk)] = struct{}{}
			keys = append(keys, key)
		} else {
			if dup, caseOnly := clash(keys[base:], key, fold); dup {
				return c.fail(&KeyError{Key: string(key), Case: caseOnly})
			}
			keys = append(keys, key)
			if len(keys)-base > mapAfter {
				seen = make(map[string]struct{}, 2*mapAfter)
				for _, k := range keys[base:] {
					seen[string(mapKey(k, fold))] = struct{}{}
				}
			}
		}
		i = SkipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return c.fail(&SyntaxError{i, "a colon is missing after an object key"})
		}
		vs := SkipWS(b, i+1)
		ve := c.value(vs, depth, keys)
		if ve < 0 {
			return c.unwind(string(key))
		}
		if top {
			c.record(key, Span{vs, ve})
		}
		i = SkipWS(b, ve)
		if i >= len(b) {
			return c.fail(&SyntaxError{i, "an object without its end"})
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
		case '}':
			return i + 1
		default:
			return c.fail(&SyntaxError{i, "a comma or } is missing"})
		}
	}
}

// clash reports whether keys (an object's keys so far, no two of them one
// key) holds key (dup), and whether only as another case of it (caseOnly:
// one under foldKey, when fold).
func clash(keys [][]byte, key []byte, fold bool) (dup, caseOnly bool) {
	for _, k := range keys {
		if bytes.Equal(k, key) {
			return true, false
		}
		if fold && foldEqual(k, key) {
			return true, true
		}
	}
	return false, false
}

// mapKey is key as the map of an object's keys holds it: folded when fold.
func mapKey(key []byte, fold bool) []byte {
	if fold {
		return foldKey(key)
	}
	return key
}

// record notes a top-level field of the message.
func (c *checker) record(key []byte, v Span) {
	switch string(key) {
	case "id":
		c.p.ID = v
	case "method":
		c.p.Method = v
	case "params":
		c.p.Params = v
	case "result":
		c.p.Result = v
	case "error":
		c.p.Err = v
	}
}

func (c *checker) array(i, depth int, keys [][]byte) int {
	if depth > MaxDepth {
		return c.fail(&DepthError{})
	}
	b := c.b
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for n := 0; ; n++ {
		e := c.value(i, depth, keys)
		if e < 0 {
			return c.unwind(fmt.Sprintf("[%d]", n))
		}
		i = SkipWS(b, e)
		if i >= len(b) {
			return c.fail(&SyntaxError{i, "an array without its end"})
		}
		switch b[i] {
		case ',':
			i = SkipWS(b, i+1)
		case ']':
			return i + 1
		default:
			return c.fail(&SyntaxError{i, "a comma or ] is missing"})
		}
	}
}
