package assistants

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Client is one assistant whose MCP config mcptray can edit.
type Client struct {
	Name    string // what `mcptray setup NAME` takes: "claude-desktop"
	Display string // what a person reads: "Claude Desktop"
	// Key is the top-level object (a TOML table for Codex) holding the
	// servers: "mcpServers", "servers" (VS Code), "context_servers" (Zed),
	// "mcp_servers" (Codex).
	Key string
	// TOML: the file is TOML (Codex); else JSON, comments allowed.
	TOML bool
	// Reload is what the person does after an edit for the client to
	// read its config again ("restart Claude Desktop"); "" when the client
	// does so by itself (VS Code, Zed). See ReloadHint.
	Reload string
	// Note is what else a person must know for the client to run mcptray
	// once it is added; "" for nothing. See AddNote.
	Note string
	// typeStdio: the entry says "type": "stdio" (Claude Code, VS Code).
	typeStdio bool
	// args are the entry's arguments after the binary.
	args []string
	// budget: ToolBudget.
	budget int
	path   func(Env) (string, error)
}

// Env is where the clients' files are: the OS, the home folder and the
// environment, and the mcptray that setup writes into them. Tests fill it
// in; [DefaultEnv] is the running process's.
type Env struct {
	GOOS   string                                 // runtime.GOOS
	Home   string                                 // the user's home folder
	Getenv func(string) string                    // os.Getenv
	Glob   func(pattern string) ([]string, error) // filepath.Glob
	// Self is the absolute path of the mcptray the entries run.
	Self string
}

// DefaultEnv is the running process's Env, Self being [SelfPath].
func DefaultEnv() (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, fmt.Errorf("finding the home folder: %w", err)
	}
	self, err := SelfPath()
	if err != nil {
		return Env{}, err
	}
	return Env{GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv, Glob: filepath.Glob, Self: self}, nil
}

// SelfPath is the absolute path of this mcptray, for an assistant's config:
// the name it was started by (found on PATH, or as given) when that name
// leads to this very file, else os.Executable with its symlinks resolved. A
// symlink a package manager keeps stable across upgrades
// (/opt/homebrew/bin/mcptray, ~/.nix-profile/bin/mcptray) is kept rather
// than resolved to a versioned folder that the next upgrade removes.
func SelfPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding mcptray's own path: %w", err)
	}
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		real = exe
	}
	if name := startedAs(); name != "" {
		if r, err := filepath.EvalSymlinks(name); err == nil && r == real {
			return name, nil
		}
	}
	return filepath.Abs(real)
}

// startedAs is the absolute path of argv[0], looked up on PATH when it is
// a bare name; "" when there is none.
func startedAs() string {
	if len(os.Args) == 0 || os.Args[0] == "" {
		return ""
	}
	name := os.Args[0]
	if !strings.ContainsAny(name, `/\`) {
		p, err := exec.LookPath(name)
		if err != nil {
			return ""
		}
		name = p
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return ""
	}
	return abs
}

func (e Env) goos() string {
	if e.GOOS == "" {
		return runtime.GOOS
	}
	return e.GOOS
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return os.Getenv(k)
	}
	return e.Getenv(k)
}

func (e Env) glob(p string) ([]string, error) {
	if e.Glob == nil {
		return filepath.Glob(p)
	}
	return e.Glob(p)
}

// home is the home folder, or an error saying none is known.
func (e Env) home() (string, error) {
	if e.Home == "" {
		return "", errors.New("no home folder known")
	}
	return e.Home, nil
}

// inHome is a path under the home folder.
func inHome(parts ...string) func(Env) (string, error) {
	return func(e Env) (string, error) {
		h, err := e.home()
		if err != nil {
			return "", err
		}
		return filepath.Join(append([]string{h}, parts...)...), nil
	}
}

// absEnv is the environment variable k when it holds an absolute path.
func (e Env) absEnv(k string) string {
	if v := e.getenv(k); v != "" && (filepath.IsAbs(v) || e.goos() == "windows") {
		return v
	}
	return ""
}

// configDir is the folder apps keep their settings in: $XDG_CONFIG_HOME
// (else ~/.config) on Linux, ~/Library/Application Support on macOS,
// %APPDATA% on Windows.
func (e Env) configDir() (string, error) {
	h, err := e.home()
	switch e.goos() {
	case "windows":
		if d := e.absEnv("APPDATA"); d != "" {
			return d, nil
		}
		if err != nil {
			return "", err
		}
		return filepath.Join(h, "AppData", "Roaming"), nil
	case "darwin":
		if err != nil {
			return "", err
		}
		return filepath.Join(h, "Library", "Application Support"), nil
	}
	if d := e.absEnv("XDG_CONFIG_HOME"); d != "" {
		return d, nil
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(h, ".config"), nil
}

// inConfigDir is a path under configDir.
func inConfigDir(parts ...string) func(Env) (string, error) {
	return func(e Env) (string, error) {
		d, err := e.configDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(append([]string{d}, parts...)...), nil
	}
}

// claudeDesktopPath: on Windows, the MSIX package's folder when one is
// installed (Claude Desktop's installer since 2026-02: the app then reads
// %LOCALAPPDATA%\Packages\Claude_<publisher id>\LocalCache\Roaming\Claude),
// else %APPDATA%\Claude.
func claudeDesktopPath(e Env) (string, error) {
	const file = "claude_desktop_config.json"
	if e.goos() == "windows" {
		local := e.absEnv("LOCALAPPDATA")
		if local == "" {
			if h, err := e.home(); err == nil {
				local = filepath.Join(h, "AppData", "Local")
			}
		}
		if local != "" {
			if p := msixConfig(e, local, file); p != "" {
				return p, nil
			}
		}
	}
	return inConfigDir("Claude", file)(e)
}

// msixConfig is the config file in the MSIX package folder of Claude: the
// first (sorted) Packages\Claude_* folder that holds the file, else the
// first one; "" when no package is installed.
func msixConfig(e Env, local, file string) string {
	dirs, _ := e.glob(filepath.Join(local, "Packages", "Claude_*"))
	slices.Sort(dirs)
	var first string
	for _, d := range dirs {
		p := filepath.Join(d, "LocalCache", "Roaming", "Claude", file)
		if first == "" {
			first = p
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return first
}

// claudeCodePath: ~/.claude.json, or .claude.json in $CLAUDE_CONFIG_DIR.
func claudeCodePath(e Env) (string, error) {
	if d := e.absEnv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json"), nil
	}
	return inHome(".claude.json")(e)
}

// codexPath: ~/.codex/config.toml, or config.toml in $CODEX_HOME.
func codexPath(e Env) (string, error) {
	if d := e.absEnv("CODEX_HOME"); d != "" {
		return filepath.Join(d, "config.toml"), nil
	}
	return inHome(".codex", "config.toml")(e)
}

// zedPath: ~/.config/zed/settings.json ($XDG_CONFIG_HOME on Linux; the
// same ~/.config on macOS), %APPDATA%\Zed\settings.json on Windows.
func zedPath(e Env) (string, error) {
	switch e.goos() {
	case "windows":
		return inConfigDir("Zed", "settings.json")(e)
	case "darwin":
		return inHome(".config", "zed", "settings.json")(e)
	}
	return inConfigDir("zed", "settings.json")(e)
}

var clients = []*Client{
	{Name: "claude-desktop", Display: "Claude Desktop", Key: "mcpServers",
		Reload: "restart Claude Desktop",
		args:   []string{"connect", "--tools", "stable"}, budget: DynamicThreshold, path: claudeDesktopPath},
	{Name: "claude-code", Display: "Claude Code", Key: "mcpServers", typeStdio: true,
		Reload: "start a new Claude Code session",
		args:   []string{"connect"}, path: claudeCodePath},
	{Name: "cursor", Display: "Cursor", Key: "mcpServers",
		Reload: "restart Cursor",
		args:   []string{"connect"}, budget: CursorToolLimit, path: inHome(".cursor", "mcp.json")},
	{Name: "vscode", Display: "VS Code", Key: "servers", typeStdio: true,
		args: []string{"connect"}, path: inConfigDir("Code", "User", "mcp.json")},
	{Name: "windsurf", Display: "Windsurf", Key: "mcpServers",
		Reload: "refresh Windsurf's MCP servers (or restart it)",
		args:   []string{"connect"}, budget: DynamicThreshold, path: inHome(".codeium", "windsurf", "mcp_config.json")},
	{Name: "codex", Display: "Codex", Key: "mcp_servers", TOML: true,
		Reload: "start a new Codex session",
		args:   []string{"connect"}, path: codexPath},
	{Name: "gemini", Display: "Gemini CLI", Key: "mcpServers",
		Reload: "restart Gemini CLI",
		Note:   geminiTrustNote,
		args:   []string{"connect"}, budget: DynamicThreshold, path: inHome(".gemini", "settings.json")},
	{Name: "zed", Display: "Zed", Key: "context_servers",
		args: []string{"connect"}, budget: DynamicThreshold, path: zedPath},
}

// Clients are the assistants mcptray knows, in the order `mcptray setup`
// lists them. The same on every OS; only their paths differ.
func Clients() []*Client { return slices.Clone(clients) }

// Find returns the client called name ("claude-desktop").
func Find(name string) (*Client, bool) {
	for _, c := range clients {
		if c.Name == name {
			return c, true
		}
	}
	return nil, false
}

// Names are the clients' names, for a usage message.
func Names() []string {
	var out []string
	for _, c := range clients {
		out = append(out, c.Name)
	}
	return out
}

// Path is the client's config file on e's OS.
func (c *Client) Path(e Env) (string, error) {
	p, err := c.path(e)
	if err != nil {
		return "", fmt.Errorf("finding %s's config: %w", c.Display, err)
	}
	return p, nil
}

// ReloadHint is the line a person reads after action was applied:
// "restart Claude Desktop to load mcptray"; "" when the client reloads
// by itself.
func (c *Client) ReloadHint(a Action) string {
	switch {
	case c.Reload == "":
		return ""
	case a == Remove:
		return c.Reload + " for it to stop running mcptray"
	}
	return c.Reload + " to load mcptray"
}

// AddNote is the line a person reads after mcptray was added to the
// client's config, besides ReloadHint: what else it takes for the client
// to run mcptray ("" for nothing).
func (c *Client) AddNote() string { return c.Note }

// geminiTrustNote: Gemini CLI's folder trust (security.folderTrust.enabled
// in its settings.json, on by default in its recent releases though its
// docs/cli/trusted-folders.md still says off) connects to no MCP server,
// user-wide ones included, in a folder that is not trusted. Trust is
// asked the first time gemini runs in a folder, changed with /permissions,
// and kept in ~/.gemini/trustedFolders.json.
const geminiTrustNote = "Gemini CLI runs no MCP server, mcptray included, in a folder it does not trust: " +
	"choose \"Trust folder\" (or \"Trust parent folder\") when it asks in the folder you work in, " +
	"or run /permissions in Gemini CLI there later; its choices are kept in ~/.gemini/trustedFolders.json"

// Args are the arguments the client's mcptray entry runs mcptray with:
// connect (and --tools stable for Claude Desktop, which ignores
// tools/list_changed).
func (c *Client) Args() []string { return slices.Clone(c.args) }
