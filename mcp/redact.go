package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Values a person typed into the inbox for a secret field are taken out of
// that server's tool results, progress messages and log lines for the
// rest of its session (DESIGN §7): a server that echoes a password does
// not leak it to the assistant or to disk.

// minSecretLen is the shortest value redacted; shorter ones would blot out
// ordinary text.
const minSecretLen = 3

// redacted replaces a secret.
const redacted = "[redacted]"

// redactor holds one session's secrets. It is never changed once
// published (Session.secrets is swapped whole).
type redactor struct {
	plain []string // as typed, for log lines
	json  [][]byte // as they appear inside a JSON string
}

// addSecret adds a value to the session's redactions.
func (s *Session) addSecret(v string) {
	if len(v) < minSecretLen {
		return
	}
	for {
		old := s.secrets.Load()
		r := &redactor{}
		if old != nil {
			if containsString(old.plain, v) {
				return
			}
			r.plain, r.json = append(r.plain, old.plain...), append(r.json, old.json...)
		}
		r.plain = append(r.plain, v)
		for _, q := range jsonForms(v) {
			if !containsBytes(r.json, q) {
				r.json = append(r.json, q)
			}
		}
		if s.secrets.CompareAndSwap(old, r) {
			return
		}
	}
}

// jsonForms are the ways a JSON encoder may write v inside a string, without
// the quotes: Go's (<, > and & as \u003c…), most others' (those as they
// are), and ASCII-only (Python's json.dumps: every other rune as \uXXXX).
func jsonForms(v string) [][]byte {
	var out [][]byte
	add := func(b []byte) {
		if !containsBytes(out, b) {
			out = append(out, b)
		}
	}
	q := quoteJSON(v)
	add(q[1 : len(q)-1])
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	p := bytes.TrimSuffix(plain.Bytes(), []byte("\n"))
	add(p[1 : len(p)-1])
	var ascii []byte
	for _, r := range string(p[1 : len(p)-1]) {
		switch {
		case r < utf8.RuneSelf:
			ascii = append(ascii, byte(r))
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			ascii = fmt.Appendf(ascii, "\\u%04x\\u%04x", r1, r2)
		default:
			ascii = fmt.Appendf(ascii, "\\u%04x", r)
		}
	}
	add(ascii)
	return out
}

func containsBytes(list [][]byte, v []byte) bool {
	for _, b := range list {
		if bytes.Equal(b, v) {
			return true
		}
	}
	return false
}

func containsString(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// redactJSON returns b with the session's secrets replaced; b itself when
// there are none (the common case costs one atomic load).
func (s *Session) redactJSON(b []byte) []byte {
	r := s.secrets.Load()
	if r == nil {
		return b
	}
	for _, sec := range r.json {
		if bytes.Contains(b, sec) {
			b = bytes.ReplaceAll(b, sec, []byte(redacted))
		}
	}
	return b
}

// redactText is redactJSON for a log line.
func (s *Session) redactText(line string) string {
	r := s.secrets.Load()
	if r == nil {
		return line
	}
	for _, sec := range r.plain {
		line = strings.ReplaceAll(line, sec, redacted)
	}
	return line
}
