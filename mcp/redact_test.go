package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// A secret echoed by a server is redacted however its JSON encoder wrote
// it: Go's (HTML characters escaped), node's (as is), Python's json.dumps
// (ASCII only).
func TestRedactJSONForms(t *testing.T) {
	const secret = `p&ss<é😀>"x`
	s := newSession(Hooks{})
	s.addSecret(secret)
	goForm, _ := json.Marshal("said " + secret)
	for name, line := range map[string]string{
		"go":     `{"text":` + string(goForm) + `}`,
		"node":   `{"text":"said p&ss<é😀>\"x"}`,
		"python": `{"text":"said p&ss<\u00e9\ud83d\ude00>\"x"}`,
	} {
		got := string(s.redactJSON([]byte(line)))
		if got != `{"text":"said [redacted]"}` {
			t.Errorf("%s: %s", name, got)
		}
	}
	if got := s.redactText("log: " + secret); got != "log: [redacted]" {
		t.Errorf("log line: %s", got)
	}
	if strings.Contains(string(s.redactJSON([]byte(`{"a":"p&ss"}`))), "redacted") {
		t.Error("a part of the secret was redacted")
	}
}
