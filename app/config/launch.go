package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Launch is what an entry runs, as the person approves it (DESIGN.md §14):
// the executable, its arguments, its environment variables, its working
// directory, the contents of the files it runs that the user can write;
// for an HTTP server the URL and its headers. It holds no secret value:
// ${self}, ${userHome} and a leading ~ are expanded (they are paths),
// every other variable is kept as written, so that a ${keyring:…},
// ${input:…} or ${env:…} value never shows and a new value behind one is
// not a new launch; the values themselves are kept as keyed hashes
// (launch_values.go), the files as SHA-256 sums (launch_files.go).
type Launch struct {
	Type string `json:"type"` // stdio or http
	// Command is the executable: the path it resolves to on mcptray's PATH
	// when it names no directory and is found there, else as written.
	Command     string   `json:"command,omitempty"`
	Args        []string `json:"args,omitempty"`
	EnvNames    []string `json:"envNames,omitempty"` // sorted: env's and envFile's
	EnvFile     string   `json:"envFile,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	URL         string   `json:"url,omitempty"`
	HeaderNames []string `json:"headerNames,omitempty"` // sorted
	// Values are the keyed hashes of the values of the environment
	// ("env:NAME", "envFile:NAME") and headers ("header:NAME").
	Values map[string]string `json:"values,omitempty"`
	// Files are what the launch runs of each file it names: by path,
	// "sha256:…" of a user-writable one, "system:PATH" of a system one.
	Files map[string]string `json:"files,omitempty"`

	shown     map[string]string // the values as written of the variables that LoadsCode, by Values' key
	filePaths []string          // the paths that may be files (fileCandidates), for Rehash
	root      bool              // Env.Root: every file is the user's
}

// Fingerprint is a stable hash of the launch, comparable across processes
// of one install (its values' hashes are keyed by the install's key).
// "" for an empty Launch (an entry too broken to say what it would run).
func (l Launch) Fingerprint() string {
	if l.Type == "" {
		return ""
	}
	h := sha256.New()
	field(h, "launch/2", l.FingerprintV1(), strconv.Itoa(len(l.Values)))
	for _, k := range sortedKeys(l.Values) {
		field(h, k, l.Values[k])
	}
	field(h, strconv.Itoa(len(l.Files)))
	for _, k := range sortedKeys(l.Files) {
		field(h, k, l.Files[k])
	}
	return fingerprintV2 + hex.EncodeToString(h.Sum(nil))
}

// fingerprintV2 starts every Fingerprint; one without it is a FingerprintV1.
const fingerprintV2 = "2."

// IsFingerprintV1 reports whether fp was recorded by an earlier version,
// which left out values and files (see FingerprintV1).
func IsFingerprintV1(fp string) bool { return fp != "" && !strings.HasPrefix(fp, fingerprintV2) }

// FingerprintV1 is the fingerprint earlier versions recorded: the command
// line, the names of the environment and headers, the cwd and the URL,
// without values and files. An approval recorded with it is carried over
// once to the launch's values and files as they are (the one-time
// migration).
func (l Launch) FingerprintV1() string {
	if l.Type == "" {
		return ""
	}
	h := sha256.New()
	field(h, "launch/1", l.Type, l.Command, strconv.Itoa(len(l.Args)))
	field(h, l.Args...)
	field(h, strconv.Itoa(len(l.EnvNames)))
	field(h, l.EnvNames...)
	field(h, l.EnvFile, l.Cwd, l.URL, strconv.Itoa(len(l.HeaderNames)))
	field(h, l.HeaderNames...)
	return hex.EncodeToString(h.Sum(nil))
}

// CommandLine is the launch as one line a person reads: the command and
// its arguments quoted like a shell's, or the URL.
func (l Launch) CommandLine() string {
	if l.Type == TypeHTTP {
		return l.URL
	}
	parts := make([]string, 0, 1+len(l.Args))
	for _, a := range append([]string{l.Command}, l.Args...) {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it. A string with a
// character that would not show as itself (a line break, a control or a
// bidirectional-override character) is written in $'…' form with that
// character escaped, so a prompt's one line cannot be pushed out of sight
// or reordered by what an entry's arguments hold.
func shellQuote(s string) string {
	if strings.IndexFunc(s, hidden) >= 0 {
		return ansiQuote(s)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Visible is s as a prompt shows it: itself, or in $'…' form when it holds
// a character that would not show as itself (see shellQuote).
func Visible(s string) string {
	if strings.IndexFunc(s, hidden) >= 0 {
		return ansiQuote(s)
	}
	return s
}

// hidden reports whether r would not show as itself in a line of text.
func hidden(r rune) bool {
	return r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0xfeff
}

// ansiQuote is s in a shell's $'…' form: \ and \' escaped, hidden
// characters as \n, \t, \xHH or \uHHHH.
func ansiQuote(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case hidden(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// launchOf is what entry e would run.
func launchOf(e *entry, typ string, env Env) Launch {
	l := Launch{Type: typ}
	if typ == TypeHTTP {
		l.URL = showVars(e.url, env)
		for _, p := range e.headers {
			l.HeaderNames = append(l.HeaderNames, p.key)
			l.addValue(env.LaunchKey, "header", p.key, showVars(p.value, env))
		}
		slices.Sort(l.HeaderNames)
		l.HeaderNames = slices.Compact(l.HeaderNames)
		return l
	}
	l.Command = lookPath(showVars(e.command, env), env)
	for _, a := range e.args {
		l.Args = append(l.Args, showVars(a, env))
	}
	for _, p := range e.env {
		l.EnvNames = append(l.EnvNames, p.key)
		l.addValue(env.LaunchKey, "env", p.key, showVars(p.value, env))
	}
	if e.envFile != "" {
		l.EnvFile = showVars(e.envFile, env)
		path := l.EnvFile
		if !filepath.IsAbs(path) && env.Dir != "" {
			path = filepath.Join(env.Dir, path)
		}
		if b, err := readRegular(path, MaxFileSize); err == nil {
			if vars, err := parseDotenv(string(b)); err == nil {
				for k, v := range vars {
					l.EnvNames = append(l.EnvNames, k)
					l.addValue(env.LaunchKey, "envFile", k, v)
				}
			}
		}
	}
	slices.Sort(l.EnvNames)
	l.EnvNames = slices.Compact(l.EnvNames)
	l.Cwd = showVars(e.cwd, env)
	cwd := l.Cwd
	if cwd != "" && !filepath.IsAbs(cwd) && env.Dir != "" {
		cwd = filepath.Join(env.Dir, cwd)
	}
	l.root, l.filePaths = env.Root, fileCandidates(l, cwd, env.Self)
	return l.Rehash()
}

// showVars expands the variables that are paths (${self}, ${userHome}, a
// leading ~) and keeps every other one as written.
func showVars(s string, env Env) string {
	if env.Self != "" {
		s = strings.ReplaceAll(s, "${self}", env.Self)
	}
	if env.Home != "" {
		s = strings.ReplaceAll(s, "${userHome}", env.Home)
		if s == "~" || strings.HasPrefix(s, "~/") {
			s = env.Home + s[1:]
		}
	}
	return s
}

// lookPath resolves a command that names no directory on mcptray's PATH
// (env.Lookup), as starting it does; else it returns cmd.
func lookPath(cmd string, env Env) string {
	if cmd == "" || strings.ContainsRune(cmd, '/') || strings.Contains(cmd, "${") || env.Lookup == nil {
		return cmd
	}
	path, _ := env.Lookup("PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, cmd)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
			return p
		}
	}
	return cmd
}

// Launches is what every entry of data (mcp.json) runs, by name, without
// resolving a variable (no keyring or input is read): what mcptray records
// as approved before it writes an edit of its own. An entry too broken to
// say has none; a name defined twice keeps its first definition.
func Launches(data []byte, env Env) (map[string]Launch, error) {
	text, root, err := parseRoot(data)
	if err != nil {
		return nil, err
	}
	out := map[string]Launch{}
	for _, section := range root.members {
		if (section.key != "mcpServers" && section.key != "servers") || section.value.kind != kindObject {
			continue
		}
		for _, m := range section.value.members {
			if _, dup := out[m.key]; dup || m.value.kind != kindObject {
				continue
			}
			e, err := readEntry(m.value, text)
			if err != nil {
				continue
			}
			typ, err := e.kind()
			if err != nil {
				continue
			}
			out[m.key] = launchOf(e, typ, env)
		}
	}
	return out, nil
}
