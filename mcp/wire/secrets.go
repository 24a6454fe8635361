package wire

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// minSecretLen is the shortest value redacted; shorter ones would blot out
// ordinary text.
const minSecretLen = 3

// redacted replaces a secret.
const redacted = "[redacted]"

// Secrets holds one session's secrets. It is never changed once
// published (Session.secrets is swapped whole).
type Secrets struct {
	plain []string // as typed
	bytes [][]byte // the same, for matching decoded JSON strings
}

// With returns the secrets of r (nil: none) and v; r itself when v is
// shorter than minSecretLen or among them already.
func (r *Secrets) With(v string) *Secrets {
	if len(v) < minSecretLen {
		return r
	}
	n := &Secrets{}
	if r != nil {
		if slices.Contains(r.plain, v) {
			return r
		}
		n.plain, n.bytes = slices.Clone(r.plain), slices.Clone(r.bytes)
	}
	n.plain = append(n.plain, v)
	n.bytes = append(n.bytes, []byte(v))
	return n
}

// RedactText replaces the secrets as typed, then in the JSON strings of
// the line if it has escapes.
func (r *Secrets) RedactText(line string) string {
	for _, sec := range r.plain {
		if strings.Contains(line, sec) {
			line = strings.ReplaceAll(line, sec, redacted)
		}
	}
	if strings.IndexByte(line, '\\') < 0 {
		return line
	}
	z := scrubber{r: r, b: []byte(line)}
	z.flat()
	if len(z.edits) == 0 {
		return line
	}
	return string(z.apply())
}

// RedactJSON redacts the JSON text b, reporting whether anything changed.
// Text that does not parse as JSON is searched string by string.
func (r *Secrets) RedactJSON(b []byte) ([]byte, bool) {
	z := scrubber{r: r, b: b}
	i := SkipWS(b, 0)
	if e := z.value(i); e < 0 || SkipWS(b, e) != len(b) {
		z.edits = z.edits[:0]
		z.flat()
	}
	if len(z.edits) == 0 {
		return b, false
	}
	return z.apply(), true
}

// maxScrubDepth is the deepest nesting the scrubber follows (as deep as
// encoding/json goes); deeper text is searched string by string.
const maxScrubDepth = 10000

// scrubber finds the string literals of one JSON text that hold a secret.
type scrubber struct {
	r     *Secrets
	b     []byte
	edits []Edit // literals to replace; in any order
	buf   []byte // scratch for decoding
	depth int    // objects and arrays open
}

// piece is a text block's string: its literal's span and decoded content.
type piece struct {
	lit  Span
	text []byte
}

// value scans the value at b[i] and returns the index past it, or -1 when
// b is not JSON there.
func (z *scrubber) value(i int) int {
	if i >= len(z.b) {
		return -1
	}
	switch z.b[i] {
	case '"':
		return z.str(i)
	case '{':
		e, p := z.object(i)
		if p != nil {
			z.flush([]piece{*p})
		}
		return e
	case '[':
		return z.array(i)
	}
	return SkipValue(z.b, i)
}

// str checks the string literal at b[i] and returns the index past it.
func (z *scrubber) str(i int) int {
	e := skipString(z.b, i)
	if e < 0 {
		return -1
	}
	text, _ := z.decode(i, e, true)
	if ranges := z.r.find(text); ranges != nil {
		z.edits = append(z.edits, Edit{i, e, QuoteJSON(string(replaceRanges(text, ranges)))})
	}
	return e
}

// object scans the object at b[i]. Its text piece — a string member
// "text", else the piece of an object member "content" — is returned
// unchecked, for the caller to check alone or joined with its neighbours.
func (z *scrubber) object(i int) (int, *piece) {
	if z.depth++; z.depth > maxScrubDepth {
		return -1, nil
	}
	defer func() { z.depth-- }()
	var p *piece
	keep := func(q *piece) {
		if p != nil {
			z.flush([]piece{*p}) // a duplicate key: check the earlier one alone
		}
		p = q
	}
	i = SkipWS(z.b, i+1)
	if i < len(z.b) && z.b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(z.b) || z.b[i] != '"' {
			return -1, nil
		}
		ks := i
		if i = z.str(i); i < 0 {
			return -1, nil
		}
		key := z.b[ks+1 : i-1]
		i = SkipWS(z.b, i)
		if i >= len(z.b) || z.b[i] != ':' {
			return -1, nil
		}
		vs := SkipWS(z.b, i+1)
		switch {
		case vs < len(z.b) && z.b[vs] == '"' && KeyIs(key, "text"):
			if i = skipString(z.b, vs); i < 0 {
				return -1, nil
			}
			text, scratch := z.decode(vs, i, true)
			if scratch {
				text = bytes.Clone(text)
			}
			keep(&piece{Span{vs, i}, text})
		case vs < len(z.b) && z.b[vs] == '{' && KeyIs(key, "content"):
			var q *piece
			if i, q = z.object(vs); i < 0 {
				return -1, nil
			}
			if q != nil {
				keep(q)
			}
		default:
			if i = z.value(vs); i < 0 {
				return -1, nil
			}
		}
		i = SkipWS(z.b, i)
		if i >= len(z.b) {
			return -1, nil
		}
		switch z.b[i] {
		case ',':
			i = SkipWS(z.b, i+1)
		case '}':
			return i + 1, p
		default:
			return -1, nil
		}
	}
}

// array scans the array at b[i]; the text pieces of adjacent objects are
// checked joined.
func (z *scrubber) array(i int) int {
	if z.depth++; z.depth > maxScrubDepth {
		return -1
	}
	defer func() { z.depth-- }()
	var run []piece
	i = SkipWS(z.b, i+1)
	if i < len(z.b) && z.b[i] == ']' {
		return i + 1
	}
	for {
		if i < len(z.b) && z.b[i] == '{' {
			var p *piece
			if i, p = z.object(i); i < 0 {
				return -1
			}
			if p != nil {
				run = append(run, *p)
			} else {
				z.flush(run)
				run = run[:0]
			}
		} else {
			z.flush(run)
			run = run[:0]
			if i = z.value(i); i < 0 {
				return -1
			}
		}
		i = SkipWS(z.b, i)
		if i >= len(z.b) {
			return -1
		}
		switch z.b[i] {
		case ',':
			i = SkipWS(z.b, i+1)
		case ']':
			z.flush(run)
			return i + 1
		default:
			return -1
		}
	}
}

// flush checks adjacent text pieces joined, and replaces in each its part
// of every secret found.
func (z *scrubber) flush(run []piece) {
	if len(run) == 0 {
		return
	}
	joined := run[0].text
	if len(run) > 1 {
		joined = nil
		for _, p := range run {
			joined = append(joined, p.text...)
		}
	}
	ranges := z.r.find(joined)
	off := 0
	for _, p := range run {
		var mine []Span
		for _, rg := range ranges {
			s, e := max(rg.Start, off)-off, min(rg.End, off+len(p.text))-off
			if s < e {
				mine = append(mine, Span{s, e})
			}
		}
		if mine != nil {
			z.edits = append(z.edits, Edit{p.lit.Start, p.lit.End, QuoteJSON(string(replaceRanges(p.text, mine)))})
		}
		off += len(p.text)
	}
}

// flat checks every string literal in b, whatever surrounds it: for text
// that is not JSON (or not valid JSON). An unterminated string runs to the
// end.
func (z *scrubber) flat() {
	for i := 0; i < len(z.b); {
		j := bytes.IndexByte(z.b[i:], '"')
		if j < 0 {
			return
		}
		s := i + j
		e := skipString(z.b, s)
		closed := e >= 0
		if !closed {
			e = len(z.b)
		}
		text, _ := z.decode(s, e, closed)
		if ranges := z.r.find(text); ranges != nil {
			z.edits = append(z.edits, Edit{s, e, QuoteJSON(string(replaceRanges(text, ranges)))})
		}
		i = e
	}
}

// apply returns b with the edits made.
func (z *scrubber) apply() []byte {
	slices.SortFunc(z.edits, func(a, b Edit) int { return a.Start - b.Start })
	n := len(z.b)
	for _, ed := range z.edits {
		n += len(ed.Repl) - (ed.End - ed.Start)
	}
	out := make([]byte, 0, n)
	at := 0
	for _, ed := range z.edits {
		out = append(out, z.b[at:ed.Start]...)
		out = append(out, ed.Repl...)
		at = ed.End
	}
	return append(out, z.b[at:]...)
}

// decode returns the content of the string literal b[s:e] (quotes
// included; without the closing one when closed is false), unescaped
// leniently: an unknown escape stands for the character after the
// backslash, a lone surrogate for U+FFFD. scratch reports that the result
// is in z.buf, valid until the next decode; else it is a part of b.
func (z *scrubber) decode(s, e int, closed bool) (text []byte, scratch bool) {
	lit := z.b[s+1 : e]
	if closed {
		lit = lit[:len(lit)-1]
	}
	if bytes.IndexByte(lit, '\\') < 0 {
		return lit, false
	}
	out := z.buf[:0]
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if c != '\\' || i+1 == len(lit) {
			out = append(out, c)
			continue
		}
		i++
		switch c = lit[i]; c {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r1, ok := hex4(lit[i+1:])
			if !ok {
				out = append(out, 'u')
				continue
			}
			i += 4
			if utf16.IsSurrogate(r1) {
				if i+6 < len(lit) && lit[i+1] == '\\' && lit[i+2] == 'u' {
					if r2, ok := hex4(lit[i+3:]); ok {
						if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
							out = utf8.AppendRune(out, r)
							i += 6
							continue
						}
					}
				}
				r1 = utf8.RuneError
			}
			out = utf8.AppendRune(out, r1)
		default: // \" \\ \/ and anything unknown
			out = append(out, c)
		}
	}
	z.buf = out
	return out, true
}

// hex4 reads four hex digits, either case.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// find returns where the secrets occur in text, sorted and merged; nil
// when nowhere.
func (r *Secrets) find(text []byte) []Span {
	var out []Span
	for _, sec := range r.bytes {
		for at := 0; ; {
			j := bytes.Index(text[at:], sec)
			if j < 0 {
				break
			}
			out = append(out, Span{at + j, at + j + len(sec)})
			at += j + 1
		}
	}
	if len(out) < 2 {
		return out
	}
	slices.SortFunc(out, func(a, b Span) int { return a.Start - b.Start })
	merged := out[:1]
	for _, sp := range out[1:] {
		if last := &merged[len(merged)-1]; sp.Start <= last.End {
			last.End = max(last.End, sp.End)
		} else {
			merged = append(merged, sp)
		}
	}
	return merged
}

// replaceRanges returns text with each range (sorted, disjoint) replaced
// by "[redacted]".
func replaceRanges(text []byte, ranges []Span) []byte {
	out := make([]byte, 0, len(text))
	at := 0
	for _, rg := range ranges {
		out = append(out, text[at:rg.Start]...)
		out = append(out, redacted...)
		at = rg.End
	}
	return append(out, text[at:]...)
}
