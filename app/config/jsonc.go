package config

// stripJSONC returns a copy of data in which comments (// to end of line and
// /* */) and trailing commas (a comma followed, past whitespace and comments,
// by } or ]) are replaced by spaces, and a leading UTF-8 byte order mark is
// blanked too. Newlines inside comments are kept, so the result has the same
// length and the same line and column for every remaining byte, and
// encoding/json's error offsets point into the original text.
//
// An unclosed /* comment is reported with the offset of its "/*"; ok is false
// then.
func stripJSONC(data []byte) (out []byte, badComment int, ok bool) {
	out = make([]byte, len(data))
	copy(out, data)
	i := 0
	if len(out) >= 3 && out[0] == 0xEF && out[1] == 0xBB && out[2] == 0xBF {
		out[0], out[1], out[2] = ' ', ' ', ' '
		i = 3
	}
	for i < len(out) {
		switch c := out[i]; {
		case c == '"':
			i = skipString(out, i)
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for i < len(out) && out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
				i++
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			start := i
			end := -1
			for j := i + 2; j+1 < len(out); j++ {
				if out[j] == '*' && out[j+1] == '/' {
					end = j + 2
					break
				}
			}
			if end < 0 {
				return out, start, false
			}
			blank(out[start:end])
			i = end
		case c == ',':
			if j := skipSpaceAndComments(data, i+1); j < len(data) && (data[j] == '}' || data[j] == ']') && followsValue(out, i) {
				out[i] = ' '
			}
			i++
		default:
			i++
		}
	}
	return out, 0, true
}

// followsValue reports whether the comma at out[i] comes after a value, not
// right after "{", "[" or another comma: "{,}" stays an error. out before i
// has its comments blanked already.
func followsValue(out []byte, i int) bool {
	for i--; i >= 0 && isSpace(out[i]); i-- {
	}
	return i >= 0 && out[i] != '{' && out[i] != '[' && out[i] != ','
}

// skipString returns the index just past the JSON string starting at
// data[i] == '"', or len(data) when it is not closed.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		case '\n':
			// A raw newline ends a (broken) string: JSON forbids it, and
			// stopping here keeps a comment on the next line a comment.
			return i
		}
	}
	return len(data)
}

// skipSpaceAndComments returns the index of the first byte at or after i
// that is neither whitespace nor inside a comment.
func skipSpaceAndComments(data []byte, i int) int {
	for i < len(data) {
		switch c := data[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' && data[i] != '\r' {
				i++
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			j := i + 2
			for j+1 < len(data) && !(data[j] == '*' && data[j+1] == '/') {
				j++
			}
			if j+1 >= len(data) {
				return len(data)
			}
			i = j + 2
		default:
			return i
		}
	}
	return i
}

// blank replaces every byte of b except line breaks by a space.
func blank(b []byte) {
	for k, c := range b {
		if c != '\n' && c != '\r' {
			b[k] = ' '
		}
	}
}
