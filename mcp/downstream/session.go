package downstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is a tool as a server lists it, so callers can read names and
// schemas without importing the SDK.
type Tool = sdk.Tool

// CallToolResult is a tools/call result as the server sent it.
type CallToolResult = sdk.CallToolResult

// ProtocolVersion is the version of initialize, for servers that do not
// take the server/discover probe (ProbeVersion, probe.go).
const ProtocolVersion = "2025-11-25"

// InstanceEnv is the environment variable carrying the mcptray instance id
// on every server; ReapGroup kills only processes that carry it.
const InstanceEnv = "MCPTRAY_INSTANCE"

// serverEnv is the environment variable that marks each started server
// with a random value of its own (each start gets a new one). Its
// descendants inherit it, so those that left the process group (setsid)
// and lost their parent are still known as the server's at stop, and by
// the watchdog after mcptray died.
const serverEnv = "MCPTRAY_SERVER"

// Default stop timings; StdioSpec fields override them per server.
var (
	defaultStopGrace = 2 * time.Second // after closing stdin, before SIGTERM
	defaultTermGrace = 3 * time.Second // after SIGTERM, before SIGKILL
)

// ErrClosed is wrapped by calls that fail because the session ended.
var ErrClosed = errors.New("session closed")

// StdioSpec says how to start a stdio server.
type StdioSpec struct {
	Name    string   // server name; errors don't repeat it (the caller adds it)
	Command string   // as configured; looked up in Env's PATH (or ours) unless it holds a '/'
	Args    []string // arguments after the command
	Env     []string // the child's whole environment (KEY=VALUE); nil inherits ours
	Dir     string   // working directory; "" is ours

	// Watchdog, when set, tracks the server's process group so it dies with
	// mcptray even when mcptray is killed with SIGKILL.
	Watchdog *Watchdog

	// StopGrace and TermGrace override the package defaults when non-zero.
	StopGrace time.Duration
	TermGrace time.Duration

	// LogLevel is sent as logging/setLevel after initialize when the server
	// declares the logging capability: "" means "info", "off" sends nothing.
	LogLevel string

	// StartTimeout, when non-zero, bounds initialize and tools/list like a
	// deadline on ctx, except that it stops while the server's
	// elicitation waits in the inbox (see session_startup.go).
	StartTimeout time.Duration

	// Router, when set, takes the server's elicitations while it starts,
	// before Session.Attach (Gateway.SetServer) gives it its router for
	// good: they go to the inbox, as any elicitation outside a tool call
	// does.
	Router Router

	// Secrets are redacted from everything the server says, from its
	// first line on (the password inputs its environment may hold).
	Secrets []string

	// DiscoverFirst starts the server with the server/discover probe
	// (ProbeVersion), and initialize where it does not take it; by
	// default initialize comes first, and the probe only where the
	// server refuses initialize (see Start).
	DiscoverFirst bool

	// Probes, when set, remembers the servers that did not take the
	// first request, and which one they took (ProbeMemory).
	Probes *ProbeMemory

	// ProbeKey names the server's program in Probes: a hash that stays
	// the same across restarts of mcptray while the command line does
	// (the app's launch fingerprint). Zero: Fingerprint(spec), which
	// hashes the whole environment, so holds for this process only.
	ProbeKey ProbeKey

	// NotReadingAfter is how long the server may leave what is sent to
	// it unread before it counts as not reading its input (its calls
	// fail, the Router's NotReading); 0 is DefaultNotReadingAfter, and
	// a negative value never counts it so.
	NotReadingAfter time.Duration
}

// HTTPSpec says how to reach a remote streamable-HTTP server. Redirects are
// refused; header values are never logged or put in errors.
type HTTPSpec struct {
	Name     string
	URL      string
	Headers  map[string]string
	LogLevel string   // as in StdioSpec
	Secrets  []string // as in StdioSpec

	StartTimeout time.Duration // as in StdioSpec
	Router       Router        // as in StdioSpec

	// OAuth, when set, signs every request (the SDK's and the raw
	// fast path's) with its token and answers the server's 401/403
	// (mcp/oauthclient's Handler). Its errors (a sign-in needed) come
	// back wrapped in StartHTTP's and the calls' errors; its tokens are
	// redacted from everything the server says.
	OAuth auth.OAuthHandler
	// AskAuth, with OAuth, is called when OAuth cannot authorize a request
	// of the ready session (not of the start): it may wait for the person
	// to sign in, and returns true to retry the request (http_auth.go).
	AskAuth func(ctx context.Context, err error) bool
	// AuthOK, with AskAuth, is called once the server answers a request
	// with something other than 401 or 403 after a sign-in AskAuth
	// answered with true: the new token worked. It must return quickly.
	AuthOK func()
}

// Hooks receive what a server says outside of replies. Every field is
// optional.
type Hooks struct {
	// Log receives one line of server output. kind is "stderr", "stdout"
	// (a stdout line that is not JSON-RPC) or, for notifications/message, the
	// level ("debug", "info", "notice", "warning", "error", …) with line being
	// the data on one line, prefixed with "logger: " when the server names
	// one. Called from reader goroutines, possibly concurrently.
	Log func(kind, line string)

	// Event receives notifications whose method the protocol does not define
	// (e.g. "event/new_email"), params as received. They never reach the SDK.
	// Called synchronously from the stdout read loop: it must return quickly
	// (hand the event to a channel or a store write, nothing slower). Not
	// called for HTTP servers.
	Event func(method string, params json.RawMessage)

	// ToolsChanged is called after notifications/tools/list_changed, from the
	// SDK's notification goroutine. It may call ListTools.
	ToolsChanged func()

	// NotReading is called with true when a stdio server stops reading its
	// input (Session.NotReading), and with false when it reads again;
	// from a timer's goroutine. It must return quickly.
	NotReading func(notReading bool)
}

func (h Hooks) log(kind, line string) {
	if h.Log != nil {
		h.Log(kind, line)
	}
}

// A Session is one connected, initialized server. Its goroutines (stdout and
// stderr readers, the process reaper, the lifecycle monitor) are started by
// Start and all end once the process group is gone; Close waits for that.
type Session struct {
	hooks     Hooks
	cs        *sdk.ClientSession // set by Start before the session is returned
	proc      *process           // nil for HTTP
	conn      *stdioConn         // nil for HTTP
	raw       *rawHTTP           // HTTP only: where WriteLine posts (http_raw.go); set by StartHTTP before the session is returned
	rawReady  atomic.Bool        // HTTP only: cs and raw are set (checkTap may answer a server before)
	stderr    *stderrReader      // nil for HTTP
	stopGrace time.Duration
	termGrace time.Duration

	life    context.Context    // cancelled when the session ends or Close begins
	endLife context.CancelFunc // cancels life; in-flight calls then return

	listMu   sync.Mutex // one ListTools at a time: stdioConn.toolsPage or httpPage is its page
	toolsMu  sync.Mutex
	tools    []*Tool           // guarded by toolsMu: the last full tools/list
	toolsRaw []json.RawMessage // guarded by toolsMu: tools as the server sent them, index for index (tools_raw.go)
	// httpPage is an HTTP server's last tools/list result as sent, kept by
	// toolsTap for ListTools (http_tools.go); stdio servers' is
	// stdioConn.toolsPage.
	httpPage atomic.Pointer[json.RawMessage]

	// router is the Router this session serves (Attach); nil until then.
	// Read by the SDK's handlers.
	router atomic.Pointer[Router]
	deaf   atomic.Bool // the server is not reading its input (stdin_watch.go)

	notReadingAfter time.Duration // StdioSpec.NotReadingAfter, or its default
	// early is the spec's Router, which takes elicitations until Attach
	// (nil: none); written before initialize, read by the SDK's handlers.
	early Router
	// startClock is the startup deadline of StartTimeout, paused while an
	// elicitation waits in the inbox (session_startup.go).
	startClock Deadline
	// secrets are the values to redact from what the server says (see
	// session_redact.go, wire.Secrets); nil: none.
	secrets atomic.Pointer[wire.Secrets]
	// wireMeta is what each request to a new-wire stdio server carries
	// in its _meta (probe.go); nil for older servers and HTTP. Written
	// before Start returns.
	wireMeta *WireMeta
	newWire  bool // the session speaks NewWireVersion; written before Start returns
	// logLevel is the level asked for at startup ("info" unless the spec
	// said otherwise; "off" for none). Written before Start returns.
	logLevel string

	closeOnce sync.Once
	closeReq  chan struct{} // closed by Close

	done       chan struct{} // closed when the session has ended
	exitReason string        // written before done closes
	exitCode   int           // written before done closes
}

func newSession(hooks Hooks) *Session {
	s := &Session{
		closeReq: make(chan struct{}),
		done:     make(chan struct{}),
		exitCode: -1,
	}
	if log := hooks.Log; log != nil {
		hooks.Log = func(kind, line string) { log(kind, s.RedactText(line)) }
	}
	if event := hooks.Event; event != nil {
		// Redacted before the hook: an event is stored, listed to
		// assistants and shown in notifications as it is given.
		hooks.Event = func(method string, params json.RawMessage) { event(s.RedactText(method), s.RedactJSON(params)) }
	}
	s.hooks = hooks
	s.life, s.endLife = context.WithCancel(context.Background())
	return s
}

// ErrNoAssistant answers a server's sampling request when no assistant
// session can take it.
var ErrNoAssistant = &jsonrpc.Error{Code: -1, Message: "sampling is not available: no assistant session is waiting on this server"}

// newClient makes the SDK client with our handlers. The client declares
// sampling and elicitation (form and URL) so servers offer the tools that
// need them; both go to the session's Router (the gateway's), elicitation
// also while the server starts (session_startup.go). Without a Router,
// sampling fails and elicitation is cancelled. mcptray serves no roots.
func (s *Session) newClient() *sdk.Client {
	c := s.newSDKClient(false)
	c.AddSendingMiddleware(s.logLevelMeta)
	return c
}

// newHTTPClient is newClient for an HTTP server: the SDK does not answer
// a tools/call's input_required itself, which the gateway does
// (mcp/gateway_input.go: it may relay the round to its assistant);
// inputRounds answers those of prompts/get and resources/read.
func (s *Session) newHTTPClient() *sdk.Client {
	c := s.newSDKClient(true)
	c.AddSendingMiddleware(s.inputRounds)
	c.AddSendingMiddleware(s.logLevelMeta)
	return c
}

func (s *Session) newSDKClient(noRounds bool) *sdk.Client {
	var rounds *sdk.MultiRoundTripOptions
	if noRounds {
		rounds = &sdk.MultiRoundTripOptions{Disabled: true}
	}
	return sdk.NewClient(&sdk.Implementation{Name: "mcptray", Version: Version()}, &sdk.ClientOptions{
		MultiRoundTrip: rounds,
		Capabilities: &sdk.ClientCapabilities{
			Sampling: &sdk.SamplingCapabilities{},
			Elicitation: &sdk.ElicitationCapabilities{
				Form: &sdk.FormElicitationCapabilities{},
				URL:  &sdk.URLElicitationCapabilities{},
			},
		},
		LoggingMessageHandler: func(ctx context.Context, req *sdk.LoggingMessageRequest) {
			if p, err := RedactValue(s, req.Params); err == nil && p != nil {
				s.LogMessage(p)
				if r := s.attached(); r != nil {
					r.Log(s, p)
				}
			}
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			if s.hooks.ToolsChanged != nil {
				s.hooks.ToolsChanged()
			}
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			if r := s.attached(); r != nil {
				r.FeaturesChanged(s)
			}
		},
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) {
			if r := s.attached(); r != nil {
				r.FeaturesChanged(s)
			}
		},
		ResourceUpdatedHandler: func(ctx context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			if r := s.attached(); r != nil && req.Params != nil {
				r.ResourceUpdated(s, req.Params)
			}
		},
		ProgressNotificationHandler: func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
			if r := s.attached(); r != nil && req.Params != nil {
				r.Progress(req.Params)
			}
		},
		CreateMessageHandler: func(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			if r := s.attached(); r != nil {
				return r.CreateMessage(ctx, s, req.Params)
			}
			return nil, ErrNoAssistant
		},
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			if r := s.elicitRoute(); r != nil {
				return r.Elicit(ctx, s, req.Params)
			}
			return &sdk.ElicitResult{Action: "cancel"}, nil
		},
		ElicitationCompleteHandler: func(ctx context.Context, req *sdk.ElicitationCompleteNotificationRequest) {
			if r := s.attached(); r != nil && req.Params != nil {
				r.ElicitationComplete(s, req.Params)
			}
		},
	})
}

// Capabilities are the server's as it declared them at initialize.
func (s *Session) Capabilities() *sdk.ServerCapabilities {
	if s.cs == nil {
		return nil
	}
	if res := s.cs.InitializeResult(); res != nil {
		return res.Capabilities
	}
	return nil
}

// Stdio reports whether the server is a stdio one (its stdout goes
// through the tap); false for HTTP.
func (s *Session) Stdio() bool { return s.conn != nil }

// WriteLine writes one raw message line to a stdio server's stdin, or
// queues it, or posts it to an HTTP server, whose answer then goes to the
// Router's Tap (http_raw.go); it never waits for the server. It fails when
// the session is closed or the server stopped reading its stdin
// (ErrStdinFull: its queue holds MaxStdinQueue bytes).
func (s *Session) WriteLine(line []byte) error {
	if s.conn == nil {
		return s.writeRaw(line)
	}
	_, _, err := s.conn.writeLine(line, 0)
	return err
}

// WriteCall is WriteLine for a call's request: tag (non-zero, the
// caller's number for the call) lets Withdraw take it back while none of
// it is written. written reports whether it all went out at once (an HTTP
// server's POST: always). end is where the line ends in the bytes sent to
// a stdio server, for the Router's NotReading (0 for an HTTP server). A
// stdio server that is not reading its input refuses calls
// (NotReadingError).
func (s *Session) WriteCall(tag uint64, line []byte) (end uint64, written bool, err error) {
	if s.conn == nil {
		return 0, true, s.writeRaw(line)
	}
	return s.conn.writeLine(line, tag)
}

// Withdraw takes back the line WriteCall queued with tag, if none of it
// was written yet, and reports whether it did: the server never sees it.
// An HTTP server's line is posted at once: never withdrawn.
func (s *Session) Withdraw(tag uint64) bool {
	if s.conn == nil {
		return false
	}
	return s.conn.stdin.withdraw(tag)
}

// Client is the SDK's client session; nil until Start returns it.
func (s *Session) Client() *sdk.ClientSession { return s.cs }

// Context is cancelled when the session ends or Close begins.
func (s *Session) Context() context.Context { return s.life }

// HasSecrets reports whether anything is redacted from the server's words.
func (s *Session) HasSecrets() bool { return s.secrets.Load() != nil }

// loggingLevel is the level asked for at startup ("off": none).
func (s *Session) LogLevel() string { return s.logLevel }

// PauseStartup stops the startup deadline's clock while the server waits
// on the person; call resume when it no longer does.
func (s *Session) PauseStartup() (resume func()) {
	s.startClock.Pause()
	return s.startClock.Resume
}

// LogMessage hands a notifications/message to Hooks.Log.
func (s *Session) LogMessage(p *sdk.LoggingMessageParams) {
	s.hooks.log(string(p.Level), logMessageLine(p))
}

// LogStray logs a reply with the raw id that answers nothing, for why
// (strayNotInFlight, strayOtherServer).
func (s *Session) LogStray(id []byte, why string) {
	if s.conn == nil {
		s.hooks.log("stdout", wire.LogText([]byte(fmt.Sprintf("reply with id %s dropped: %s", id, why))))
		return
	}
	s.conn.logStray(id, why)
}

// logMessageLine renders notifications/message data as one line.
func logMessageLine(p *sdk.LoggingMessageParams) string {
	var text string
	switch d := p.Data.(type) {
	case string:
		text = d
	case nil:
		text = ""
	default:
		b, err := json.Marshal(d)
		if err != nil {
			text = fmt.Sprint(d)
		} else {
			text = string(b)
		}
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\n", `\n`)
	if p.Logger != "" {
		text = p.Logger + ": " + text
	}
	return wire.LogText([]byte(text))
}

// afterConnect finishes startup once initialize succeeded: the log level,
// then every page of tools/list.
func (s *Session) afterConnect(ctx context.Context, level string) error {
	if s.logLevel == "" { // Start sets it before Connect: the SDK's goroutines read it since
		s.logLevel = levelOf(level)
	}
	level = s.logLevel
	if res := s.cs.InitializeResult(); level != "off" && res != nil && res.ProtocolVersion < NewWireVersion && res.Capabilities != nil && res.Capabilities.Logging != nil {
		// A server that declares logging but rejects the level still works.
		_ = s.cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(level)})
	}
	_, err := s.ListTools(ctx)
	return err
}

// levelOf is the log level a spec asks for: "info" when it says none.
func levelOf(level string) string {
	if level == "" {
		return "info"
	}
	return level
}

// PID is the server process's id; 0 for HTTP.
func (s *Session) PID() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.pid
}

// PGID is the server's process group id (its PID); 0 for HTTP.
func (s *Session) PGID() int { return s.PID() }

// Tools returns the tools of the last full tools/list.
func (s *Session) Tools() []*Tool {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	return s.tools
}

// ListTools lists every page of the server's tools, remembers the result
// for Tools and returns it.
func (s *Session) ListTools(ctx context.Context) ([]*Tool, error) {
	callCtx, stop := s.CallContext(ctx)
	defer stop()
	s.listMu.Lock()
	defer s.listMu.Unlock()
	var tools []*Tool
	var raws []json.RawMessage
	params := &sdk.ListToolsParams{}
	seen := map[string]bool{}
	for {
		s.clearRawPage()
		res, err := s.cs.ListTools(callCtx, params)
		if err != nil {
			return nil, s.callError(ctx, err)
		}
		raws = append(raws, s.rawPage(len(res.Tools))...)
		page, err := RedactValue(s, &res.Tools)
		if err != nil {
			return nil, err
		}
		tools = append(tools, *page...)
		if res.NextCursor == "" {
			break
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("tools/list: server repeated page cursor %q", res.NextCursor)
		}
		seen[res.NextCursor] = true
		params = &sdk.ListToolsParams{Cursor: res.NextCursor}
	}
	s.toolsMu.Lock()
	s.tools, s.toolsRaw = tools, raws
	s.toolsMu.Unlock()
	if r := s.attached(); r != nil {
		r.ToolsListed(s)
	}
	return tools, nil
}

// CallTool calls a tool and returns the server's result unchanged. A tool
// that fails reports it in the result (IsError); err is for protocol and
// connection failures.
func (s *Session) CallTool(ctx context.Context, name string, args map[string]any) (*CallToolResult, error) {
	callCtx, stop := s.CallContext(ctx)
	defer stop()
	if args == nil {
		args = map[string]any{}
	}
	res, err := s.cs.CallTool(callCtx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, s.callError(ctx, err)
	}
	return res, nil
}

// CallContext is ctx, also cancelled when the session ends.
func (s *Session) CallContext(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.life, cancel)
	return ctx, func() { stop(); cancel() }
}

// callError says "session closed" rather than "context canceled" when the
// call ended because the session did.
func (s *Session) callError(ctx context.Context, err error) error {
	if ctx.Err() == nil && s.life.Err() != nil {
		if reason := s.ExitReason(); reason != "" {
			return fmt.Errorf("%w (%s)", ErrClosed, reason)
		}
		return ErrClosed
	}
	return err
}

// Done is closed when the session has ended: the process exited (and its
// group is gone), its stdout closed, the connection dropped, or Close.
func (s *Session) Done() <-chan struct{} { return s.done }

// ExitReason is one line saying why the session ended, e.g. "exited with
// code 3", "killed by signal 9", "stopped", "connection closed". It is ""
// until Done is closed.
func (s *Session) ExitReason() string {
	select {
	case <-s.done:
		return s.exitReason
	default:
		return ""
	}
}

// ExitCode is the process's exit code once Done is closed; -1 when it was
// killed by a signal, for HTTP, or before Done.
func (s *Session) ExitCode() int {
	select {
	case <-s.done:
		return s.exitCode
	default:
		return -1
	}
}

// Close stops the server. For stdio: close stdin, wait up to StopGrace,
// SIGTERM to the process group, wait up to TermGrace, SIGKILL to the group;
// each signal also reaches the descendants that left the group (strays,
// see doc.go). It returns once the process, its whole group and its
// strays are gone. Idempotent and
// safe to call concurrently, also after Done.
func (s *Session) Close() error {
	s.closeOnce.Do(func() { close(s.closeReq) })
	<-s.done
	if s.cs != nil {
		s.cs.Close() // the connection is already down; this only tidies up
	}
	return nil
}

// Version is mcptray's module version for clientInfo.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// startupError is a startup failure's one line; Unwrap gives the cause.
type startupError struct {
	msg   string
	cause error
	tail  []string // the last stderr lines, for status (stderrTail)
}

func (e *startupError) Error() string { return e.msg }
func (e *startupError) Unwrap() error { return e.cause }

// budgetOf is how long ctx gives startup, for "no answer within …".
func budgetOf(ctx context.Context, begun time.Time) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	return roundBudget(dl.Sub(begun))
}

// roundBudget rounds a startup budget for a person to read: what a
// deadline leaves once Start has begun is a little less than was given
// (995ms of a 1s deadline reads "1s").
func roundBudget(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Second)
	case d >= 100*time.Millisecond:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// timeoutError is the error for a startup that ctx cut short.
func timeoutError(ctx context.Context, phase string, budget time.Duration, detail string) *startupError {
	var msg string
	cause := context.Cause(ctx) // DeadlineExceeded also for StartTimeout
	if errors.Is(cause, context.DeadlineExceeded) && budget > 0 {
		msg = fmt.Sprintf("no answer to %s within %s", phase, budget)
	} else {
		msg = fmt.Sprintf("startup cancelled during %s: %v", phase, ctx.Err())
	}
	return &startupError{msg: msg + detail, cause: cause}
}
