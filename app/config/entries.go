package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Server entries that mcptray writes itself: `mcptray add`/`remove` and the
// Servers tab's Add, Edit and Remove. Both go through File.Add and
// File.Remove, the only functions that add, change or take out an entry of
// mcp.json (a toggle only rewrites "disabled": File.SetEnabled). Each is a
// minimal edit (SetMember, RemoveMember; every other byte kept) made with
// the File's edit (file.go); the watcher of a running instance applies it
// like any other edit of the file.

// Entry is one entry of mcp.json as `mcptray add` and the Servers
// tab's form give it: stdio (Command, Args, Env, Cwd) or http (URL,
// Headers). Values are written as given, variables included
// (`${env:HOME}`, `${keyring:NAME}`); a Var marked Secret goes to the
// keyring instead.
type Entry struct {
	Name    string
	Command string
	Args    []string
	Env     []Var // stdio, in order
	Cwd     string
	URL     string
	Headers []Var // http, in order
	// Disabled writes "disabled": true: the server is added turned off.
	// Editing an entry never turns it on; the toggle does.
	Disabled bool
	// Kept names the keys of an entry as written that File.Entry
	// read but that the form does not show (envFile, x-mcptray, …): an
	// edit keeps them. Ignored when writing.
	Kept []string
}

// Var is one env variable or header of a Entry.
type Var struct {
	Key   string
	Value string
	// Secret: Value goes to the keyring as ${keyring:SERVER-KEY} (see
	// SecretRef), and the entry gets that reference.
	Secret bool
}

// IsHTTP reports whether e is an http entry: it has a URL.
func (e Entry) IsHTTP() bool { return e.URL != "" }

// SecretRef is the keyring name under which the value of a secret env
// variable or header key of server name is kept: NAME-KEY, used as
// ${keyring:NAME-KEY}.
func SecretRef(server, key string) string { return server + "-" + key }

// AddOptions say how an entry is written.
type AddOptions struct {
	// Replace edits an entry that has the name already, in place: the keys
	// an Entry sets (type, command, args, env, cwd, url, headers) are
	// rewritten, the others (disabled, envFile, x-mcptray, unknown ones)
	// kept. Without it such an entry is refused (ErrServerExists).
	Replace bool
	// SecretValue gives the value of a Secret Var whose Value is empty:
	// `mcptray add --secret KEY` asks for it here, after the entry was
	// checked, so nobody types a secret for an entry that is refused. nil:
	// an empty secret is an error.
	SecretValue func(key string) (string, error)
	// StoreSecret stores ${keyring:name}: in the OS keyring (keyring.SetSecret,
	// without an instance), or through a running instance, which restarts
	// the servers using it. nil: an entry with a Secret Var is refused.
	StoreSecret func(name, value string) error
	// Env resolves the entry's variables for the check of the entry as it
	// will be written (Parse's).
	Env Env
}

// AddResult is what File.Add did.
type AddResult struct {
	Replaced bool     // an entry of that name was edited
	Secrets  []string // the ${keyring:NAME} names stored, in order
	Created  bool     // mcp.json did not exist: it was written as on a first run, with the entry
}

// ErrServerExists is wrapped by adding an entry whose name is taken.
var ErrServerExists = errors.New("a server of that name exists")

// ErrNoServer is wrapped when the file has no entry of the name asked for.
// It is app.ErrNoServer too: one error for "no such server", whether the
// file or the running instance says it.
var ErrNoServer = errors.New("no such server")

// ErrNotWaiting is wrapped when an entry asked to be approved does not
// wait for approval (app.Core.ApproveServer, the control API's 409).
var ErrNotWaiting = errors.New("it does not wait for approval")

// EntryError refuses an entry before anything is written: Field names
// what is wrong ("name", "command", "url", "cwd", "env.KEY",
// "headers.KEY", "args"; "" for the entry as a whole) for a form to show
// it there; Reason is one line for a person, never with a secret value.
type EntryError struct {
	Field  string
	Reason string
	Err    error // what it wraps (ErrServerExists), if anything
}

func (e *EntryError) Error() string { return e.Reason }
func (e *EntryError) Unwrap() error { return e.Err }

// maxServerName bounds a name mcptray writes: with "__" and a tool's name
// it makes the gateway's tool names, which clients cut at 64.
const maxServerName = 40

// CheckServerName says why name cannot be the name of an entry mcptray
// writes. Names in mcp.json may be anything; the ones mcptray adds are
// what every place a name goes takes unchanged: the gateway's tool names
// ("NAME__tool": letters, digits, _ and -), log files (logs/NAME.log),
// the HTTP routes (/servers/NAME/mcp) and keyring names (NAME-KEY). So: a
// letter or digit, then letters, digits, _ and -, at most 40, no "__"
// (the gateway's separator), and not "mcptray" (its own tools' prefix).
func CheckServerName(name string) error {
	switch {
	case name == "":
		return errors.New("the server's name is empty")
	case len(name) > maxServerName:
		return fmt.Errorf("a server's name is at most %d characters", maxServerName)
	case strings.Contains(name, "__"):
		return errors.New(`a server's name may not hold "__" (it separates the server from the tool in tool names)`)
	case strings.EqualFold(name, "mcptray"):
		return errors.New(`"mcptray" is the name of mcptray's own tools; choose another`)
	}
	for i, r := range name {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !letter && (i == 0 || r != '_' && r != '-') {
			return errors.New("a server's name has letters, digits, _ and - only, and starts with a letter or a digit")
		}
	}
	return nil
}

// Sections of mcp.json holding entries: Claude Desktop's and VS Code's.
var entrySections = []string{"mcpServers", "servers"}

// ownedKeys are the keys of an entry a Entry sets; an edit rewrites
// these and keeps the rest.
var ownedKeys = []string{"type", "command", "args", "env", "cwd", "url", "headers"}

// entryJSON is e's entry, in the order DESIGN.md writes them (type for
// http only, unless withType); Secret vars are written as their
// ${keyring:…} references.
func entryJSON(e Entry, withType bool) []rawMember {
	var out []rawMember
	add := func(key string, v any) {
		b, _ := json.Marshal(v)
		out = append(out, rawMember{key, b})
	}
	vars := func(vs []Var) json.RawMessage {
		b := []byte("{")
		for i, v := range vs {
			if i > 0 {
				b = append(b, ',')
			}
			k, _ := json.Marshal(v.Key)
			value := v.Value
			if v.Secret {
				value = "${keyring:" + SecretRef(e.Name, v.Key) + "}"
			}
			val, _ := json.Marshal(value)
			b = append(append(append(b, k...), ':'), val...)
		}
		return append(b, '}')
	}
	if e.IsHTTP() {
		add("type", TypeHTTP)
		add("url", e.URL)
		if len(e.Headers) > 0 {
			out = append(out, rawMember{"headers", vars(e.Headers)})
		}
	} else {
		if withType {
			add("type", TypeStdio)
		}
		add("command", e.Command)
		if len(e.Args) > 0 {
			add("args", e.Args)
		}
		if len(e.Env) > 0 {
			out = append(out, rawMember{"env", vars(e.Env)})
		}
		if e.Cwd != "" {
			add("cwd", e.Cwd)
		}
	}
	return out
}

type rawMember struct {
	key   string
	value json.RawMessage
}

func objectOf(ms []rawMember) json.RawMessage {
	b := []byte("{")
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(m.key)
		b = append(append(append(b, k...), ':'), m.value...)
	}
	return append(b, '}')
}

// checkForm checks what a form can get wrong before the entry is built
// (the name aside): one of command and url, the keys of env and headers.
func checkForm(e Entry) error {
	switch {
	case e.URL != "" && (e.Command != "" || len(e.Args) > 0 || len(e.Env) > 0 || e.Cwd != ""):
		return &EntryError{Field: "url", Reason: "an entry is either a command (stdio) or a URL (http), not both"}
	case e.URL == "" && strings.TrimSpace(e.Command) == "":
		return &EntryError{Field: "command", Reason: "the entry needs a command (stdio) or a URL (http)"}
	case e.URL == "" && len(e.Headers) > 0:
		return &EntryError{Field: "headers", Reason: "headers go with a URL (http)"}
	}
	for _, group := range []struct {
		what string
		vars []Var
	}{{"env", e.Env}, {"headers", e.Headers}} {
		seen := map[string]bool{}
		for _, v := range group.vars {
			field := group.what + "." + v.Key
			switch {
			case v.Key == "":
				return &EntryError{Field: group.what, Reason: fmt.Sprintf("a name in %s is empty", group.what)}
			case seen[v.Key]:
				return &EntryError{Field: field, Reason: fmt.Sprintf("%s %s is given twice", group.what, v.Key)}
			}
			seen[v.Key] = true
			if v.Secret {
				if err := CheckSecretName(SecretRef(e.Name, v.Key)); err != nil {
					return &EntryError{Field: field, Reason: fmt.Sprintf("%s cannot be a secret: its keyring name %s-%s must have letters, digits and . _ - / @ + : only", v.Key, e.Name, v.Key)}
				}
				if len(v.Value) > MaxSecretValue {
					return &EntryError{Field: field, Reason: fmt.Sprintf("the value of %s has %d bytes; a secret holds at most %d", v.Key, len(v.Value), MaxSecretValue)}
				}
			}
		}
	}
	return nil
}

// Add is the one place where mcptray writes a server entry of mcp.json
// (the CLI's `add` and the Servers tab's Add and Edit come here), as one
// edit of f. It:
//
//  1. checks e (CheckServerName, command or URL, env and header names);
//  2. refuses a name that is taken, unless opts.Replace;
//  3. makes the edit in memory: a new entry after the last one of
//     "mcpServers" (or of "servers" in a VS Code file), or the owned keys
//     of the existing entry rewritten in place;
//  4. checks the entry as it will be written, with the validation loading
//     mcp.json uses (Parse on opts.Env): an entry a running instance
//     would refuse is refused here, with the reason, and nothing is
//     written. A ${keyring:…} about to be stored counts as set, an
//     ${input:ID} not given yet as fine (the instance asks for it);
//  5. stores the secrets (opts.SecretValue, opts.StoreSecret);
//  6. writes the file with f's Writer: mcptray's own edit, so the entry
//     needs no approval when f is the app's (see the package doc).
//
// A missing mcp.json is written as on a first run (Default), with
// the entry.
func (f *File) Add(e Entry, opts AddOptions) (AddResult, error) {
	var res AddResult
	err := f.edit(true, func(data []byte) ([]byte, error) {
		missing := data == nil
		var sections []string
		var err error
		if !missing {
			if sections, err = entrySectionsOf(data, e.Name); err != nil {
				return nil, err
			}
		}
		// A new name must be one mcptray can use everywhere; an entry being
		// edited keeps the name the file gives it.
		if len(sections) == 0 || e.Name == "" {
			if err := CheckServerName(e.Name); err != nil {
				return nil, &EntryError{Field: "name", Reason: err.Error()}
			}
		}
		if err := checkForm(e); err != nil {
			return nil, err
		}
		if missing {
			// The first-run file, written with the entry (nothing is written
			// when the entry is refused).
			data = Default()
			if sections, err = entrySectionsOf(data, e.Name); err != nil {
				return nil, err
			}
		}
		var out []byte
		if len(sections) > 0 {
			if !opts.Replace {
				return nil, &EntryError{Field: "name", Reason: fmt.Sprintf("%s: %v in %s (remove it first: mcptray remove %s; or replace it: --replace)", e.Name, ErrServerExists, f.path, e.Name), Err: ErrServerExists}
			}
			res.Replaced = true
			out, err = editEntry(data, sections, e)
		} else {
			out, err = insertEntry(data, e)
		}
		if err != nil {
			return nil, err
		}
		if len(out) > MaxFileSize {
			return nil, &EntryError{Field: "", Reason: fmt.Sprintf("mcp.json would be %d bytes; mcptray reads at most %d", len(out), MaxFileSize)}
		}
		if err := checkEntry(out, e, opts.Env); err != nil {
			return nil, err
		}
		if err := storeSecrets(e, opts, &res); err != nil {
			return nil, err
		}
		if missing {
			if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
				return nil, fmt.Errorf("creating the config directory: %w", err)
			}
			res.Created = true
		}
		return out, nil
	})
	return res, err
}

// entrySectionsOf returns the sections ("mcpServers", "servers") holding
// an entry called name.
func entrySectionsOf(data []byte, name string) ([]string, error) {
	var out []string
	for _, sec := range entrySections {
		_, found, err := Lookup(data, []string{sec, name})
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, sec)
		}
	}
	return out, nil
}

// insertEntry adds e as a new entry: to "mcpServers", or to "servers" in a
// file that has only VS Code's (whose entries name their type).
func insertEntry(data []byte, e Entry) ([]byte, error) {
	sec := "mcpServers"
	_, hasMCP, err := Lookup(data, []string{"mcpServers"})
	if err != nil {
		return nil, err
	}
	if _, hasVS, _ := Lookup(data, []string{"servers"}); hasVS && !hasMCP {
		sec = "servers"
	}
	ms := entryJSON(e, sec == "servers")
	if e.Disabled {
		ms = append(ms, rawMember{"disabled", json.RawMessage("true")})
	}
	return SetMember(data, []string{sec, e.Name}, objectOf(ms))
}

// editEntry rewrites the owned keys of the entry e.Name in each of
// sections: set to e's values (unchanged ones untouched), or taken out
// when e has none. "type" stays when it still says the same.
func editEntry(data []byte, sections []string, e Entry) ([]byte, error) {
	for _, sec := range sections {
		path := []string{sec, e.Name}
		raw, _, err := Lookup(data, path)
		if err != nil {
			return nil, err
		}
		var old map[string]json.RawMessage
		if json.Unmarshal(raw, &old) != nil {
			// Not an object: the whole value is replaced.
			if data, err = SetMember(data, path, objectOf(entryJSON(e, sec == "servers"))); err != nil {
				return nil, err
			}
			continue
		}
		withType := sec == "servers" || old["type"] != nil
		ms := entryJSON(e, withType)
		for _, key := range ownedKeys {
			i := slices.IndexFunc(ms, func(m rawMember) bool { return m.key == key })
			switch {
			case key == "type" && i >= 0 && sameType(old["type"], e.IsHTTP()):
				// "sse", "streamable-http": still http; kept as written.
			case i >= 0:
				data, err = SetMember(data, append(path, key), ms[i].value)
			case old[key] != nil:
				data, err = RemoveMember(data, append(path, key))
			}
			if err != nil {
				return nil, err
			}
		}
		if e.Disabled {
			if data, err = SetDisabled(data, e.Name, true); err != nil {
				return nil, err
			}
		}
	}
	return data, nil
}

// sameType reports whether the "type" value raw says http (or stdio,
// when not http), as loading reads it.
func sameType(raw json.RawMessage, http bool) bool {
	var t string
	if json.Unmarshal(raw, &t) != nil {
		return false
	}
	switch strings.ToLower(t) {
	case "http", "sse", "streamable-http", "streamablehttp":
		return http
	case "stdio":
		return !http
	}
	return false
}

// checkEntry validates the entry e.Name of out (the file as it will be
// written) the way loading mcp.json does: Parse of that entry
// alone, with the file's "inputs".
func checkEntry(out []byte, e Entry, env Env) error {
	pending := map[string]bool{}
	for _, v := range append(slices.Clone(e.Env), e.Headers...) {
		if v.Secret {
			pending[SecretRef(e.Name, v.Key)] = true
		}
	}
	keyring := env.Keyring
	env.Keyring = func(name string) (string, error) {
		if pending[name] {
			return "stored with the entry", nil // a placeholder: only the entry's shape is checked
		}
		if keyring == nil {
			return "", errors.New("the keyring is not available")
		}
		return keyring(name)
	}
	for _, sec := range entrySections {
		raw, found, err := Lookup(out, []string{sec, e.Name})
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		doc := []rawMember{{sec, objectOf([]rawMember{{e.Name, raw}})}}
		if inputs, ok, _ := Lookup(out, []string{"inputs"}); ok {
			doc = append(doc, rawMember{"inputs", inputs})
		}
		cfg, err := Parse(objectOf(doc), env)
		if err != nil {
			return &EntryError{Field: "", Reason: err.Error()}
		}
		for _, s := range cfg.Servers {
			var need *InputNeededError
			if s.Err == nil || errors.As(s.Err, &need) {
				continue
			}
			reason := s.Err.Error()
			field := reasonField(strings.TrimPrefix(reason, e.Name+": "))
			if field == "" {
				field = variableField(e, reason)
			}
			return &EntryError{Field: field, Reason: reason}
		}
	}
	return nil
}

// reasonField guesses the field a reason of config's is about, from the way
// it names it (`"url" must …`, `env.KEY …`, `args[2] …`).
func reasonField(reason string) string {
	for _, key := range []string{"command", "url", "cwd", "args"} {
		if strings.HasPrefix(reason, `"`+key+`"`) || strings.HasPrefix(reason, key+"[") {
			return key
		}
	}
	for _, group := range []string{"env", "headers"} {
		if rest, ok := strings.CutPrefix(reason, group+"."); ok {
			key, _, _ := strings.Cut(rest, " ")
			return group + "." + key
		}
	}
	switch {
	case strings.HasPrefix(reason, "env name "):
		return "env"
	case strings.HasPrefix(reason, "header name "):
		return "headers"
	}
	return ""
}

// variableField finds the field of e holding the variable a reason names
// (`variable ${env:X} is not set`, `keyring entry "X" not found`).
func variableField(e Entry, reason string) string {
	needle := ""
	if i := strings.Index(reason, "${"); i >= 0 {
		if j := strings.IndexByte(reason[i:], '}'); j > 0 {
			needle = reason[i : i+j+1]
		}
	} else if rest, ok := strings.CutPrefix(reason[strings.Index(reason, ": ")+2:], `keyring entry "`); ok {
		name, _, _ := strings.Cut(rest, `"`)
		needle = "${keyring:" + name + "}"
	}
	if needle == "" {
		return ""
	}
	for _, f := range []struct{ field, value string }{{"command", e.Command}, {"cwd", e.Cwd}, {"url", e.URL}} {
		if strings.Contains(f.value, needle) {
			return f.field
		}
	}
	for _, a := range e.Args {
		if strings.Contains(a, needle) {
			return "args"
		}
	}
	for _, v := range e.Env {
		if strings.Contains(v.Value, needle) {
			return "env." + v.Key
		}
	}
	for _, v := range e.Headers {
		if strings.Contains(v.Value, needle) {
			return "headers." + v.Key
		}
	}
	return ""
}

// storeSecrets stores e's Secret vars under their SecretRef names.
func storeSecrets(e Entry, opts AddOptions, res *AddResult) error {
	store := opts.StoreSecret
	if store == nil {
		store = func(string, string) error { return errors.New("no keyring given to store it in") }
	}
	for _, v := range append(slices.Clone(e.Env), e.Headers...) {
		if !v.Secret {
			continue
		}
		value := v.Value
		if value == "" && opts.SecretValue != nil {
			var err error
			if value, err = opts.SecretValue(v.Key); err != nil {
				return err
			}
		}
		if value == "" {
			return &EntryError{Field: "", Reason: fmt.Sprintf("the secret %s has no value: nothing written", v.Key)}
		}
		ref := SecretRef(e.Name, v.Key)
		if err := store(ref, value); err != nil {
			return fmt.Errorf("storing ${keyring:%s}: %w (nothing written to mcp.json)", ref, err)
		}
		res.Secrets = append(res.Secrets, ref)
	}
	return nil
}

// Remove is the one place where mcptray takes a server entry out of
// mcp.json (`mcptray remove`, the Servers tab's Remove), as one edit of f:
// every definition of name (in "mcpServers" and "servers"), each with its
// line. It returns the ${keyring:NAME} names the entry referenced, and
// deletes none (another entry may use them). A name the file does not have
// wraps ErrNoServer.
func (f *File) Remove(name string) ([]string, error) {
	var secrets []string
	err := f.Edit(func(data []byte) ([]byte, error) {
		sections, err := entrySectionsOf(data, name)
		if err != nil {
			return nil, err
		}
		if len(sections) == 0 {
			return nil, fmt.Errorf("%w: %q in %s", ErrNoServer, name, f.path)
		}
		out := data
		for _, sec := range sections {
			raw, _, err := Lookup(out, []string{sec, name})
			if err != nil {
				return nil, err
			}
			for _, s := range keyringRefs(raw) {
				if !slices.Contains(secrets, s) {
					secrets = append(secrets, s)
				}
			}
			if out, err = RemoveMember(out, []string{sec, name}); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return secrets, nil
}

var keyringRef = regexp.MustCompile(`\$\{keyring:([^}]+)\}`)

// keyringRefs lists the ${keyring:NAME} names in the strings of raw, in
// order, once each.
func keyringRefs(raw json.RawMessage) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			for _, m := range keyringRef.FindAllStringSubmatch(v, -1) {
				if !slices.Contains(out, m[1]) {
					out = append(out, m[1])
				}
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(v[k])
			}
		}
	}
	walk(v)
	return out
}

// Entry reads the entry called name of the file as written (variables unresolved), for an edit: env and headers in file
// order, the keys it does not show in Kept. An entry the form cannot show
// (a value of the wrong JSON type) is an error saying so.
func (f *File) Entry(name string) (Entry, error) {
	e := Entry{Name: name}
	path := f.path
	data, err := ReadFile(path)
	if err != nil {
		return e, err
	}
	sections, err := entrySectionsOf(data, name)
	if err != nil {
		return e, err
	}
	if len(sections) == 0 {
		return e, fmt.Errorf("%w: %q in %s", ErrNoServer, name, path)
	}
	entryPath := []string{sections[0], name}
	members, err := Members(data, entryPath)
	if err != nil {
		return e, fmt.Errorf("%s cannot be edited here: %v", name, err)
	}
	bad := func(key, want string) error {
		return fmt.Errorf("%s cannot be edited here: %q is not %s (edit mcp.json)", name, key, want)
	}
	str := func(m Member, dst *string) error {
		if json.Unmarshal(m.Value, dst) != nil {
			return bad(m.Key, "a string")
		}
		return nil
	}
	for _, m := range members {
		switch m.Key {
		case "type":
			var t string
			if err := str(m, &t); err != nil {
				return e, err
			}
		case "command":
			err = str(m, &e.Command)
		case "cwd":
			err = str(m, &e.Cwd)
		case "url":
			err = str(m, &e.URL)
		case "args":
			if json.Unmarshal(m.Value, &e.Args) != nil {
				err = bad(m.Key, "a list of strings")
			}
		case "env", "headers":
			vars, verr := varsOf(data, append(entryPath, m.Key))
			if verr != nil {
				err = bad(m.Key, "an object of strings")
			}
			if m.Key == "env" {
				e.Env = vars
			} else {
				e.Headers = vars
			}
		case "disabled", "enabled":
			var b bool
			if json.Unmarshal(m.Value, &b) != nil {
				err = bad(m.Key, "true or false")
			}
			if b == (m.Key == "disabled") {
				e.Disabled = true
			}
		default:
			if !slices.Contains(e.Kept, m.Key) {
				e.Kept = append(e.Kept, m.Key)
			}
		}
		if err != nil {
			return e, err
		}
	}
	return e, nil
}

// varsOf reads the object of strings at path, in file order.
func varsOf(data []byte, path []string) ([]Var, error) {
	ms, err := Members(data, path)
	if err != nil {
		return nil, err
	}
	var out []Var
	for _, m := range ms {
		var v string
		if err := json.Unmarshal(m.Value, &v); err != nil {
			return nil, err
		}
		out = append(out, Var{Key: m.Key, Value: v})
	}
	return out, nil
}

// IsKeyringRef reports whether value is exactly one ${keyring:NAME}: a
// secret kept in the keyring, which a form shows as such and keeps.
func IsKeyringRef(value string) bool {
	m := keyringRef.FindStringIndex(value)
	return m != nil && m[0] == 0 && m[1] == len(value)
}
