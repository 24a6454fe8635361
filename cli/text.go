package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Every CLI output that carries a server's text (its log, an inbox
// request's message and fields, an event, a status error) goes through
// escapeText, so that a hostile server cannot clear the screen, ring the
// bell, overwrite a line or pose as another server where the person types
// a password. --json output is JSON and escapes on its own.

// escapeText shows the characters that steer a terminal as escapes: C0
// controls, DEL and C1 controls as \a \b \f \r \v \x1b \u009b, Unicode
// bidi controls and line separators as \u202e \u2028, and bytes that are
// not UTF-8 as \xff. Newline and tab stay; everything else is kept as it
// is (a backslash too: the escapes are for a person to read, not to be
// parsed back).
func escapeText(s string) string {
	if !strings.ContainsFunc(s, steers) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case !steers(r):
			b.WriteString(s[:n])
		case r < utf8.RuneSelf:
			if e, ok := shortEscapes[byte(r)]; ok {
				b.WriteString(e)
			} else {
				fmt.Fprintf(&b, `\x%02x`, r)
			}
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		s = s[n:]
	}
	return b.String()
}

var shortEscapes = map[byte]string{'\a': `\a`, '\b': `\b`, '\f': `\f`, '\r': `\r`, '\v': `\v`}

// steers reports whether r is escaped by escapeText.
func steers(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r >= 0x7f && r <= 0x9f: // C0, DEL, C1
		return true
	}
	return r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r)
}

// oneLine is s escaped (escapeText) on one line: runs of white space,
// newlines and tabs too, become one space.
func oneLine(s string) string { return strings.Join(strings.Fields(escapeText(s)), " ") }

// escapeWriter passes a byte stream (a server's log) through escapeText.
// It holds back an incomplete UTF-8 sequence at the end of a write until
// the next one completes it; Flush writes what is held.
type escapeWriter struct {
	w    io.Writer
	held []byte // at most utf8.UTFMax-1 bytes: the start of a character
}

func (e *escapeWriter) Write(p []byte) (int, error) {
	buf := append(e.held, p...)
	cut := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-(utf8.UTFMax-1); i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	if _, err := io.WriteString(e.w, escapeText(string(buf[:cut]))); err != nil {
		return 0, err
	}
	e.held = append(e.held[:0], buf[cut:]...)
	return len(p), nil
}

// Flush writes the bytes held back, escaped.
func (e *escapeWriter) Flush() error {
	if len(e.held) == 0 {
		return nil
	}
	_, err := io.WriteString(e.w, escapeText(string(e.held)))
	e.held = e.held[:0]
	return err
}
