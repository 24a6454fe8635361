package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Env is what variable resolution may read.
type Env struct {
	Lookup  func(name string) (string, bool)  // environment variables, usually os.LookupEnv; nil: none is set
	Home    string                            // ${userHome} and a leading ~
	Self    string                            // ${self}: the running executable's absolute path
	Keyring func(name string) (string, error) // ${keyring:NAME}; nil: entries using it are refused
	Dir     string                            // the config file's directory, for a relative envFile and cwd
	// Input resolves ${input:ID} from a value given earlier (the keyring or
	// the store). It returns ErrInputNotGiven (or wraps it) when the person
	// has not been asked yet: the entry is then refused with an
	// *InputNeededError, which the app shows as "waiting-input" and asks
	// through the inbox. It must not block on the person. nil: entries
	// using ${input:...} are refused.
	Input func(in Input) (string, error)
	// LaunchKey keys the hashes of the values a Launch keeps (the
	// install's key, a file in the data dir): fingerprints compare only
	// under the same key.
	LaunchKey []byte
	// Root: mcptray runs as root, so root's files are the user's and every
	// file a launch names is hashed (launch_files.go).
	Root bool
}

// ErrInputNotGiven is returned (or wrapped) by Env.Input for an input the
// person has not given yet.
var ErrInputNotGiven = errors.New("input not given yet")

// InputNeededError refuses an entry until the person gives a ${input:ID}
// value. Server.Err wraps it (errors.As finds it).
type InputNeededError struct {
	Input Input // the input to ask for, as declared under "inputs"
}

func (e *InputNeededError) Error() string {
	return fmt.Sprintf("waiting for ${input:%s}: answer it in the inbox (mcptray inbox)", e.Input.ID)
}

// ErrKeyringNotFound may be returned (or wrapped) by Env.Keyring for a
// missing entry; the entry is then refused with `keyring entry "NAME" not
// found`. A wrapped sentinel whose text says "not found" (go-keyring's and
// app/keyring's ErrNotFound) counts too, so this package need not import a
// keyring.
var ErrKeyringNotFound = errors.New("keyring entry not found")

// vscodeOnly are VS Code's predefined variables that mean nothing outside an
// editor window.
var vscodeOnly = map[string]bool{
	"workspaceFolder": true, "workspaceFolderBasename": true, "workspaceRoot": true,
	"file": true, "fileWorkspaceFolder": true, "relativeFile": true,
	"relativeFileDirname": true, "fileBasename": true, "fileBasenameNoExtension": true,
	"fileExtname": true, "fileDirname": true, "fileDirnameBasename": true, "cwd": true,
	"lineNumber": true, "columnNumber": true, "selectedText": true, "execPath": true,
	"defaultBuildTask": true,
}

// vscodeOnlyPrefixes are VS Code's prefixed variable forms that need the
// editor (settings, commands, a named workspace folder).
var vscodeOnlyPrefixes = []string{"config:", "command:", "workspaceFolder:", "workspaceFolderBasename:"}

// resolver expands variables for one Parse call. Reasons it returns are the
// part after "name: " in a Server's Err, and never contain a resolved value.
type resolver struct {
	env    Env
	inputs map[string]Input // declared under "inputs", by id
	// keyring caches lookups for this Parse call so an entry used by
	// several servers is read once.
	keyring map[string]keyringResult
	input   map[string]keyringResult // Env.Input lookups of this Parse call, by id
}

type keyringResult struct {
	value string
	err   error
}

func newResolver(env Env, inputs []Input) *resolver {
	r := &resolver{env: env, inputs: map[string]Input{}, keyring: map[string]keyringResult{}, input: map[string]keyringResult{}}
	for _, in := range inputs {
		r.inputs[in.ID] = in
	}
	return r
}

// expandPath resolves a value that may start with ~ (command, cwd, args,
// envFile) and then its variables.
func (r *resolver) expandPath(s, field string) (string, error) {
	if rest, ok := tildeRest(s); ok {
		if r.env.Home == "" {
			return "", fmt.Errorf("%s starts with ~, but the home directory is not known", field)
		}
		v, err := r.expand(rest, field)
		if err != nil {
			return "", err
		}
		return r.env.Home + v, nil
	}
	return r.expand(s, field)
}

// tildeRest reports whether s is "~" or starts with "~/" (or `~\` on
// Windows), and returns what follows the ~.
func tildeRest(s string) (string, bool) {
	if s == "~" {
		return "", true
	}
	if len(s) >= 2 && s[0] == '~' && (s[1] == '/' || s[1] == os.PathSeparator) {
		return s[1:], true
	}
	return "", false
}

// expand resolves every ${...} in s. "$" not followed by "{" is literal.
func (r *resolver) expand(s, field string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		j := strings.Index(s, "${")
		if j < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:j])
		s = s[j:]
		end := closingBrace(s)
		if end < 0 {
			return "", fmt.Errorf(`%s has "${" without a closing "}"`, field)
		}
		v, err := r.variable(s[2:end], field)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		s = s[end+1:]
	}
}

// closingBrace returns the index of the "}" that closes the "${" at s[0],
// counting nested "${", or -1.
func closingBrace(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			depth++
			i++
		case s[i] == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// variable resolves the text between "${" and "}".
func (r *resolver) variable(inner, field string) (string, error) {
	switch {
	case inner == "":
		return "", fmt.Errorf("%s has an empty ${}", field)
	case inner == "userHome":
		if r.env.Home == "" {
			return "", errors.New("${userHome} is not available: the home directory is not known")
		}
		return r.env.Home, nil
	case inner == "self":
		if r.env.Self == "" {
			return "", errors.New("${self} is not available: the path of mcptray's executable is not known")
		}
		return r.env.Self, nil
	case inner == "pathSeparator" || inner == "/":
		return string(os.PathSeparator), nil
	case vscodeOnly[inner] || hasAnyPrefix(inner, vscodeOnlyPrefixes):
		return "", fmt.Errorf("${%s} is not supported outside VS Code", inner)
	case strings.HasPrefix(inner, "env:"):
		name, def, hasDef := strings.Cut(inner[len("env:"):], ":-")
		if name == "" {
			return "", fmt.Errorf("%s has ${env:} without a variable name", field)
		}
		return r.lookup("env:"+name, name, def, hasDef, field)
	case strings.HasPrefix(inner, "keyring:"):
		return r.keyringValue(inner[len("keyring:"):], field)
	case strings.HasPrefix(inner, "input:"):
		id := inner[len("input:"):]
		if id == "" {
			return "", fmt.Errorf("%s has ${input:} without an input id", field)
		}
		in, ok := r.inputs[id]
		if !ok {
			return "", fmt.Errorf(`${input:%s} has no matching entry in "inputs"`, id)
		}
		return r.inputValue(in)
	}
	name, def, hasDef := strings.Cut(inner, ":-")
	if !isIdentifier(name) {
		return "", fmt.Errorf("unknown variable ${%s}", inner)
	}
	return r.lookup(name, name, def, hasDef, field)
}

// inputValue resolves ${input:ID} through Env.Input, once per Parse call.
func (r *resolver) inputValue(in Input) (string, error) {
	if r.env.Input == nil {
		return "", fmt.Errorf("${input:%s} cannot be asked for here (no inbox)", in.ID)
	}
	res, ok := r.input[in.ID]
	if !ok {
		v, err := r.env.Input(in)
		res = keyringResult{value: v, err: err}
		r.input[in.ID] = res
	}
	switch {
	case res.err == nil:
		return res.value, nil
	case errors.Is(res.err, ErrInputNotGiven):
		return "", &InputNeededError{Input: in}
	}
	cause, _ := keyringCause(res.err)
	return "", fmt.Errorf("reading ${input:%s}: %v", in.ID, cause)
}

// lookup reads an environment variable; shown is how the message names it
// (NAME or env:NAME). With a default, an unset or empty variable takes the
// default, itself expanded; without one, an unset variable is an error.
func (r *resolver) lookup(shown, name, def string, hasDef bool, field string) (string, error) {
	v, ok := "", false
	if r.env.Lookup != nil {
		v, ok = r.env.Lookup(name)
	}
	if hasDef && (!ok || v == "") {
		return r.expand(def, field)
	}
	if !ok {
		return "", fmt.Errorf("variable ${%s} is not set", shown)
	}
	return v, nil
}

func (r *resolver) keyringValue(name, field string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%s has ${keyring:} without an entry name", field)
	}
	if r.env.Keyring == nil {
		return "", fmt.Errorf("keyring not available for ${keyring:%s}", name)
	}
	res, ok := r.keyring[name]
	if !ok {
		v, err := r.env.Keyring(name)
		res = keyringResult{value: v, err: err}
		r.keyring[name] = res
	}
	if res.err == nil {
		return res.value, nil
	}
	cause, notFound := keyringCause(res.err)
	if notFound {
		return "", fmt.Errorf("keyring entry %q not found (`mcptray secret set %s` stores it)", name, name)
	}
	return "", fmt.Errorf("reading keyring entry %q: %v", name, cause)
}

// keyringCause strips the context that wrappers added with fmt.Errorf's %w
// (the caller's `reading "keyring/NAME": ...`, which this package's message
// already says) down to the error that states the cause, and reports
// whether that cause is a missing entry: ErrKeyringNotFound anywhere in the
// chain, or a plain sentinel whose text says "not found" (go-keyring's
// ErrNotFound, app/keyring's ErrNotFound).
func keyringCause(err error) (cause error, notFound bool) {
	cause = err
	for {
		u, ok := cause.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			break
		}
		cause = u.Unwrap()
	}
	_, joins := cause.(interface{ Unwrap() []error })
	return cause, errors.Is(err, ErrKeyringNotFound) || !joins && strings.Contains(cause.Error(), "not found")
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// isIdentifier reports whether s is a shell-style variable name.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
