package config

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestVariables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value   string // args[0]
		want    string
		wantErr string
	}{
		{value: "${env:FOO}", want: "foo-value"},
		{value: "${FOO}", want: "foo-value"},
		{value: "pre-${FOO}-post", want: "pre-foo-value-post"},
		{value: "${FOO}${env:FOO}", want: "foo-valuefoo-value"},
		{value: "${EMPTY}", want: ""},
		{value: "${NOPE:-dflt}", want: "dflt"},
		{value: "${EMPTY:-dflt}", want: "dflt"},
		{value: "${FOO:-dflt}", want: "foo-value"},
		{value: "${NOPE:-}", want: ""},
		{value: "${env:NOPE:-d}", want: "d"},
		{value: "${NOPE:-${userHome}/x}", want: "/home/u/x"},
		{value: "${NOPE:-a:-b}", want: "a:-b"},
		{value: "${userHome}/x", want: "/home/u/x"},
		{value: "~", want: "/home/u"},
		{value: "~/notes", want: "/home/u/notes"},
		{value: "~/${FOO}", want: "/home/u/foo-value"},
		{value: "~user/x", want: "~user/x"},
		{value: "a~/x", want: "a~/x"},
		{value: "${self}", want: "/opt/mcptray/mcptray"},
		{value: "${pathSeparator}", want: "/"},
		{value: "${/}", want: "/"},
		{value: "${keyring:remote-token}", want: secretToken},
		{value: "$FOO", want: "$FOO"},
		{value: "$$", want: "$$"},
		{value: "$${FOO}", want: "$foo-value"},
		{value: "costs $5 {x}", want: "costs $5 {x}"},
		{value: "plain", want: "plain"},

		{value: "${NOPE}", wantErr: "x: variable ${NOPE} is not set"},
		{value: "${env:NOPE}", wantErr: "x: variable ${env:NOPE} is not set"},
		{value: "${FOO}/${NOPE}", wantErr: "x: variable ${NOPE} is not set"},
		{value: "${NOPE:-${ALSO_NOPE}}", wantErr: "x: variable ${ALSO_NOPE} is not set"},
		{value: "${keyring:missing}", wantErr: "x: keyring entry \"missing\" not found (`mcptray secret set missing` stores it)"},
		{value: "${keyring:broken}", wantErr: `x: reading keyring entry "broken": no Secret Service on the session bus`},
		{value: "${input:notes-key}", wantErr: "x: ${input:notes-key} cannot be asked for here (no inbox)"},
		{value: "${input:other}", wantErr: `x: ${input:other} has no matching entry in "inputs"`},
		{value: "${workspaceFolder}/x", wantErr: "x: ${workspaceFolder} is not supported outside VS Code"},
		{value: "${workspaceFolder:app}", wantErr: "x: ${workspaceFolder:app} is not supported outside VS Code"},
		{value: "${config:editor.tabSize}", wantErr: "x: ${config:editor.tabSize} is not supported outside VS Code"},
		{value: "${file}", wantErr: "x: ${file} is not supported outside VS Code"},
		{value: "${foo:bar}", wantErr: "x: unknown variable ${foo:bar}"},
		{value: "${NAME-default}", wantErr: "x: unknown variable ${NAME-default}"},
		{value: "${1ABC}", wantErr: "x: unknown variable ${1ABC}"},
		{value: "${A B}", wantErr: "x: unknown variable ${A B}"},
		{value: "${}", wantErr: "x: args[0] has an empty ${}"},
		{value: "${FOO", wantErr: `x: args[0] has "${" without a closing "}"`},
		{value: "${NOPE:-${FOO}", wantErr: `x: args[0] has "${" without a closing "}"`},
		{value: "${env:}", wantErr: "x: args[0] has ${env:} without a variable name"},
		{value: "${keyring:}", wantErr: "x: args[0] has ${keyring:} without an entry name"},
		{value: "${input:}", wantErr: "x: args[0] has ${input:} without an input id"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			arg, _ := json.Marshal(tt.value)
			s := parseEntry(t, `{"command": "c", "args": [`+string(arg)+`]}`, testEnv())
			if got := errText(s.Err); got != errText(errorOrNil(tt.wantErr)) {
				t.Fatalf("Err = %s\nwant  %s", got, errText(errorOrNil(tt.wantErr)))
			}
			if tt.wantErr != "" {
				if s.Args != nil || s.Command != "" {
					t.Errorf("a refused entry keeps resolved fields: %+v", s)
				}
				return
			}
			if len(s.Args) != 1 || s.Args[0] != tt.want {
				t.Errorf("Args = %q, want [%q]", s.Args, tt.want)
			}
		})
	}
}

func errorOrNil(msg string) error {
	if msg == "" {
		return nil
	}
	return errString(msg)
}

type errString string

func (e errString) Error() string { return string(e) }

// TestVariablesWithoutSources: what an Env lacking a part says.
func TestVariablesWithoutSources(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     func(*Env)
		value   string
		wantErr string
	}{
		{"no keyring", func(e *Env) { e.Keyring = nil }, "${keyring:remote-token}", "x: keyring not available for ${keyring:remote-token}"},
		{"no home for ~", func(e *Env) { e.Home = "" }, "~/x", "x: args[0] starts with ~, but the home directory is not known"},
		{"no home for userHome", func(e *Env) { e.Home = "" }, "${userHome}", "x: ${userHome} is not available: the home directory is not known"},
		{"no self", func(e *Env) { e.Self = "" }, "${self}", "x: ${self} is not available: the path of mcptray's executable is not known"},
		{"no lookup", func(e *Env) { e.Lookup = nil }, "${FOO}", "x: variable ${FOO} is not set"},
		{"no lookup, default", func(e *Env) { e.Lookup = nil }, "${FOO:-d}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv()
			tt.env(&env)
			arg, _ := json.Marshal(tt.value)
			s := parseEntry(t, `{"command": "c", "args": [`+string(arg)+`]}`, env)
			if got := errText(s.Err); got != errText(errorOrNil(tt.wantErr)) {
				t.Errorf("Err = %s\nwant  %s", got, errText(errorOrNil(tt.wantErr)))
			}
		})
	}
}

// TestVariablesInEveryField: each field that takes variables resolves them.
func TestVariablesInEveryField(t *testing.T) {
	t.Parallel()
	stdio := parseEntry(t, `{
      "command": "~/bin/${FOO}",
      "args": ["--home=${userHome}", "~/x"],
      "env": {"A": "${FOO}", "B": "${keyring:remote-token}", "C": "~/not-expanded"},
      "cwd": "~/${FOO}"
    }`, testEnv())
	if stdio.Err != nil {
		t.Fatal(stdio.Err)
	}
	if stdio.Command != "/home/u/bin/foo-value" {
		t.Errorf("Command = %q", stdio.Command)
	}
	if want := []string{"--home=/home/u", "/home/u/x"}; !equalStrings(stdio.Args, want) {
		t.Errorf("Args = %q, want %q", stdio.Args, want)
	}
	if stdio.Env["A"] != "foo-value" || stdio.Env["B"] != secretToken || stdio.Env["C"] != "~/not-expanded" {
		t.Errorf("Env = %q", stdio.Env)
	}
	if stdio.Cwd != "/home/u/foo-value" {
		t.Errorf("Cwd = %q", stdio.Cwd)
	}

	remote := parseEntry(t, `{
      "url": "https://${FOO}.example/mcp",
      "headers": {"Authorization": "Bearer ${keyring:remote-token}", "X-Home": "~"}
    }`, testEnv())
	if remote.Err != nil {
		t.Fatal(remote.Err)
	}
	if remote.URL != "https://foo-value.example/mcp" {
		t.Errorf("URL = %q", remote.URL)
	}
	if remote.Headers["Authorization"] != "Bearer "+secretToken || remote.Headers["X-Home"] != "~" {
		t.Errorf("Headers = %q", remote.Headers)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestKeyringReadOnce: one Parse reads each keyring entry once, however
// many servers use it.
func TestKeyringReadOnce(t *testing.T) {
	t.Parallel()
	env := testEnv()
	calls := 0
	inner := env.Keyring
	env.Keyring = func(name string) (string, error) { calls++; return inner(name) }
	_, err := Parse([]byte(`{"mcpServers": {
      "a": {"url": "https://a/mcp", "headers": {"A": "${keyring:remote-token}"}},
      "b": {"url": "https://b/mcp", "headers": {"A": "${keyring:remote-token}"}}}}`), env)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("keyring read %d times, want 1", calls)
	}
}

// TestGoKeyringNotFound: go-keyring's ErrNotFound text counts as not found.
func TestGoKeyringNotFound(t *testing.T) {
	t.Parallel()
	env := testEnv()
	env.Keyring = func(string) (string, error) { return "", errString("secret not found in keyring") }
	s := parseEntry(t, `{"url": "https://r/mcp", "headers": {"A": "${keyring:tok}"}}`, env)
	if want := "x: keyring entry \"tok\" not found (`mcptray secret set tok` stores it)"; errText(s.Err) != want {
		t.Errorf("Err = %s, want %s", errText(s.Err), want)
	}
}

// keyringUnavailable is like app/keyring's UnavailableError: a reason that
// wraps several errors.
type keyringUnavailable struct{ reason string }

func (e *keyringUnavailable) Error() string { return e.reason }
func (e *keyringUnavailable) Unwrap() []error {
	return []error{errString("unavailable"), errString("dbus: not found")}
}

// TestKeyringErrors: what a person reads for the errors keyrings return,
// wrapped the way callers wrap them.
func TestKeyringErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{ErrKeyringNotFound, "x: keyring entry \"tok\" not found (`mcptray secret set tok` stores it)"},
		{fmt.Errorf("reading %q: %w", "keyring/tok", ErrKeyringNotFound), "x: keyring entry \"tok\" not found (`mcptray secret set tok` stores it)"},
		{errString("secret not found in keyring"), "x: keyring entry \"tok\" not found (`mcptray secret set tok` stores it)"},                                           // go-keyring
		{fmt.Errorf("reading %q: %w", "keyring/tok", errString("not found in the keyring")), "x: keyring entry \"tok\" not found (`mcptray secret set tok` stores it)"}, // app/keyring
		{fmt.Errorf("reading %q: %w", "keyring/tok", &keyringUnavailable{"no Secret Service: start gnome-keyring"}),
			`x: reading keyring entry "tok": no Secret Service: start gnome-keyring`},
		{errString("the collection is locked"), `x: reading keyring entry "tok": the collection is locked`},
		{fmt.Errorf("context: %v", errString("flat")), `x: reading keyring entry "tok": context: flat`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			env := testEnv()
			env.Keyring = func(string) (string, error) { return "", tt.err }
			s := parseEntry(t, `{"url": "https://r/mcp", "headers": {"A": "${keyring:tok}"}}`, env)
			if errText(s.Err) != tt.want {
				t.Errorf("Err = %s\nwant  %s", errText(s.Err), tt.want)
			}
		})
	}
}
