package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The general JSONC editor: [SetMember], [RemoveMember], [AppendElement],
// [Lookup] and [Members] work on any JSON or JSONC file (mcp.json, an
// assistant's config), on the raw bytes, and keep every byte they do not
// need to change: comments, key order, indentation, line endings, trailing
// commas. A path names a member by its keys from the top-level object:
// []string{"mcpServers", "github"}. Where a key is repeated in one object,
// the last one is the one that counts (encoding/json's rule), as for Parse.
//
// Added text follows the file's style: a member goes after the object's
// last member, on a line of its own with that member's indentation (inline,
// ", "-separated, in an object written on one line); an object or array
// value on its own line is written over several lines, indented with the
// file's unit (a tab, or its smallest run of spaces) and its line ending
// (\r\n when the file uses it). RemoveMember is the exact inverse of
// SetMember adding a member: add, then remove, gives back the same bytes.
// (One exception: an empty object with nothing but a line break between
// its braces, "{\n}", comes back without it: "{}".)

// MaxEditSize bounds the files the editor takes: more than mcp.json's
// [MaxFileSize], since an assistant's config (Claude Code's ~/.claude.json
// keeps every project's history) can be large.
const MaxEditSize = 64 << 20

// ErrNoMember is wrapped by RemoveMember when path names no member.
var ErrNoMember = errors.New("no such member")

// Member is one member of an object, as [Members] returns it.
type Member struct {
	Key string
	// Value is the member's value as JSON: the file's text with its
	// comments and trailing commas blanked, which encoding/json reads.
	Value json.RawMessage
}

// parseEdit parses data for the editor: JSONC, at most MaxEditSize bytes.
func parseEdit(data []byte) (text []byte, root *node, err error) {
	if len(data) > MaxEditSize {
		return nil, nil, &SyntaxError{Name: defaultName, Msg: fmt.Sprintf("is %d bytes; mcptray edits at most %d", len(data), MaxEditSize)}
	}
	return parseRootAnySize(data)
}

// walk follows path from root through objects. It returns the node at the
// end of path, or nil with depth = how many keys were found when a member
// is missing. A member on the way that is not an object is an error.
func walk(data []byte, root *node, path []string) (n *node, parents []*node, err error) {
	n = root
	for i, key := range path {
		if n.kind != kindObject {
			return nil, parents, errorAt(data, n.start, "%s must be an object, got %s", dotted(path[:i]), n.kind)
		}
		parents = append(parents, n)
		next := n.get(key)
		if next == nil {
			return nil, parents, nil
		}
		n = next
	}
	return n, parents, nil
}

// dotted names a path for a person: mcpServers.github; "the top level"
// for the empty path.
func dotted(path []string) string {
	if len(path) == 0 {
		return "the top level"
	}
	return strings.Join(path, ".")
}

// Lookup returns the value at path, as JSON (comments blanked), and
// whether it is there. A file that does not parse returns its
// *SyntaxError; a member on the way that is not an object is an error too.
func Lookup(data []byte, path []string) (value json.RawMessage, found bool, err error) {
	text, root, err := parseEdit(data)
	if err != nil {
		return nil, false, err
	}
	n, _, err := walk(data, root, path)
	if err != nil || n == nil {
		return nil, false, err
	}
	return json.RawMessage(bytes.Clone(n.raw(text))), true, nil
}

// Members returns the members of the object at path in file order
// (repeated keys included), or nil when there is none. A value at path
// that is not an object is an error.
func Members(data []byte, path []string) ([]Member, error) {
	text, root, err := parseEdit(data)
	if err != nil {
		return nil, err
	}
	n, _, err := walk(data, root, path)
	if err != nil || n == nil {
		return nil, err
	}
	if n.kind != kindObject {
		return nil, errorAt(data, n.start, "%s must be an object, got %s", dotted(path), n.kind)
	}
	out := make([]Member, 0, len(n.members))
	for _, m := range n.members {
		out = append(out, Member{Key: m.key, Value: json.RawMessage(bytes.Clone(m.value.raw(text)))})
	}
	return out, nil
}

// SetMember sets the member at path (at least one key) to value, which
// must be valid JSON, and keeps every other byte of data:
//
//   - an existing member keeps its place and gets its value replaced
//     (every one of a repeated key); a value equal to the one there, as
//     JSON, changes nothing at all;
//   - a new member goes after the object's last member, in the object's
//     style (see the package's editor notes);
//   - missing objects on the way are created, as one new member holding
//     the rest of the path.
//
// A file that does not parse returns its *SyntaxError (line and column); a
// member on the way that is not an object is an error with its position.
func SetMember(data []byte, path []string, value json.RawMessage) ([]byte, error) {
	if len(path) == 0 {
		return nil, errors.New("SetMember: the path is empty")
	}
	if !json.Valid(value) {
		return nil, fmt.Errorf("setting %s: the value is not valid JSON", dotted(path))
	}
	text, root, err := parseEdit(data)
	if err != nil {
		return nil, err
	}
	st := styleOf(data, text)
	obj := root
	parentMultiline := true // the top level counts as written over lines
	for i, key := range path[:len(path)-1] {
		next := obj.get(key)
		if next == nil {
			v := nest(path[i+1:], value)
			return applyEdits(data, []edit{insertMember(data, text, obj, parentMultiline, key, v, st)}), nil
		}
		if next.kind != kindObject {
			return nil, errorAt(data, next.start, "%s must be an object, got %s", dotted(path[:i+1]), next.kind)
		}
		parentMultiline = spansLines(data, obj)
		obj = next
	}
	key := path[len(path)-1]
	var edits []edit
	for _, m := range obj.members {
		if m.key != key {
			continue
		}
		if jsonEqual(m.value.raw(text), value) {
			continue
		}
		indent, own := ownLine(data, obj.start, m.keyStart)
		multi := own && (spansLines(data, m.value) || isNonEmptyContainer(value))
		edits = append(edits, edit{m.value.start, m.value.end, st.format(value, indent, multi, compactAfterKey(text, m.keyStart))})
	}
	if obj.get(key) == nil {
		edits = append(edits, insertMember(data, text, obj, parentMultiline, key, value, st))
	}
	return applyEdits(data, edits), nil
}

// RemoveMember removes the member at path (every one of a repeated key)
// with exactly the separator and line it took: the inverse of SetMember
// adding it. Comments on lines of their own before or after it stay. A
// missing member wraps ErrNoMember; a file that does not parse returns its
// *SyntaxError.
func RemoveMember(data []byte, path []string) ([]byte, error) {
	if len(path) == 0 {
		return nil, errors.New("RemoveMember: the path is empty")
	}
	removed := false
	for {
		_, root, err := parseEdit(data)
		if err != nil {
			return nil, err
		}
		obj, _, err := walk(data, root, path[:len(path)-1])
		if err != nil {
			return nil, err
		}
		if obj != nil && obj.kind != kindObject {
			return nil, errorAt(data, obj.start, "%s must be an object, got %s", dotted(path[:len(path)-1]), obj.kind)
		}
		i := -1
		if obj != nil {
			for k, m := range obj.members {
				if m.key == path[len(path)-1] {
					i = k
					break
				}
			}
		}
		if i < 0 {
			if !removed {
				return nil, fmt.Errorf("%w: %s", ErrNoMember, dotted(path))
			}
			return data, nil
		}
		items := make([]item, len(obj.members))
		for k, m := range obj.members {
			items[k] = item{m.keyStart, m.value.end}
		}
		data = applyEdits(data, removeItem(data, obj, items, i))
		removed = true
	}
}

// AppendElement appends value (valid JSON) to the array at path, in the
// array's style; a missing array is created holding value (with
// SetMember). A file that does not parse returns its *SyntaxError.
func AppendElement(data []byte, path []string, value json.RawMessage) ([]byte, error) {
	if !json.Valid(value) {
		return nil, fmt.Errorf("appending to %s: the value is not valid JSON", dotted(path))
	}
	text, root, err := parseEdit(data)
	if err != nil {
		return nil, err
	}
	n, parents, err := walk(data, root, path)
	if err != nil {
		return nil, err
	}
	if n == nil {
		return SetMember(data, path, append(append(json.RawMessage("["), value...), ']'))
	}
	if n.kind != kindArray {
		return nil, errorAt(data, n.start, "%s must be an array, got %s", dotted(path), n.kind)
	}
	parentMultiline := true
	if len(parents) > 0 {
		parentMultiline = spansLines(data, parents[len(parents)-1])
	}
	st := styleOf(data, text)
	items := make([]item, len(n.elems))
	for k, e := range n.elems {
		items[k] = item{e.start, e.end}
	}
	format := func(indent string, multi bool) string { return st.format(value, indent, multi, st.compact) }
	return applyEdits(data, []edit{insertItem(data, n, items, parentMultiline, st, format)}), nil
}

// nest wraps value in one object per key of path: nest(["b", "c"], v) is
// {"b": {"c": v}}, the value of a new member "a" for the path a.b.c.
func nest(path []string, value json.RawMessage) json.RawMessage {
	for i := len(path) - 1; i >= 0; i-- {
		var b bytes.Buffer
		b.WriteByte('{')
		b.WriteString(quote(path[i]))
		b.WriteByte(':')
		b.Write(value)
		b.WriteByte('}')
		value = b.Bytes()
	}
	return value
}

// insertMember adds key: value after obj's last member.
func insertMember(orig, text []byte, obj *node, parentMultiline bool, key string, value json.RawMessage, st style) edit {
	items := make([]item, len(obj.members))
	for k, m := range obj.members {
		items[k] = item{m.keyStart, m.value.end}
	}
	compact := st.compact
	if len(obj.members) > 0 {
		compact = compactAfterKey(text, obj.members[len(obj.members)-1].keyStart)
	}
	format := func(indent string, multi bool) string {
		sep := ": "
		if compact {
			sep = ":"
		}
		return quote(key) + sep + st.format(value, indent, multi, compact)
	}
	return insertItem(orig, obj, items, parentMultiline, st, format)
}

// item is one member (from its key) or element of a container.
type item struct{ start, end int }

// insertItem adds the text format makes after the last of items, the
// members or elements of the object or array c. format gets the
// indentation of the item's line and whether to write it over lines.
func insertItem(orig []byte, c *node, items []item, parentMultiline bool, st style, format func(indent string, multi bool) string) edit {
	open, close := c.start, c.end-1 // the brackets
	if len(items) == 0 {
		if closeIndent, own := ownLine(orig, open, close); own {
			// "{\n  // comment\n}": a line of its own before the
			// closing bracket's line.
			indent := closeIndent + st.unit
			return edit{close - len(closeIndent), close - len(closeIndent), indent + format(indent, true) + st.nl}
		}
		if parentMultiline || spansLines(orig, c) {
			// "{}" becomes "{\n  item\n}", the closing bracket indented
			// as the opening one's line.
			openIndent := lineIndent(orig, open)
			indent := openIndent + st.unit
			return edit{close, close, st.nl + indent + format(indent, true) + st.nl + openIndent}
		}
		return edit{open + 1, open + 1, format("", false)}
	}
	last := items[len(items)-1]
	sep := ", "
	if st.compact {
		sep = ","
	}
	indent, own := ownLine(orig, open, last.start)
	if !own {
		return edit{last.end, last.end, sep + format("", false)}
	}
	comma := trailingComma(orig, last.end)
	after := last.end
	if comma >= 0 {
		after = comma + 1
	}
	if lineEnd, clean := cleanLineEnd(orig, after); clean {
		if comma >= 0 {
			return edit{lineEnd, lineEnd, indent + format(indent, true) + "," + st.nl}
		}
		// Two edits in one: the comma after the last item, and the new
		// line after its line. applyEdits takes them as one replacement.
		return edit{last.end, lineEnd, "," + string(orig[last.end:lineEnd]) + indent + format(indent, true) + st.nl}
	}
	return edit{last.end, last.end, "," + st.nl + indent + format(indent, true)}
}

// removeItem returns the edits that take items[i] out of container c with
// exactly the separator and line insertItem would have added.
func removeItem(orig []byte, c *node, items []item, i int) []edit {
	it := items[i]
	comma := trailingComma(orig, it.end)
	after := it.end
	if comma >= 0 {
		after = comma + 1
	}
	_, own := ownLine(orig, c.start, it.start)
	lineEnd, clean := cleanLineEnd(orig, after)
	if own && clean {
		lineStart := it.start
		for lineStart > 0 && orig[lineStart-1] != '\n' && orig[lineStart-1] != '\r' {
			lineStart--
		}
		close := c.end - 1
		if len(items) == 1 && string(orig[lineEnd:close]) == lineIndent(orig, c.start) {
			// The only item, on a line of its own right after the opening
			// bracket's line, with nothing but blanks and /* */ comments
			// after the bracket there: what "{}" became (see insertItem).
			nl := lineStart - 1
			if nl > 0 && orig[nl] == '\n' && orig[nl-1] == '\r' {
				nl--
			}
			if between := orig[c.start+1 : nl]; !bytes.ContainsAny(between, "\r\n") && !bytes.Contains(between, []byte("//")) {
				return []edit{{nl, close, ""}}
			}
		}
		edits := []edit{{lineStart, lineEnd, ""}}
		if comma < 0 && i > 0 {
			if sep := trailingComma(orig, items[i-1].end); sep >= 0 {
				edits = append(edits, edit{sep, sep + 1, ""})
			}
		}
		return edits
	}
	switch {
	case i+1 < len(items) && comma >= 0:
		end := comma + 1
		for end < len(orig) && (orig[end] == ' ' || orig[end] == '\t') {
			end++
		}
		return []edit{{it.start, end, ""}}
	case i > 0:
		if sep := trailingComma(orig, items[i-1].end); sep >= 0 {
			return []edit{{sep, it.end, ""}}
		}
	}
	return []edit{{it.start, after, ""}}
}

// trailingComma returns the offset of the comma after a value ending at
// end, past blanks and comments, or -1 when the next byte is something
// else. It reads the original bytes: the blanked text has lost its
// trailing commas.
func trailingComma(orig []byte, end int) int {
	j := skipSpaceAndComments(orig, end)
	if j < len(orig) && orig[j] == ',' {
		return j
	}
	return -1
}

// cleanLineEnd reports whether nothing but blanks and comments that end on
// this line follow orig[from:] up to the line's end, and returns the
// offset just past that line's line break.
func cleanLineEnd(orig []byte, from int) (int, bool) {
	i := from
	for i < len(orig) {
		switch c := orig[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '\r' && i+1 < len(orig) && orig[i+1] == '\n':
			return i + 2, true
		case c == '\n' || c == '\r':
			return i + 1, true
		case c == '/' && i+1 < len(orig) && orig[i+1] == '/':
			for i < len(orig) && orig[i] != '\n' && orig[i] != '\r' {
				i++
			}
		case c == '/' && i+1 < len(orig) && orig[i+1] == '*':
			j := i + 2
			for j+1 < len(orig) && !(orig[j] == '*' && orig[j+1] == '/') {
				if orig[j] == '\n' || orig[j] == '\r' {
					return 0, false // a comment over lines
				}
				j++
			}
			i = j + 2
		default:
			return 0, false
		}
	}
	return 0, false
}

// ownLine reports whether only blanks precede orig[off] on its line, and
// that line starts after the container's opening bracket at open; it
// returns those blanks.
func ownLine(orig []byte, open, off int) (string, bool) {
	ls := off
	for ls > 0 && orig[ls-1] != '\n' && orig[ls-1] != '\r' {
		ls--
	}
	if ls <= open {
		return "", false
	}
	indent := orig[ls:off]
	if len(bytes.Trim(indent, " \t")) != 0 {
		return "", false
	}
	return string(indent), true
}

// lineIndent is the blanks at the start of the line holding orig[off].
func lineIndent(orig []byte, off int) string {
	ls := off
	for ls > 0 && orig[ls-1] != '\n' && orig[ls-1] != '\r' {
		ls--
	}
	e := ls
	for e < off && (orig[e] == ' ' || orig[e] == '\t') {
		e++
	}
	return string(orig[ls:e])
}

// spansLines reports whether n's text holds a line break.
func spansLines(orig []byte, n *node) bool {
	return bytes.ContainsAny(orig[n.start:n.end], "\r\n")
}

// compactAfterKey reports whether the member whose key starts at keyStart
// is written "key":value, with no blank after the colon.
func compactAfterKey(text []byte, keyStart int) bool {
	end := skipString(text, keyStart)
	return end+1 < len(text) && text[end] == ':' && !isSpace(text[end+1])
}

func isNonEmptyContainer(v json.RawMessage) bool {
	var c json.RawMessage
	if err := json.Unmarshal(v, &c); err != nil {
		return false
	}
	t := bytes.TrimSpace(c)
	return len(t) > 2 && (t[0] == '{' || t[0] == '[')
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// quote is s as a JSON string, with <, > and & as they are.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// style is how a file writes its JSON.
type style struct {
	unit    string // one level of indentation
	nl      string // line ending
	compact bool   // "key":value, no blanks
}

// styleOf reads the style of data (text: data with comments blanked).
func styleOf(orig, text []byte) style {
	st := style{unit: "  ", nl: "\n"}
	if i := bytes.IndexByte(orig, '\n'); i > 0 && orig[i-1] == '\r' {
		st.nl = "\r\n"
	}
	best := ""
	for _, line := range bytes.Split(text, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		n := 0
		for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
			n++
		}
		if n == 0 || n == len(line) {
			continue
		}
		if line[0] == '\t' {
			best = "\t"
			break
		}
		if best == "" || n < len(best) {
			best = strings.Repeat(" ", n)
		}
	}
	if best != "" {
		st.unit = best
	}
	colons, tight := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			i = skipString(text, i) - 1
		case ':':
			colons++
			if i+1 < len(text) && !isSpace(text[i+1]) {
				tight++
			}
		}
	}
	st.compact = colons > 0 && tight == colons && !bytes.ContainsAny(bytes.TrimSpace(text), "\n")
	return st
}

// format writes v (valid JSON) for a place whose line is indented by
// indent: over lines (multi), or on one line with ", " and ": " (or
// compact).
func (st style) format(v json.RawMessage, indent string, multi, compact bool) string {
	var c bytes.Buffer
	json.Compact(&c, v)
	if multi {
		var b bytes.Buffer
		json.Indent(&b, c.Bytes(), indent, st.unit)
		s := b.String()
		if st.nl != "\n" {
			s = strings.ReplaceAll(s, "\n", st.nl)
		}
		return s
	}
	if compact {
		return c.String()
	}
	src := c.Bytes()
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		switch ch := src[i]; ch {
		case '"':
			j := skipString(src, i)
			b.Write(src[i:j])
			i = j - 1
		case ',', ':':
			b.WriteByte(ch)
			b.WriteByte(' ')
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}
