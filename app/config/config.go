package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// Config is one parse of mcp.json.
type Config struct {
	// Servers are in file order, from "mcpServers" (Claude Desktop, Cursor,
	// Claude Code) and VS Code's "servers" alike. Names are unique: a name
	// defined twice (in both objects, or twice in one) appears once, at its
	// first place, refused with an Err saying so.
	Servers  []Server
	Inputs   []Input  // VS Code "inputs"
	Settings Settings // top-level "x-mcptray"
}

// Settings are the app-wide settings under the top-level "x-mcptray".
type Settings struct {
	Listen      string        // HTTP listener address; default DefaultListen
	Tools       string        // live|stable|dynamic; default "live"
	Elicitation string        // auto|local; default "auto"
	CallTimeout time.Duration // per tool call through the gateway; default 5 min
	// InboxTimeout is how long a request waits in the secret inbox before
	// it is cancelled ("inboxTimeout"); default 5 min.
	InboxTimeout time.Duration
	// InputTimeout is how long a stdio server may leave what mcptray sent
	// it unread before it counts as not reading its input: its waiting
	// calls fail and new ones fail at once until it reads again
	// ("inputTimeout"); default 10 s.
	InputTimeout time.Duration
	Raw          map[string]json.RawMessage // every key of x-mcptray, kept (compacted); nil when absent
	// EventRetentionDays is how long acknowledged events are kept; default 30.
	EventRetentionDays int
	// NoLoginShell ("loginShell": false) keeps the login shell's PATH and
	// variables from the servers, even when mcptray was started without a
	// terminal (app/loginshell.go).
	NoLoginShell bool
	// Approve says which tool calls wait for the person's yes ("approve":
	// off, destructive, writes or all); default destructive. An entry's
	// own x-mcptray.approve overrides it.
	Approve string
	// TrustConfigEdits runs new and changed entries without asking
	// ("trustConfigEdits": true): a file write then runs code.
	TrustConfigEdits bool
}

// Defaults of Settings.
const (
	// DefaultListen is loopback port 7823, a port no well-known tool uses,
	// so that an HTTP client's saved URL holds from one start to the next;
	// port 0 asks for a free port.
	DefaultListen       = "127.0.0.1:7823"
	DefaultTools        = "live"
	DefaultElicitation  = "auto"
	DefaultCallTimeout  = 5 * time.Minute
	DefaultInboxTimeout = 5 * time.Minute

	DefaultEventRetentionDays = 30
)

// Input is one entry of VS Code's "inputs": a value the person is asked for.
type Input struct {
	ID          string
	Type        string // promptString or pickString (other VS Code types are kept as written)
	Description string
	Default     string
	Password    bool
	Options     []string // pickString choices (the "value" of {label, value} objects)
}

// Server is one entry of "mcpServers" or "servers", with its variables
// resolved.
type Server struct {
	Name     string
	Type     string                     // "stdio" or "http"
	Command  string                     // stdio: resolved
	Args     []string                   // stdio: resolved
	Env      map[string]string          // stdio: resolved; envFile entries first, then "env" overrides
	Cwd      string                     // stdio: resolved, ~ expanded, absolute when the file's dir is known; "" if unset
	URL      string                     // http: resolved, http or https
	Headers  map[string]string          // http: resolved
	OAuth    *OAuth                     // http: the OAuth client settings, resolved (oauth.go); nil when the entry has none
	Disabled bool                       // "disabled": true, or "enabled": false
	Settings map[string]json.RawMessage // per-entry "x-mcptray", compacted; nil when absent
	// Rules are the entry's tool switches and approval settings, read from
	// its "x-mcptray" (rules.go); kept for a refused entry too.
	Rules ToolRules
	// Launch is what the entry runs, without secret values (launch.go): the
	// person approves it before a new or changed entry starts. Kept for a
	// refused entry too, once its type is known.
	Launch Launch
	// Err, when non-nil, refuses the entry: Err.Error() is a one-line reason
	// a person reads, like `ssh: variable ${env:FOO} is not set`. It never
	// contains a resolved value. A refused Server keeps only Name, Type (when
	// known), Disabled, Settings, Rules and Launch; the resolved fields are
	// left empty.
	Err error
}

// Server types.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
)

// Limits of mcp.json. A file past either is refused as a whole (a
// [*SyntaxError] about the whole file): the last good config keeps running.
const (
	MaxFileSize = 4 << 20 // bytes
	MaxServers  = 1000    // entries of "mcpServers" and "servers" together
)

func tooBig(size int64) *SyntaxError {
	return &SyntaxError{Name: defaultName, Msg: fmt.Sprintf("is %d bytes; mcptray reads at most 4 MiB (%d bytes)", size, MaxFileSize)}
}

// Parse parses data, the contents of mcp.json. It returns an error (a
// *SyntaxError, with line and column) only when the file as a whole cannot be
// used; a problem in one server entry goes into that Server's Err.
func Parse(data []byte, env Env) (*Config, error) {
	text, root, err := parseRoot(data)
	if err != nil {
		return nil, err
	}

	cfg := &Config{Settings: Settings{Listen: DefaultListen, Tools: DefaultTools, Elicitation: DefaultElicitation, CallTimeout: DefaultCallTimeout, InboxTimeout: DefaultInboxTimeout, EventRetentionDays: DefaultEventRetentionDays, Approve: DefaultApprove}}
	for _, m := range root.members {
		var err error
		switch m.key {
		case "mcpServers", "servers":
			if m.value.kind != kindObject {
				err = errorAt(data, m.value.start, "%q must be an object, got %s", m.key, m.value.kind)
			}
		case "inputs":
			err = parseInputs(cfg, data, text, m.value)
		case "x-mcptray":
			err = parseSettings(&cfg.Settings, data, text, m.value)
		}
		if err != nil {
			return nil, err
		}
	}

	entries := 0
	for _, m := range root.members {
		if m.key == "mcpServers" || m.key == "servers" {
			entries += len(m.value.members)
		}
	}
	if entries > MaxServers {
		return nil, &SyntaxError{Name: defaultName, Msg: fmt.Sprintf("has %d servers; mcptray runs at most %d", entries, MaxServers)}
	}

	r := newResolver(env, cfg.Inputs)
	seen := map[string]int{}       // name → index in cfg.Servers
	section := map[string]string{} // name → where it was first defined
	for _, m := range root.members {
		if m.key != "mcpServers" && m.key != "servers" {
			continue
		}
		for _, e := range m.value.members {
			if i, dup := seen[e.key]; dup {
				cfg.Servers[i].Err = duplicateError(e.key, section[e.key], m.key)
				continue
			}
			seen[e.key] = len(cfg.Servers)
			section[e.key] = m.key
			cfg.Servers = append(cfg.Servers, buildServer(e.key, e.value, text, r, env))
		}
	}
	return cfg, nil
}

func duplicateError(name, first, second string) error {
	if first == second {
		return fmt.Errorf("%s: defined twice in %q", name, first)
	}
	return fmt.Errorf("%s: defined in both %q and %q", name, first, second)
}

// Load reads and parses the file at path. env.Dir defaults to the file's
// directory, and a *SyntaxError carries the file's base name.
func Load(path string, env Env) (*Config, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	if env.Dir == "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("reading config: %w", err)
		}
		env.Dir = filepath.Dir(abs)
	}
	cfg, err := Parse(data, env)
	if se, ok := err.(*SyntaxError); ok {
		se.Name = filepath.Base(path)
	}
	return cfg, err
}

// ReadFile reads mcp.json, or refuses it (a [*SyntaxError] naming the file)
// when it is over MaxFileSize, reading no more than that. Anything but a
// regular file (a named pipe would block the read for ever) is refused
// with a [*NotRegularError].
func ReadFile(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if nr := (*NotRegularError)(nil); errors.As(err, &nr) {
		return nil, fmt.Errorf("reading config: %s %w; mcptray reads only a regular file", path, nr)
	}
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	if len(data) > MaxFileSize {
		size := int64(len(data))
		if fi, err := f.Stat(); err == nil && fi.Size() > size {
			size = fi.Size()
		}
		se := tooBig(size)
		se.Name = filepath.Base(path)
		return nil, se
	}
	return data, nil
}
