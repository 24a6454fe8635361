package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// SyntaxError is a problem that makes the whole file unusable: bad JSON, or
// a top-level part of the wrong shape. The last good config keeps running
// while it stands.
type SyntaxError struct {
	Name string // the file's base name, "mcp.json" unless Load knows better
	Line int    // 1-based; 0 when the message is about the whole file
	Col  int    // 1-based, in characters
	Msg  string // e.g. `invalid character '}' looking for beginning of object key string`
}

// Error reads like `mcp.json:3:14: invalid character '}' ...`, or
// `mcp.json is empty` for a message about the whole file.
func (e *SyntaxError) Error() string {
	name := e.Name
	if name == "" {
		name = defaultName
	}
	if e.Line == 0 {
		return name + " " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", name, e.Line, e.Col, e.Msg)
}

const defaultName = "mcp.json"

// errorAt makes a SyntaxError pointing at data[off].
func errorAt(data []byte, off int, format string, args ...any) *SyntaxError {
	line, col := position(data, off)
	return &SyntaxError{Name: defaultName, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// position turns a byte offset into a 1-based line and column; the column
// counts characters (runes), a leading byte order mark not included. "\r\n",
// "\n" and a lone "\r" each end a line.
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	line, col = 1, 1
	i := 0
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		i = 3
	}
	for i < off {
		c := data[i]
		switch {
		case c == '\n':
			line, col = line+1, 1
			i++
		case c == '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			line, col = line+1, 1
			i++
		case c < utf8.RuneSelf:
			col++
			i++
		default:
			_, size := utf8.DecodeRune(data[i:])
			col++
			i += size
		}
	}
	return line, col
}

// syntaxCheck validates the comment-free text and converts encoding/json's
// error into a SyntaxError pointing at the offending character, or just past
// the last meaningful character when the input ends too early.
func syntaxCheck(orig, stripped []byte) error {
	var raw json.RawMessage
	err := json.Unmarshal(stripped, &raw)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &SyntaxError{Name: defaultName, Line: 1, Col: 1, Msg: err.Error()}
	}
	off := int(se.Offset) - 1
	if int(se.Offset) >= len(stripped) && se.Error() == "unexpected end of JSON input" {
		off = lastMeaningful(stripped)
		return errorAt(orig, off, "unexpected end of file (a missing } or ]?)")
	}
	return errorAt(orig, off, "%s", se.Error())
}

// lastMeaningful returns the offset just past the last byte that is not
// whitespace.
func lastMeaningful(b []byte) int {
	i := len(b)
	for i > 0 && isSpace(b[i-1]) {
		i--
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
