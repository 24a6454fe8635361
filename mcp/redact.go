package mcp

import (
	"bytes"
	"strings"
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
		q := quoteJSON(v)
		r.plain, r.json = append(r.plain, v), append(r.json, q[1:len(q)-1])
		if s.secrets.CompareAndSwap(old, r) {
			return
		}
	}
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
