package config

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// The values of an entry's environment and headers choose what runs as
// much as its command line does (NODE_OPTIONS=--require …, LD_PRELOAD,
// PATH): a changed value needs a yes like a changed name. A Launch keeps
// a keyed hash of each value, never the value: HMAC-SHA-256 under the
// install's key (Env.LaunchKey, a file in the data dir), so a fingerprint
// that reaches a log or the database cannot be used to guess a value.
//
// The value hashed is the value as written in mcp.json (or the envFile),
// with ${self}, ${userHome} and a leading ~ expanded and every other
// variable left as written. So rotating the secret behind a
// ${keyring:NAME} changes nothing and asks nothing; and a new value
// behind ${env:X} is not a change either: mcptray's own environment is
// the person's, and every server inherits it whole anyway, so hashing
// what ${env:X} expands to would guard nothing the inherited variables do
// not already pass through (docs/security.md, "What a launch is").

// valueHash is the keyed hash of one value, under key.
func valueHash(key []byte, kind, name, value string) string {
	h := hmac.New(sha256.New, key)
	field(h, "value/1", kind, name, value)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// codeEnv are the environment variables known to choose which code runs
// (an interpreter's preload or search path, a dynamic linker's, a package
// registry): a prompt shows their new value in full. No such list can be
// complete, which is why every other value counts too (shown as "value
// changed").
var codeEnv = []string{
	"BASH_ENV", "CLASSPATH", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH", "ENV",
	"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "LD_AUDIT", "LD_LIBRARY_PATH", "LD_PRELOAD",
	"NODE_OPTIONS", "NODE_PATH", "PATH", "PERL5LIB", "PERL5OPT", "PERLLIB",
	"PIP_EXTRA_INDEX_URL", "PIP_INDEX_URL", "PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP",
	"PYTHONUSERBASE", "RUBYLIB", "RUBYOPT", "UV_EXTRA_INDEX_URL", "UV_INDEX_URL", "_JAVA_OPTIONS",
}

// LoadsCode reports whether the environment variable name is one known to
// choose which code runs; npm's settings (npm_config_*, any case) all are.
func LoadsCode(name string) bool {
	return slices.Contains(codeEnv, name) || strings.HasPrefix(strings.ToLower(name), "npm_config_")
}

// ValueChange is one environment variable or header whose value differs
// from the approved launch's.
type ValueChange struct {
	Name   string // the variable's or header's name
	Header bool   // a header of an HTTP entry
	// Shown is the new value as written, for a variable that LoadsCode
	// ("" otherwise: the value is not shown).
	Shown   string
	Added   bool // the approved launch had no such name
	Removed bool // the launch has no such name any more
}

// String is the change as a prompt's line: "NODE_OPTIONS: --require x",
// "API_KEY: value changed".
func (v ValueChange) String() string {
	switch {
	case v.Removed:
		return v.Name + ": removed"
	case v.Shown != "":
		return v.Name + ": " + Visible(v.Shown)
	case v.Added:
		return v.Name + ": added"
	}
	return v.Name + ": value changed"
}

// ValueChanges lists the values of l that differ from approved's (its
// Values), by name.
func (l Launch) ValueChanges(approved map[string]string) []ValueChange {
	var out []ValueChange
	for _, k := range sortedKeys(l.Values) {
		old, had := approved[k]
		if had && old == l.Values[k] {
			continue
		}
		kind, name, _ := strings.Cut(k, ":")
		c := ValueChange{Name: name, Header: kind == "header", Added: !had}
		if kind != "header" && LoadsCode(name) {
			c.Shown = l.shown[k]
		}
		out = append(out, c)
	}
	for _, k := range sortedKeys(approved) {
		if _, ok := l.Values[k]; !ok {
			kind, name, _ := strings.Cut(k, ":")
			out = append(out, ValueChange{Name: name, Header: kind == "header", Removed: true})
		}
	}
	return out
}

// addValue records the keyed hash of one value of l, and the value as
// written when it is a variable that LoadsCode.
func (l *Launch) addValue(key []byte, kind, name, value string) {
	if l.Values == nil {
		l.Values, l.shown = map[string]string{}, map[string]string{}
	}
	k := kind + ":" + name
	l.Values[k] = valueHash(key, kind, name, value)
	if kind != "header" && LoadsCode(name) {
		l.shown[k] = value
	}
}
