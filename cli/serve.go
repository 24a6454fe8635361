package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/keyring"
	sshsrv "github.com/mcptray/mcptray/mcp/servers/ssh"
)

// sshAliasesEntry is the keyring entry holding the SSH aliases: a JSON
// list, never a password (DESIGN.md §9).
const sshAliasesEntry = "ssh/aliases"

// keyringAliases is the ssh server's AliasStore on the OS keyring.
type keyringAliases struct{}

func (keyringAliases) Load() ([]sshsrv.Alias, error) {
	v, err := keyring.Get(sshAliasesEntry)
	if errors.Is(err, keyring.ErrNotFound) {
		return nil, nil
	}
	var ue *keyring.UnavailableError
	if errors.As(err, &ue) {
		return nil, ue // its reason says what is missing
	}
	if err != nil {
		return nil, err
	}
	var list []sshsrv.Alias
	if err := json.Unmarshal([]byte(v), &list); err != nil {
		return nil, fmt.Errorf("the keyring entry %s is not a list of aliases: %v", sshAliasesEntry, err)
	}
	return list, nil
}

func (keyringAliases) Save(list []sshsrv.Alias) error {
	if list == nil {
		list = []sshsrv.Alias{}
	}
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	err = keyring.Set(sshAliasesEntry, string(b))
	var ue *keyring.UnavailableError
	if errors.As(err, &ue) {
		return ue
	}
	if errors.Is(err, keyring.ErrTooLarge) {
		return fmt.Errorf("%d aliases no longer fit in one keyring entry on this system; remove some", len(list))
	}
	return err
}

// SSHServer is the built-in SSH server as mcptray runs it: aliases in the
// keyring, settings from mcp.json's x-mcptray.ssh and x-mcptray.localRoots.
func SSHServer(logger *slog.Logger) *sshsrv.Server {
	home, _ := os.UserHomeDir()
	cs := &configSettings{home: home, log: logger}
	return sshsrv.New(sshsrv.Options{
		Aliases:  keyringAliases{},
		Settings: cs.get,
		Home:     home,
		Logger:   logger,
	})
}

// cmdServe runs a built-in stdio MCP server: ssh here, gcal and gmail in
// mcptray-google (serveGoogle, nil for the exec).
func cmdServe(ctx context.Context, args []string, serveGoogle func(context.Context, []string) error) error {
	if len(args) == 0 {
		return usageError{"serve takes one of ssh, gcal, gmail"}
	}
	switch args[0] {
	case "ssh":
		if err := parse(newBareFlags("serve ssh"), args[1:], 0); err != nil {
			return err
		}
		return cmdServeSSH(ctx)
	case "gcal", "gmail":
		return cmdServeGoogle(ctx, args, serveGoogle)
	default:
		return usageError{fmt.Sprintf("no built-in server %q (ssh, gcal, gmail)", args[0])}
	}
}

// cmdServeSSH is `mcptray serve ssh`: the SSH MCP server on stdio, until
// the client closes stdin.
func cmdServeSSH(ctx context.Context) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	return SSHServer(logger).ServeStdio(ctx)
}

// configSettings reads x-mcptray.ssh (and the top-level
// x-mcptray.localRoots, which wins over x-mcptray.ssh.localRoots) from mcp.json — the file named by
// MCPTRAY_CONFIG, which the supervisor sets for every server it starts, or
// the default path — again whenever the file changes. A file that does not
// parse keeps the last good settings (mcptray reports the error itself).
type configSettings struct {
	home string
	log  *slog.Logger

	mu    sync.Mutex // guards the fields below
	stamp string     // path, mtime and size of what cur was read from
	cur   sshsrv.Settings
	err   error
	good  bool // cur came from a file that parsed
}

func (c *configSettings) get() (sshsrv.Settings, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	path, err := config.DefaultPath()
	if err != nil {
		return sshsrv.DefaultSettings(c.home), nil
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return sshsrv.DefaultSettings(c.home), nil
	}
	if err != nil {
		return sshsrv.DefaultSettings(c.home), fmt.Errorf("reading %s: %w", path, err)
	}
	stamp := fmt.Sprint(path, st.ModTime().UnixNano(), st.Size())
	if stamp == c.stamp {
		return c.cur, c.err
	}
	c.stamp = stamp
	data, err := config.ReadFile(path)
	if err == nil {
		var cfg *config.Config
		if cfg, err = config.Parse(data, config.Env{}); err == nil {
			c.cur, c.err = sshsrv.ParseSettings(cfg.Settings.Raw["ssh"], cfg.Settings.Raw["localRoots"], c.home)
			c.good = c.err == nil
			return c.cur, c.err
		}
	}
	c.log.Warn("cannot read mcp.json; keeping the last good x-mcptray.ssh", "path", path, "err", err)
	if !c.good {
		c.cur = sshsrv.DefaultSettings(c.home)
	}
	c.err = nil
	return c.cur, nil
}
