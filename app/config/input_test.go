package config

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// TestInputVariables: ${input:ID} resolves through Env.Input; one not given
// yet refuses the entry with an *InputNeededError that names the input.
func TestInputVariables(t *testing.T) {
	t.Parallel()
	const cfg = `{
  "servers": {
    "given":   {"command": "c", "env": {"K": "${input:given}"}},
    "twice":   {"command": "c", "args": ["${input:given}", "${input:given}"]},
    "pending": {"command": "c", "env": {"K": "${input:pending}"}},
    "broken":  {"command": "c", "env": {"K": "${input:broken}"}}
  },
  "inputs": [
    {"id": "given", "type": "promptString", "description": "Given", "password": true},
    {"id": "pending", "type": "promptString", "description": "Notes API key", "default": "d"},
    {"id": "broken", "type": "promptString"}
  ]
}`
	env := testEnv()
	calls := map[string]int{}
	env.Input = func(in Input) (string, error) {
		calls[in.ID]++
		switch in.ID {
		case "given":
			return "typed-value", nil
		case "pending":
			return "", fmt.Errorf("reading input/%s: %w", in.ID, ErrInputNotGiven)
		}
		return "", errors.New("the keyring is locked")
	}
	c, err := Parse([]byte(cfg), env)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Server{}
	for _, s := range c.Servers {
		byName[s.Name] = s
	}
	if s := byName["given"]; s.Err != nil || s.Env["K"] != "typed-value" {
		t.Errorf("given: %v %q", s.Err, s.Env["K"])
	}
	if s := byName["twice"]; s.Err != nil || s.Args[1] != "typed-value" {
		t.Errorf("twice: %v %q", s.Err, s.Args)
	}
	if calls["given"] != 1 {
		t.Errorf("Env.Input asked %d times for one id in one parse", calls["given"])
	}
	s := byName["pending"]
	var ine *InputNeededError
	if !errors.As(s.Err, &ine) || ine.Input.ID != "pending" || ine.Input.Description != "Notes API key" || ine.Input.Default != "d" {
		t.Fatalf("pending: Err = %v (%T), want an *InputNeededError for the input", s.Err, s.Err)
	}
	if want := "pending: waiting for ${input:pending}: answer it in the inbox (mcptray inbox)"; s.Err.Error() != want {
		t.Errorf("pending: %q, want %q", s.Err, want)
	}
	if want := "broken: reading ${input:broken}: the keyring is locked"; errText(byName["broken"].Err) != want {
		t.Errorf("broken: %s, want %s", errText(byName["broken"].Err), want)
	}
	if errors.As(byName["broken"].Err, &ine) {
		t.Error("a failing lookup is not a pending input")
	}
}

func TestInboxTimeout(t *testing.T) {
	t.Parallel()
	c, err := Parse([]byte(`{}`), testEnv())
	if err != nil || c.Settings.InboxTimeout != DefaultInboxTimeout {
		t.Fatalf("default: %v %v", c.Settings.InboxTimeout, err)
	}
	c, err = Parse([]byte(`{"x-mcptray": {"inboxTimeout": "90s"}}`), testEnv())
	if err != nil || c.Settings.InboxTimeout != 90*time.Second {
		t.Errorf("90s: %v %v", c.Settings.InboxTimeout, err)
	}
	_, err = Parse([]byte(`{"x-mcptray": {"inboxTimeout": "soon"}}`), testEnv())
	if want := `mcp.json:1:32: x-mcptray.inboxTimeout must be a duration like "90s" or "5m", got "soon"`; err == nil || err.Error() != want {
		t.Errorf("bad inboxTimeout: %v, want %s", err, want)
	}
}
