package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"
)

// serverTypes maps the "type" values other clients write to ours.
var serverTypes = map[string]string{
	"stdio":           TypeStdio,
	"http":            TypeHTTP,
	"sse":             TypeHTTP,
	"streamable-http": TypeHTTP,
	"streamablehttp":  TypeHTTP,
}

// entry is one server entry's fields, type-checked but not yet resolved.
type entry struct {
	typ, command, envFile, cwd, url string
	args                            []string
	env, headers                    []pair // in file order
	hasCommand, hasURL              bool
}

type pair struct{ key, value string }

// buildServer validates and resolves one entry. It never fails: a problem
// becomes the returned Server's Err.
func buildServer(name string, n *node, text []byte, r *resolver, env Env) Server {
	s := Server{Name: name}
	// reason refuses the entry. What was resolved is dropped, so a secret
	// read before the failure does not linger in a Server nobody runs.
	reason := func(err error) Server {
		refused := Server{Name: name, Type: s.Type, Disabled: s.Disabled, Settings: s.Settings, Rules: s.Rules, Launch: s.Launch}
		if name == "" {
			refused.Err = errors.New("a server has an empty name")
		} else if ine := (*InputNeededError)(nil); errors.As(err, &ine) {
			refused.Err = fmt.Errorf("%s: %w", name, ine) // the app asks for it
		} else {
			refused.Err = fmt.Errorf("%s: %v", name, err)
		}
		return refused
	}
	if n.kind != kindObject {
		return reason(fmt.Errorf("must be an object, got %s", n.kind))
	}
	disabled, err := readDisabled(n, text)
	s.Disabled = disabled
	if err != nil {
		return reason(err)
	}
	if name == "" {
		return reason(nil)
	}
	e, err := readEntry(n, text)
	if err != nil {
		return reason(err)
	}
	if v := n.get("x-mcptray"); v != nil {
		if v.kind != kindObject {
			return reason(fmt.Errorf(`"x-mcptray" must be an object, got %s`, v.kind))
		}
		s.Settings = compactMembers(text, v)
		if s.Rules, err = parseRules(v, text); err != nil {
			return reason(err)
		}
	}
	if s.Type, err = e.kind(); err != nil {
		return reason(err)
	}
	oauth, err := readOAuth(n, text)
	if err != nil {
		return reason(err)
	}
	if oauth != nil && s.Type != TypeHTTP {
		return reason(errors.New(`"oauth" goes with a remote server ("url"), not a stdio one`))
	}
	s.Launch = launchOf(e, s.Type, env)
	oauth.addToLaunch(&s.Launch, env.LaunchKey)
	if s.Type == TypeHTTP {
		err = e.resolveHTTP(&s, r)
		if err == nil && oauth != nil {
			s.OAuth, err = oauth.resolve(r)
		}
	} else {
		err = e.resolveStdio(&s, r, env.Dir)
	}
	if err != nil {
		return reason(err)
	}
	return s
}

// readDisabled reads "disabled" and "enabled"; the entry is disabled when
// either says so.
func readDisabled(n *node, text []byte) (bool, error) {
	disabled := false
	for _, key := range []string{"disabled", "enabled"} {
		v := n.get(key)
		if v == nil {
			continue
		}
		if v.kind != kindBool {
			return disabled, fmt.Errorf("%q must be true or false, got %s", key, v.kind)
		}
		if v.boolean(text) == (key == "disabled") {
			disabled = true
		}
	}
	return disabled, nil
}

// readEntry checks the JSON type of every field it knows. Unknown fields are
// ignored.
func readEntry(n *node, text []byte) (*entry, error) {
	e := &entry{}
	for _, f := range []struct {
		key string
		dst *string
	}{{"type", &e.typ}, {"command", &e.command}, {"envFile", &e.envFile}, {"cwd", &e.cwd}, {"url", &e.url}} {
		v := n.get(f.key)
		if v == nil {
			continue
		}
		if v.kind != kindString {
			return nil, fmt.Errorf("%q must be a string, got %s", f.key, v.kind)
		}
		*f.dst = v.str(text)
	}
	e.hasCommand, e.hasURL = e.command != "", e.url != ""
	if v := n.get("args"); v != nil {
		if v.kind != kindArray {
			return nil, fmt.Errorf(`"args" must be an array of strings, got %s`, v.kind)
		}
		for i, a := range v.elems {
			if a.kind != kindString {
				return nil, fmt.Errorf("args[%d] must be a string, got %s", i, a.kind)
			}
			e.args = append(e.args, a.str(text))
		}
	}
	var err error
	if e.env, err = stringObject(n, text, "env"); err != nil {
		return nil, err
	}
	if e.headers, err = stringObject(n, text, "headers"); err != nil {
		return nil, err
	}
	return e, nil
}

// stringObject reads an object whose values must all be strings.
func stringObject(n *node, text []byte, key string) ([]pair, error) {
	v := n.get(key)
	if v == nil {
		return nil, nil
	}
	if v.kind != kindObject {
		return nil, fmt.Errorf("%q must be an object, got %s", key, v.kind)
	}
	var out []pair
	for _, m := range v.members {
		if m.value.kind != kindString {
			return nil, fmt.Errorf("%s.%s must be a string, got %s", key, m.key, m.value.kind)
		}
		out = append(out, pair{m.key, m.value.str(text)})
	}
	return out, nil
}

// kind decides the server type from "type", "command" and "url".
func (e *entry) kind() (string, error) {
	if e.typ == "" {
		switch {
		case e.hasCommand && e.hasURL:
			return "", errors.New(`has both "command" and "url"; keep one`)
		case e.hasCommand:
			return TypeStdio, nil
		case e.hasURL:
			return TypeHTTP, nil
		}
		return "", errors.New(`needs "command" (stdio) or "url" (http)`)
	}
	t, ok := serverTypes[strings.ToLower(e.typ)]
	if !ok {
		return "", fmt.Errorf(`unknown type %q (want "stdio" or "http")`, e.typ)
	}
	switch {
	case t == TypeStdio && e.hasURL:
		return "", fmt.Errorf(`type %q takes "command", not "url"`, e.typ)
	case t == TypeStdio && !e.hasCommand:
		return "", fmt.Errorf(`type %q needs "command"`, e.typ)
	case t == TypeHTTP && e.hasCommand:
		return "", fmt.Errorf(`type %q takes "url", not "command"`, e.typ)
	case t == TypeHTTP && !e.hasURL:
		return "", fmt.Errorf(`type %q needs "url"`, e.typ)
	}
	return t, nil
}

func (e *entry) resolveStdio(s *Server, r *resolver, dir string) error {
	var err error
	if s.Command, err = r.expandPath(e.command, `"command"`); err != nil {
		return err
	}
	if s.Command == "" {
		return errors.New(`"command" is empty once its variables are resolved`)
	}
	for i, a := range e.args {
		v, err := r.expandPath(a, fmt.Sprintf("args[%d]", i))
		if err != nil {
			return err
		}
		s.Args = append(s.Args, v)
	}
	if e.envFile != "" || len(e.env) > 0 {
		s.Env = map[string]string{}
	}
	if e.envFile != "" {
		if err := r.readEnvFile(e.envFile, dir, s.Env); err != nil {
			return err
		}
	}
	for _, p := range e.env {
		if p.key == "" || strings.ContainsAny(p.key, "=\x00") {
			return fmt.Errorf("env name %q is not valid", p.key)
		}
		v, err := r.expand(p.value, "env."+p.key)
		if err != nil {
			return err
		}
		if strings.ContainsRune(v, 0) {
			return fmt.Errorf("env.%s contains a NUL byte", p.key)
		}
		s.Env[p.key] = v
	}
	if e.cwd != "" {
		if s.Cwd, err = r.expandPath(e.cwd, `"cwd"`); err != nil {
			return err
		}
		s.Cwd = absUnder(dir, s.Cwd)
	}
	return nil
}

func (r *resolver) readEnvFile(raw, dir string, env map[string]string) error {
	path, err := r.expandPath(raw, `"envFile"`)
	if err != nil {
		return err
	}
	data, err := readRegular(absUnder(dir, path), MaxFileSize)
	var nr *NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("envFile %q not found", raw)
	case errors.As(err, &nr):
		return fmt.Errorf("envFile %q %v", raw, nr)
	case errors.Is(err, errTooBig):
		return fmt.Errorf("envFile %q is over %d MiB", raw, MaxFileSize>>20)
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path may hold a resolved value: leave it out
		}
		return fmt.Errorf("reading envFile %q: %v", raw, err)
	}
	vars, err := parseDotenv(string(data))
	if err != nil {
		return fmt.Errorf("envFile %q: %v", raw, err)
	}
	for k, v := range vars {
		env[k] = v
	}
	return nil
}

// absUnder makes a relative path relative to dir, when dir is known.
func absUnder(dir, path string) string {
	if dir == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

func (e *entry) resolveHTTP(s *Server, r *resolver) error {
	var err error
	if s.URL, err = r.expand(e.url, `"url"`); err != nil {
		return err
	}
	u, err := url.Parse(s.URL)
	switch {
	case err != nil:
		// url.Parse's error quotes the URL, which may hold a resolved value.
		return errors.New(`"url" is not a valid URL`)
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New(`"url" must start with http:// or https://`)
	case u.Host == "":
		return errors.New(`"url" has no host`)
	}
	if len(e.headers) > 0 {
		s.Headers = map[string]string{}
	}
	for _, p := range e.headers {
		if !validHeaderName(p.key) {
			return fmt.Errorf("header name %q is not valid", p.key)
		}
		v, err := r.expand(p.value, "headers."+p.key)
		if err != nil {
			return err
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("headers.%s contains a line break or a NUL byte", p.key)
		}
		s.Headers[p.key] = v
	}
	return nil
}

// validHeaderName accepts an HTTP token (RFC 9110 section 5.6.2).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
