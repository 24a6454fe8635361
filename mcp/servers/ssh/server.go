package ssh

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp/stdioserver"
	"github.com/pkg/sftp"
	gossh "golang.org/x/crypto/ssh"
)

// Options configure a Server. Only Aliases is required.
type Options struct {
	// Aliases stores the aliases (mcptray: the keyring entry ssh/aliases).
	Aliases AliasStore
	// Settings returns the current x-mcptray.ssh settings; it is called on
	// every tool call that needs them. Nil means DefaultSettings.
	Settings func() (Settings, error)
	// Home is the local user's home folder: ~ in key paths and settings,
	// the default local root. Default os.UserHomeDir().
	Home string
	// KnownHosts is the known_hosts file. Default Home/.ssh/known_hosts.
	KnownHosts string
	// IdleTimeout closes a pooled connection unused this long (default
	// DefaultIdleTimeout); KeepAlive is the keepalive interval (default
	// DefaultKeepAlive).
	IdleTimeout, KeepAlive time.Duration
	// Logger gets one line per connection event and tool failure, never a
	// secret. Default: discard.
	Logger *slog.Logger
	// Version is reported in the MCP handshake.
	Version string
	// Now is the clock for secret expiry (tests). Default time.Now.
	Now func() time.Time
}

// Server is the built-in SSH MCP server (`mcptray serve ssh`). Its tools
// reach the hosts of the stored aliases; passwords and passphrases are
// asked through MCP elicitation and kept in RAM only.
type Server struct {
	opts    Options
	home    string
	known   *knownHosts
	pool    *pool
	secrets *secrets
	log     *slog.Logger

	aliasMu sync.Mutex // serialises read-modify-write of the alias list
}

// New returns a Server; Close ends its connections.
func New(opts Options) *Server {
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	if opts.KnownHosts == "" {
		opts.KnownHosts = filepath.Join(opts.Home, ".ssh", "known_hosts")
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = DefaultKeepAlive
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Server{
		opts:    opts,
		home:    opts.Home,
		known:   &knownHosts{path: opts.KnownHosts},
		pool:    newPool(opts.IdleTimeout, opts.KeepAlive, opts.Logger),
		secrets: newSecrets(opts.Now),
		log:     opts.Logger,
	}
}

// ServeStdio serves MCP on stdin and stdout until the client goes or ctx
// ends, then closes every connection. Stdin is read through the poller
// (stdioserver: a blocking read can deadlock the garbage collector).
func (s *Server) ServeStdio(ctx context.Context) error {
	defer s.Close()
	return s.mcpServer().Run(ctx, stdioserver.Transport())
}

// Close closes the pooled connections and forgets every secret.
func (s *Server) Close() {
	s.pool.close()
	s.secrets.clear()
}

// settings returns the current settings, or the defaults (logged) when
// they cannot be read.
func (s *Server) settings() Settings {
	st, err := s.loadSettings()
	if err != nil {
		s.log.Warn("x-mcptray.ssh: using the defaults", "err", err)
		return DefaultSettings(s.home)
	}
	return st
}

func (s *Server) loadSettings() (Settings, error) {
	if s.opts.Settings == nil {
		return DefaultSettings(s.home), nil
	}
	return s.opts.Settings()
}

func (s *Server) loadAliases() ([]Alias, error) {
	list, err := s.opts.Aliases.Load()
	if err != nil {
		return nil, fmt.Errorf("reading the SSH aliases: %w", err)
	}
	return list, nil
}

// target is one call's alias and its (pooled) connection.
type target struct {
	alias  Alias
	ask    asker
	c      *conn
	fresh  bool                        // dialled for this call
	redial func() (*conn, bool, error) // gets a connection again from the pool
}

// open looks up the alias and gets a connection to it.
func (s *Server) open(ctx context.Context, ask asker, name string) (*target, error) {
	list, err := s.loadAliases()
	if err != nil {
		return nil, err
	}
	a, err := findAlias(list, name)
	if err != nil {
		return nil, err
	}
	get := func() (*conn, bool, error) {
		return s.pool.get(ctx, a, func() (*dialed, error) { return s.dial(ctx, ask, list, a) })
	}
	c, fresh, err := get()
	if err != nil {
		return nil, err
	}
	return &target{alias: a, ask: ask, c: c, fresh: fresh, redial: get}, nil
}

func (t *target) close() {
	if t.c != nil {
		t.c.release()
	}
}

// retry runs op on the connection; when op fails on a pooled connection
// that turns out dead, the connection is redialled once and op retried.
// op must not have changed anything on the host when it fails this way
// (opening a session or the SFTP client).
func (t *target) retry(op func(*conn) error) error {
	err := op(t.c)
	if err == nil || t.fresh {
		return err
	}
	if !t.c.isDead() && t.c.ping(pingTimeout) == nil {
		return err // the connection is fine: the error is op's own
	}
	t.c.p.log.Info("connection is dead; redialling", "alias", t.alias.Name, "err", err)
	t.c.retire()
	t.c.release()
	c, fresh, rerr := t.redial()
	if rerr != nil {
		t.c = nil // released above
		return rerr
	}
	t.c, t.fresh = c, fresh
	return op(c)
}

// newSession opens a session, redialling a dead pooled connection once.
func (t *target) newSession() (*gossh.Session, error) {
	var sess *gossh.Session
	err := t.retry(func(c *conn) error {
		var err error
		sess, err = c.d.client.NewSession()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("opening a session on alias %s: %w", t.alias.Name, err)
	}
	return sess, nil
}

// sftp returns the connection's SFTP client, redialling a dead pooled
// connection once.
func (t *target) sftp() (*sftp.Client, error) {
	var sc *sftp.Client
	err := t.retry(func(c *conn) error {
		var err error
		sc, err = c.sftpClient()
		return err
	})
	return sc, err
}
