package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/app/loginenv"
	"github.com/mcptray/mcptray/app/oauthkeys"
	"github.com/mcptray/mcptray/app/trust"
	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/oauthclient"
	"github.com/mcptray/mcptray/store"
)

// Options configure a Core. ConfigPath and DataDir are required; the rest
// have defaults.
type Options struct {
	ConfigPath string
	DataDir    string
	// Self is what ${self} expands to; default os.Executable().
	Self string
	// LookupEnv resolves ${env:NAME}; default os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Keyring resolves ${keyring:NAME}; default the OS keyring (service
	// "mcptray", entry "keyring/NAME").
	Keyring func(name string) (string, error)
	// Logger receives the core's own messages (not servers' output).
	Logger *slog.Logger
	// Token returns the HTTP endpoint's bearer token; default Token (the
	// OS keyring, entry "http-token", created on first use).
	Token func() (string, error)
	// Debounce is how long the watcher waits after the last change to
	// mcp.json before applying it; default 100 ms.
	Debounce time.Duration
	// StartTimeout bounds initialize + tools/list; default 120 s.
	StartTimeout time.Duration
	// EventQueue is how many events at most wait for the database; more
	// are dropped (and counted); default 65536.
	EventQueue int
	// RelistEvery is how often at most a server's tools are listed again
	// after its notifications/tools/list_changed; default 1 s.
	RelistEvery time.Duration
	// StopGrace and TermGrace override the stop escalation delays
	// (stdin close → SIGTERM → SIGKILL); zero means mcp's defaults.
	StopGrace, TermGrace time.Duration
	// Notifier shows desktop notifications of events (the UI's); nil
	// shows none.
	Notifier events.Notifier
	// Secrets keeps the ${input:ID} values marked "password": true; default
	// the OS keyring (entries "input/ID").
	Secrets SecretStore
	// OpenURL opens a URL the person accepted in the inbox; default the
	// desktop's browser ($BROWSER, else xdg-open, open or rundll32).
	OpenURL func(url string) error
	// LoginShell is the login shell whose PATH and variables the servers
	// get (loginenv.Wanted decides; zero: none), unless the config's
	// x-mcptray.loginShell is false. It is read once, beside the rest of
	// startup; servers starting meanwhile wait for it.
	LoginShell loginenv.Decision
	// LoginShellTimeout bounds that read; default loginenv.Timeout (5 s).
	LoginShellTimeout time.Duration
	// InstallMarks keeps the once-per-install marker of the first start's
	// approvals, where a program that writes the data dir cannot reset it
	// (app/trust/launch_reset.go); default the OS keyring.
	InstallMarks SecretStore
	// TrustConfigEdits runs new and changed entries without asking, as
	// x-mcptray.trustConfigEdits: true does (app/trust). Tests that are not
	// about approvals set it.
	TrustConfigEdits bool
	// RemoteAuth signs the person in to remote servers that ask for it
	// (OAuth; signin.go); default mcp/oauthclient over OAuthStore
	// (oauthclient.go).
	RemoteAuth RemoteAuth
	// OAuthStore keeps remote servers' tokens and registrations; default
	// the OS keyring (app/oauthkeys: entries "oauth/…", big values split).
	OAuthStore oauthclient.Store
}

// Core is the running heart of mcptray. See the package doc.
type Core struct {
	opts     Options
	log      *slog.Logger
	lock     *instanceLock
	store    *store.Store
	instance string // random id, set as MCPTRAY_INSTANCE on every server
	// launchKey keys the hashes of launches' values (app/trust/launchkey.go).
	launchKey []byte
	// dbNotice says that a broken database was moved aside at New, for
	// Run to tell the person (database.go); "" when none was.
	dbNotice string

	watchdog *downstream.Watchdog // set by Run before any server starts
	gw       *mcp.Gateway         // the assistants' endpoint; fed by the servers
	events   *events.Hub          // events from the servers (app/events; wired in events.go)
	history  *callHistory         // the gateway's tool-call records (history.go)
	inbox    *inbox.Inbox         // the secret inbox (app/inbox)
	audit    *inbox.AuditLog      // the inbox's audit rows (app/inbox)
	inputs   *inbox.Inputs        // ${input:ID} values and questions (app/inbox; inbox_inputs.go)
	login    *loginShell          // the login shell's environment for the servers (loginshell.go)
	launches *trust.Launches      // approved launches of the entries (app/trust; trust_core.go)
	pins     *trust.Pins          // pinned tool descriptions (app/trust)
	calls    *trust.Calls         // approval before a call (app/trust)

	// probes remembers the stdio servers that did not take the first
	// request of a start, and which one they took, by a hash of their
	// launch (probeKey), so that they start with it at once; kept in the
	// store across restarts (probes.go). Set by Run.
	probes *downstream.ProbeMemory

	reloadReq chan struct{} // cap 1: re-read mcp.json now (read by watch)

	configFile *config.File // mcp.json, as this core edits it (its own edits: configedit.go)

	windows windowRegistry // windows other processes show (windows.go)

	// storeSecret stores a secret an import moves into the keyring, and
	// secretNames lists those there; nil: SetSecret, SecretNames (tests
	// replace them).
	storeSecret func(name, value string) error
	secretNames func() ([]string, error)

	statusDirty    chan struct{}          // cap 1: the status changed since the last snapshot (read by broadcaster)
	lastConfigured []mcp.ConfiguredServer // owned by broadcaster: what the gateway was last given
	snapshots      atomic.Int64           // status snapshots sent so far (tests bound it)

	mu          sync.Mutex // guards the fields below
	servers     map[string]*server
	gone        map[string]*server // removed servers, possibly still stopping, by name
	order       []string           // server names in file order
	configErr   string
	subs        map[chan control.Status]struct{}
	cachedTools map[string][]*downstream.Tool // last known tools per server (stable mode)
	cachedRaw   map[string][]json.RawMessage  // the same, as the servers sent them, index for index (nil entries: unknown)
	rules       map[string]config.ToolRules   // each entry's tool switches and approval settings (tools.go)
	// approveDefault is the top-level x-mcptray.approve of the last good
	// config; an entry's own approve overrides it.
	approveDefault string
	settings       config.Settings // of the last good config
	endpoint       string          // the HTTP endpoint's URL, when it listens
	endpointErr    string          // why the HTTP endpoint is off
	// endpointWarning: the HTTP endpoint listens, but not where it
	// should (its port was taken).
	endpointWarning string

	listenChanged chan struct{} // settings.Listen changed (cap 1); read by serveHTTP

	wg sync.WaitGroup // one per server goroutine
}

// New prepares a Core: it creates the data dir, takes the single-instance
// lock, opens the store and writes the default config if there is none. It
// starts nothing; call Run.
func New(opts Options) (*Core, error) {
	if opts.ConfigPath == "" || opts.DataDir == "" {
		return nil, errors.New("app.New: ConfigPath and DataDir are required")
	}
	if opts.Self == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding own executable: %w", err)
		}
		opts.Self = exe
	}
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Keyring == nil {
		opts.Keyring = keyring.Secret
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if opts.Token == nil {
		opts.Token = Token
	}
	if opts.RelistEvery == 0 {
		opts.RelistEvery = relistEvery
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = startupDeadline
	}
	if opts.Debounce == 0 {
		opts.Debounce = 100 * time.Millisecond
	}
	if opts.Secrets == nil {
		opts.Secrets = osKeyring{}
	}
	if opts.RemoteAuth == nil {
		store := opts.OAuthStore
		if store == nil {
			store = oauthkeys.Store{}
		}
		opts.RemoteAuth = NewRemoteAuth(store, oauthclient.Options{Logger: opts.Logger})
	}
	if opts.InstallMarks == nil {
		opts.InstallMarks = osKeyring{}
	}
	if opts.OpenURL == nil {
		opts.OpenURL = openBrowser
	}
	if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating data dir: %w", err)
	}
	if err := makePrivate(opts.DataDir); err != nil { // Windows: a DACL; Unix: 0700 above
		return nil, err
	}
	lock, err := lockInstance(opts.DataDir)
	if err != nil {
		return nil, err
	}
	key, err := trust.LoadLaunchKey(opts.DataDir)
	if err != nil {
		lock.release()
		return nil, err
	}
	st, dbNotice, err := openStore(opts.DataDir, opts.Logger)
	if err != nil {
		lock.release()
		return nil, fmt.Errorf("opening database: %w", err)
	}
	created, err := config.EnsureDefault(opts.ConfigPath)
	if err != nil {
		st.Close()
		lock.release()
		return nil, fmt.Errorf("creating default config: %w", err)
	} else if created {
		opts.Logger.Info("created default config", "path", opts.ConfigPath)
	}
	var id [8]byte
	rand.Read(id[:])
	c := &Core{
		opts:           opts,
		log:            opts.Logger,
		lock:           lock,
		store:          st,
		instance:       hex.EncodeToString(id[:]),
		launchKey:      key,
		dbNotice:       dbNotice,
		servers:        make(map[string]*server),
		gone:           make(map[string]*server),
		subs:           make(map[chan control.Status]struct{}),
		cachedTools:    make(map[string][]*downstream.Tool),
		cachedRaw:      make(map[string][]json.RawMessage),
		rules:          make(map[string]config.ToolRules),
		approveDefault: config.DefaultApprove,
		listenChanged:  make(chan struct{}, 1),
		reloadReq:      make(chan struct{}, 1),
		statusDirty:    make(chan struct{}, 1),
		inputs:         inbox.NewInputs(),
	}
	c.configFile = config.NewFile(opts.ConfigPath, c.ownWrite)
	c.login = newLoginShell(opts.LoginShell, opts.LoginShellTimeout)
	c.audit = inbox.NewAuditLog(c.log, st)
	c.inbox = inbox.New(inbox.Options{Log: c.log, Audit: c.audit, OpenURL: opts.OpenURL, Refused: c.inboxRefused, Relieved: c.inboxRelieved})
	c.launches, c.pins, c.calls = trust.NewLaunches(c.trustOptions()), trust.NewPins(c.trustOptions()), trust.NewCalls(c.trustOptions())
	if created {
		c.launches.ApproveOwnEdit(nil, config.Default()) // mcptray wrote it: its entries run without a question
	}
	c.events = events.NewHub(events.Options{Store: st, Logger: c.log, Queue: opts.EventQueue, Notifier: opts.Notifier})
	c.history = newCallHistory(c)
	c.gw = c.newGateway()
	return c, nil
}

// Close releases the store and the instance lock. Call it after Run returns.
func (c *Core) Close() error {
	err := c.store.Close()
	c.lock.release()
	return err
}

// Run makes this process a child subreaper, starts the watchdog, the
// control API, the watcher and one supervisor per configured server, and
// blocks until ctx ends. Then it stops every server (in parallel) and
// returns.
func (c *Core) Run(ctx context.Context) error {
	// Orphans of a server's descendants (a double fork after setsid) are
	// reparented here, so stopping the server still finds and kills them.
	if stop, err := downstream.Subreap(); err != nil {
		c.log.Warn("descendants that leave their server's process group may outlive it", "err", err)
	} else {
		defer stop() // last: after every server and the watchdog are gone
	}
	// The broadcaster outlives everything below that changes the status:
	// its deferred stop runs last and sends the final snapshot.
	stopBroadcast, broadcastDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(broadcastDone)
		c.broadcaster(stopBroadcast)
	}()
	defer func() {
		close(stopBroadcast)
		<-broadcastDone
	}()
	wd, err := downstream.StartWatchdog()
	if err != nil {
		return fmt.Errorf("starting watchdog: %w", err)
	}
	defer wd.Close()
	c.watchdog = wd
	c.probes = c.loadProbes(ctx) // probes.go
	c.reapStale(ctx)
	defer c.startEvents()() // deferred: stops after c.wg.Wait below, when no server is left
	if c.dbNotice != "" {
		c.notice("mcptray.db could not be opened", c.dbNotice)
	}
	c.loadCachedTools(ctx)
	c.launches.Load(ctx)

	ln, err := control.Listen(c.opts.DataDir)
	if err != nil {
		return err
	}
	// Header and idle limits as on the HTTP endpoint, no cap: the socket
	// is the user's alone (0600), and every `mcptray connect` holds a
	// connection for its whole session. Nothing bounds an answer either:
	// watch streams and connect's upgraded streams last as long as their
	// client (a hijacked connection has no deadline left).
	h := control.NewHandler(c, c.log)
	srv := &http.Server{Handler: h, ConnContext: h.ConnContext, ReadHeaderTimeout: httpHeaderTimeout, IdleTimeout: httpIdleTimeout, MaxHeaderBytes: httpMaxHeaderBytes}
	go srv.Serve(ln)
	defer os.Remove(control.SocketPath(c.opts.DataDir))
	defer srv.Close()

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.reload(runCtx)
	httpDone := make(chan struct{})
	go func() {
		defer close(httpDone)
		c.serveHTTP(runCtx, c.listenChanged)
	}()
	defer func() { <-httpDone }()
	watchErr := make(chan error, 1)
	go func() { watchErr <- c.watch(runCtx) }()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.watchDatabase(runCtx)
	}()

	select {
	case <-ctx.Done():
	case err = <-watchErr:
	}
	c.windows.quitAll() // before the socket closes: the windows of other processes close with mcptray
	cancel()
	c.wg.Wait()
	c.launches.Close() // the reset question's goroutine, ended with runCtx
	return err
}

// reapStale kills process groups left behind by an instance that died
// without stopping its servers (the store's backstop to the watchdog).
func (c *Core) reapStale(ctx context.Context) {
	runs, err := c.store.OpenRuns(ctx)
	if err != nil {
		c.log.Warn("reading unfinished server runs", "err", err)
		return
	}
	stale := map[string]bool{}
	for _, r := range runs {
		if r.Instance == c.instance {
			continue
		}
		if n, err := downstream.ReapGroup(r.PGID, r.Instance); err != nil {
			c.log.Warn("reaping stale server", "server", r.Server, "pgid", r.PGID, "err", err)
		} else if n > 0 {
			c.log.Info("reaped stale server processes", "server", r.Server, "pgid", r.PGID, "killed", n)
		}
		c.store.RunExited(ctx, r.ID, time.Now(), -1, "mcptray exited without stopping it")
		stale[r.Instance] = r.Instance != ""
	}
	// Then what left its server's group (setsid) and outlived the watchdog.
	for instance, ok := range stale {
		if !ok {
			continue
		}
		if n, err := downstream.ReapInstance(instance); err != nil {
			c.log.Warn("reaping a stale instance's processes", "err", err)
		} else if n > 0 {
			c.log.Info("reaped processes that left their server's group", "killed", n)
		}
	}
}

// configEnv is what variable resolution may read.
func (c *Core) configEnv() config.Env {
	home, _ := os.UserHomeDir()
	return config.Env{
		Lookup:  c.opts.LookupEnv,
		Home:    home,
		Self:    c.opts.Self,
		Keyring: c.opts.Keyring,
		Dir:     filepath.Dir(c.opts.ConfigPath),
		Input:   c.inputValue,
		// What a launch runs (config.Launch): keyed value hashes, and
		// whether root's files are the user's.
		LaunchKey: c.launchKey,
		Root:      os.Geteuid() == 0,
	}
}

// reload reads mcp.json and applies it. A file that does not parse changes
// nothing: the last good config keeps running and the error is reported.
func (c *Core) reload(ctx context.Context) {
	cfg, err := config.Load(c.opts.ConfigPath, c.configEnv())
	if err != nil {
		msg := err.Error()
		if errors.Is(err, os.ErrNotExist) {
			msg = fmt.Sprintf("%s does not exist; the last good config keeps running", c.opts.ConfigPath)
		}
		c.mu.Lock()
		changed := c.configErr != msg
		c.configErr = msg
		c.mu.Unlock()
		if changed {
			c.log.Error("config not applied", "err", msg)
			c.broadcast()
		}
		return
	}
	c.apply(ctx, cfg)
}

// apply diffs cfg against the running servers: entries whose effective spec
// changed restart, new ones start, removed ones stop, the rest are untouched.
func (c *Core) apply(ctx context.Context, cfg *config.Config) {
	c.launches.Check(ctx, cfg)
	c.setRules(cfg)
	c.mu.Lock()
	c.configErr = ""
	c.gw.SetSettings(cfg.Settings.CallTimeout, cfg.Settings.Elicitation)
	c.events.SetRetention(cfg.Settings.EventRetentionDays)
	if c.settings.Listen != "" && (c.settings.Listen != cfg.Settings.Listen || c.settings.Tools != cfg.Settings.Tools) {
		select {
		case c.listenChanged <- struct{}{}:
		default:
		}
	}
	c.settings = cfg.Settings
	// Before any server starts: those that start now wait for the read.
	c.login.begin(ctx, cfg.Settings.NoLoginShell, c.log, c.broadcast)
	order := make([]string, 0, len(cfg.Servers))
	seen := make(map[string]bool, len(cfg.Servers))
	for _, spec := range cfg.Servers {
		if seen[spec.Name] {
			continue
		}
		seen[spec.Name] = true
		order = append(order, spec.Name)
		if s, ok := c.servers[spec.Name]; ok {
			s.update(spec)
			continue
		}
		s := newServer(c, spec)
		s.prev = c.gone[spec.Name]
		delete(c.gone, spec.Name)
		c.servers[spec.Name] = s
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			s.manage(ctx)
		}()
	}
	for name, s := range c.servers {
		if !seen[name] {
			s.remove()
			delete(c.servers, name)
			c.gone[name] = s
		}
	}
	c.order = order
	c.mu.Unlock()
	c.broadcast()
}

// Status returns a snapshot of every server in file order.
func (c *Core) Status() control.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.statusLocked()
}

// statusLocked is Status for a caller holding c.mu.
func (c *Core) statusLocked() control.Status {
	st := control.Status{ConfigError: c.configErr, ConfigPath: c.opts.ConfigPath, Endpoint: c.endpoint, EndpointError: c.endpointErr, EndpointWarning: c.endpointWarning, Servers: make([]control.ServerStatus, 0, len(c.order))}
	st.ServerPath, st.LoginShell = c.serverPathLocked()
	st.Windows = c.windows.kinds()
	for _, name := range c.order {
		if s, ok := c.servers[name]; ok {
			st.Servers = append(st.Servers, s.status)
		}
	}
	return st
}

// Subscribe returns a channel that receives the latest Status after every
// change (intermediate states may be skipped) and a cancel func.
func (c *Core) Subscribe() (<-chan control.Status, func()) {
	ch := make(chan control.Status, 1)
	c.mu.Lock()
	c.subs[ch] = struct{}{}
	c.mu.Unlock()
	ch <- c.Status()
	return ch, func() {
		c.mu.Lock()
		delete(c.subs, ch)
		c.mu.Unlock()
	}
}

// broadcast marks the status changed; the broadcaster sends it. It never
// waits, so a change costs O(1) however many servers there are: the
// changes of a mass apply or of stopping every server share a snapshot.
func (c *Core) broadcast() {
	select {
	case c.statusDirty <- struct{}{}:
	default:
	}
}

// statusEvery is the shortest time between two status snapshots; the
// changes in between share the next one.
const statusEvery = 20 * time.Millisecond

// broadcaster sends a snapshot after each change (or run of changes) until
// stop is closed, then one more if anything changed since the last.
func (c *Core) broadcaster(stop <-chan struct{}) {
	pause := time.NewTimer(0)
	defer pause.Stop()
	for {
		select {
		case <-c.statusDirty:
		case <-stop:
			select {
			case <-c.statusDirty:
				c.sendStatus()
			default:
			}
			return
		}
		c.sendStatus()
		pause.Reset(statusEvery)
		select {
		case <-pause.C:
		case <-stop:
		}
	}
}

// sendStatus gives the newest status to the gateway, then to every
// subscriber (dropping one it has not read yet: the newest wins). Called
// by the broadcaster only, so snapshots go out in order.
func (c *Core) sendStatus() {
	c.snapshots.Add(1)
	c.mu.Lock()
	st := c.statusLocked()
	conf := c.configured()
	c.mu.Unlock()
	// The gateway re-syncs its views on SetConfigured: only when what it
	// sees (names, enabled, states, cached tools) changed, and outside c.mu.
	if !slices.EqualFunc(conf, c.lastConfigured, sameConfigured) {
		c.lastConfigured = conf
		c.gw.SetConfigured(conf)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for ch := range c.subs {
		select {
		case <-ch: // drop the stale one; the newest wins
		default:
		}
		select {
		case ch <- st:
		default:
		}
	}
}

func sameConfigured(a, b mcp.ConfiguredServer) bool {
	return a.Name == b.Name && a.Enabled == b.Enabled && a.State == b.State &&
		len(a.CachedTools) == len(b.CachedTools) &&
		(len(a.CachedTools) == 0 || &a.CachedTools[0] == &b.CachedTools[0])
}

// SetEnabled turns a server on or off by rewriting its "disabled" key in
// mcp.json (atomically, every other byte kept); the watcher applies it.
func (c *Core) SetEnabled(name string, enabled bool) error {
	c.mu.Lock()
	s := c.servers[name]
	c.mu.Unlock()
	if s != nil {
		s.personActed() // a sign-in may be asked again (maxAsks)
	}
	return c.configFile.SetEnabled(name, enabled)
}

// Restart stops and starts one server, resetting its backoff. Its entry
// is resolved again first (${keyring:…}, ${env:…}, ${input:…}), so a
// secret set since it failed is used; when mcp.json does not parse now,
// it restarts with the spec it has.
// The person's restart starts the count of sign-ins in a row anew
// (maxAsks); a sign-in's own restart does not.
func (c *Core) Restart(name string) error {
	c.mu.Lock()
	s, ok := c.servers[name]
	c.mu.Unlock()
	if ok {
		s.personActed()
	}
	return c.restart(name)
}

// restart is Restart, keeping the count of sign-ins in a row.
func (c *Core) restart(name string) error {
	c.mu.Lock()
	s, ok := c.servers[name]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrNoServer, name)
	}
	cfg, err := config.Load(c.opts.ConfigPath, c.configEnv())
	if err == nil {
		if i := slices.IndexFunc(cfg.Servers, func(sp config.Server) bool { return sp.Name == name }); i >= 0 {
			c.mu.Lock()
			s.restartWith(cfg.Servers[i])
			c.mu.Unlock()
			return nil
		}
	}
	s.restart()
	return nil
}

// ErrNoServer is returned for a name that mcp.json does not have: the
// same error as config's, which the file's edits return.
var ErrNoServer = config.ErrNoServer

// keyringTimeout bounds a keyring call (the bearer token, ${input:ID}'s
// passwords): a locked keyring may wait for the person to answer an unlock
// prompt, and a reload must not hang.
const keyringTimeout = keyring.Timeout
