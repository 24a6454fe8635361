package gmail

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/stdioserver"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gm "google.golang.org/api/gmail/v1"
)

// SendMode is how sending goes (x-mcptray.google.gmailSend).
type SendMode string

// The send modes.
const (
	// SendConfirm asks the person before send and send_draft send
	// anything (the default).
	SendConfirm SendMode = "confirm"
	// SendAllow sends without asking.
	SendAllow SendMode = "allow"
	// SendDraftsOnly lists neither send nor send_draft: the assistant can
	// only draft.
	SendDraftsOnly SendMode = "drafts-only"
)

// Defaults of Options.
const (
	DefaultPoll = 60 * time.Second
	MinPoll     = time.Second
)

// Options configure a Server. Only Accounts is required.
type Options struct {
	// Accounts gives the accounts and their authorized clients.
	Accounts google.AccountSource
	// Account is the default account (`serve gmail --account EMAIL`);
	// "" means the first account added.
	Account string
	// SignIn asks the person to sign email in again ("" when no account
	// exists yet) because of why, through ss (nil outside a tool call);
	// the call is retried once after it returns nil. Nil: such calls fail
	// with a message saying how to sign in.
	SignIn func(ctx context.Context, ss *sdk.ServerSession, email string, why error) error
	// Send is how sending goes; "" is SendConfirm.
	Send SendMode
	// DownloadDir is where download_attachment writes (absolute;
	// x-mcptray.google.downloadDir). Default Home/Downloads/mcptray.
	DownloadDir string
	// LocalRoots are the folders send and create_draft may attach files
	// from (absolute; x-mcptray.localRoots). Nil: Home; empty: none.
	LocalRoots []string
	// Home is the user's home folder, for a path starting with ~.
	// Default os.UserHomeDir.
	Home string
	// DataDir holds the poller's cursor (no secrets). "" keeps it in RAM.
	DataDir string
	// Poll is the new-mail interval (x-mcptray.google.gmailPoll), default
	// DefaultPoll, at least MinPoll. Only the poller reads it.
	Poll time.Duration
	// Notify sends an event notification (the poller's). Default
	// stdioserver.Notify.
	Notify func(method string, params any) error
	// Location is the zone of the dates the tools return. Default
	// time.Local.
	Location *time.Location
	// Now is the clock (tests). Default time.Now.
	Now func() time.Time
	// Logger gets one line per problem, never a token or a message's
	// content. Default: discard.
	Logger *slog.Logger
	// Version is reported in the MCP handshake.
	Version string
}

// Server is the built-in Gmail MCP server.
type Server struct {
	opts  Options
	log   *slog.Logger
	retry google.Backoff

	mu      sync.Mutex            // guards senders and labels
	senders map[string]senderInfo // account → its send-as addresses
	labels  map[string]labelInfo  // account → its labels

	uploadAbove int // a message larger goes as an upload (tests make it small)
}

// New returns a Server.
func New(opts Options) *Server {
	if opts.Send == "" {
		opts.Send = SendConfirm
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Poll < MinPoll {
		opts.Poll = MinPoll
	}
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	if opts.DownloadDir == "" {
		opts.DownloadDir = filepath.Join(opts.Home, "Downloads", "mcptray")
	}
	if opts.LocalRoots == nil && opts.Home != "" {
		opts.LocalRoots = []string{opts.Home}
	}
	if opts.Notify == nil {
		opts.Notify = stdioserver.Notify
	}
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Server{opts: opts, log: opts.Logger, retry: google.DefaultBackoff,
		senders: map[string]senderInfo{}, labels: map[string]labelInfo{}, uploadAbove: uploadAbove}
}

// ServeStdio serves MCP on stdin and stdout, and polls for new mail,
// until the client goes or ctx ends.
func (s *Server) ServeStdio(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wait := s.startPoller(ctx)
	err := s.MCPServer().Run(ctx, stdioserver.Transport())
	cancel()
	wait()
	return err
}

// startPoller starts the new-mail poller (poller.go) for as long as ctx
// lives, on a goroutine of its own, and returns a function that waits
// until it has stopped.
func (s *Server) startPoller(ctx context.Context) (wait func()) {
	p, err := NewPoller(PollerOptions{Accounts: s.opts.Accounts, DataDir: s.opts.DataDir,
		Interval: s.opts.Poll, Notify: s.opts.Notify, Logger: s.log, Backoff: s.retry})
	if err != nil {
		s.log.Warn("gmail: no new-mail poller", "err", err)
		return func() {}
	}
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	return func() { <-done }
}

// account resolves a tool's account argument: "" is the default account.
// With no account at all it returns "", which asks for a sign-in.
func (s *Server) account(in string) (string, error) {
	emails, err := s.opts.Accounts.Emails()
	if err != nil {
		return "", fmt.Errorf("reading the Google accounts: %w", err)
	}
	if len(emails) == 0 {
		return "", nil
	}
	if in == "" {
		in = s.opts.Account
	}
	if in == "" {
		return emails[0], nil
	}
	for _, e := range emails {
		if strings.EqualFold(e, in) {
			return e, nil
		}
	}
	return "", fmt.Errorf("no Google account %s has been added; the accounts are %s (add one with: mcptray auth google add)", in, strings.Join(emails, ", "))
}

// api runs one API call op for *email: it gets the account's client,
// retries op when rate-limited, and when the account must sign in asks
// SignIn once and runs op again. *email "" (no account yet) becomes the
// account signed in.
func (s *Server) api(ctx context.Context, req *sdk.CallToolRequest, email *string, op func(*gm.Service) error) error {
	for attempt := 0; ; attempt++ {
		err := s.try(ctx, *email, op)
		var sn *google.SignInNeededError
		if !errors.As(err, &sn) || attempt > 0 {
			return err
		}
		if s.opts.SignIn == nil {
			return fmt.Errorf("%v (sign in with: mcptray auth google add)", sn)
		}
		var ss *sdk.ServerSession
		if req != nil {
			ss = req.Session
		}
		if serr := s.opts.SignIn(ctx, ss, sn.Email, sn); serr != nil {
			return fmt.Errorf("%v; signing in did not complete: %w", sn, serr)
		}
		if *email == "" {
			e, rerr := s.account("")
			if rerr != nil {
				return rerr
			}
			*email = e
		}
	}
}

func (s *Server) try(ctx context.Context, email string, op func(*gm.Service) error) error {
	if email == "" {
		return &google.SignInNeededError{Reason: "no account has been added yet"}
	}
	hc, err := s.opts.Accounts.Client(ctx, email)
	if err != nil {
		return err
	}
	svc, err := newService(ctx, hc)
	if err != nil {
		return fmt.Errorf("making the Gmail client: %w", err)
	}
	return s.retry.Do(ctx, func() error { return op(svc) })
}
