package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// node is one JSON value of the (comment-free, already validated) text, with
// the byte offsets needed to report positions and to edit the original bytes
// in place.
type node struct {
	kind    kind
	start   int      // offset of the value's first byte
	end     int      // offset just past the value's last byte
	members []member // objects, in file order, duplicates kept
	elems   []*node  // arrays
}

type member struct {
	key      string // decoded
	keyStart int    // offset of the key's opening quote
	value    *node
}

type kind int

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// String is the kind's name as a person reads it in "got number".
func (k kind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// get returns the value of the last member named key (encoding/json's rule
// for duplicate keys), or nil.
func (n *node) get(key string) *node {
	var v *node
	for _, m := range n.members {
		if m.key == key {
			v = m.value
		}
	}
	return v
}

// raw is the value's text.
func (n *node) raw(text []byte) []byte { return text[n.start:n.end] }

// str decodes a string value.
func (n *node) str(text []byte) string {
	if raw := text[n.start+1 : n.end-1]; bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw) // nothing to decode (syntaxCheck refused control bytes)
	}
	var s string
	if err := json.Unmarshal(n.raw(text), &s); err != nil {
		return ""
	}
	return s
}

// boolean decodes a boolean value.
func (n *node) boolean(text []byte) bool { return text[n.start] == 't' }

var errBadJSON = errors.New("malformed JSON")

// parseTree builds the tree of text, which must already be valid JSON with
// comments blanked. It returns errBadJSON rather than panicking if it is not.
// parseRoot strips data (mcp.json, JSONC allowed) of comments and parses
// it, returning the stripped text and its top-level object, or the
// *SyntaxError a person sees: an unclosed comment, an empty file, a syntax
// error, or a top level that is not an object.
func parseRoot(data []byte) (text []byte, root *node, err error) {
	if len(data) > MaxFileSize {
		return nil, nil, tooBig(int64(len(data)))
	}
	return parseRootAnySize(data)
}

// parseRootAnySize is parseRoot without mcp.json's size cap: for the
// editor's callers, which enforce their own ([MaxEditSize]).
func parseRootAnySize(data []byte) (text []byte, root *node, err error) {
	text, badComment, ok := stripJSONC(data)
	if !ok {
		return nil, nil, errorAt(data, badComment, "comment /* is not closed")
	}
	if lastMeaningful(text) == 0 {
		return nil, nil, &SyntaxError{Name: defaultName, Msg: "is empty"}
	}
	if err := syntaxCheck(data, text); err != nil {
		return nil, nil, err
	}
	root, err = parseTree(text)
	if err != nil {
		return nil, nil, errorAt(data, 0, "%v", err)
	}
	if root.kind != kindObject {
		return nil, nil, errorAt(data, root.start, "the top level must be an object { ... }, got %s", root.kind)
	}
	return text, root, nil
}

func parseTree(text []byte) (*node, error) {
	p := &treeParser{text: text}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(text) {
		return nil, errBadJSON
	}
	return n, nil
}

type treeParser struct {
	text  []byte
	i     int
	depth int
}

// maxDepth bounds nesting so a hostile file cannot exhaust the stack
// (encoding/json itself allows 10000 levels).
const maxDepth = 10000

func (p *treeParser) space() {
	for p.i < len(p.text) && isSpace(p.text[p.i]) {
		p.i++
	}
}

func (p *treeParser) value() (*node, error) {
	p.space()
	if p.i >= len(p.text) {
		return nil, errBadJSON
	}
	n := &node{start: p.i}
	switch c := p.text[p.i]; {
	case c == '{':
		if err := p.object(n); err != nil {
			return nil, err
		}
	case c == '[':
		if err := p.array(n); err != nil {
			return nil, err
		}
	case c == '"':
		end := skipString(p.text, p.i)
		if end <= p.i+1 || p.text[end-1] != '"' {
			return nil, errBadJSON
		}
		n.kind, p.i = kindString, end
	case c == 't' || c == 'f':
		n.kind = kindBool
		p.literal()
	case c == 'n':
		n.kind = kindNull
		p.literal()
	case c == '-' || (c >= '0' && c <= '9'):
		n.kind = kindNumber
		for p.i < len(p.text) && isNumberByte(p.text[p.i]) {
			p.i++
		}
	default:
		return nil, errBadJSON
	}
	n.end = p.i
	return n, nil
}

func (p *treeParser) literal() {
	for p.i < len(p.text) && p.text[p.i] >= 'a' && p.text[p.i] <= 'z' {
		p.i++
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func (p *treeParser) object(n *node) error {
	n.kind = kindObject
	if p.depth++; p.depth > maxDepth {
		return errBadJSON
	}
	defer func() { p.depth-- }()
	p.i++ // {
	p.space()
	if p.i < len(p.text) && p.text[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		p.space()
		if p.i >= len(p.text) || p.text[p.i] != '"' {
			return errBadJSON
		}
		k, err := p.value()
		if err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.text) || p.text[p.i] != ':' {
			return errBadJSON
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return err
		}
		n.members = append(n.members, member{key: k.str(p.text), keyStart: k.start, value: v})
		p.space()
		if p.i >= len(p.text) {
			return errBadJSON
		}
		switch p.text[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return nil
		default:
			return errBadJSON
		}
	}
}

func (p *treeParser) array(n *node) error {
	n.kind = kindArray
	if p.depth++; p.depth > maxDepth {
		return errBadJSON
	}
	defer func() { p.depth-- }()
	p.i++ // [
	p.space()
	if p.i < len(p.text) && p.text[p.i] == ']' {
		p.i++
		return nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return err
		}
		n.elems = append(n.elems, v)
		p.space()
		if p.i >= len(p.text) {
			return errBadJSON
		}
		switch p.text[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return nil
		default:
			return errBadJSON
		}
	}
}
