package calendar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/stdioserver"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gcal "google.golang.org/api/calendar/v3"
)

// Defaults of Options.
const (
	DefaultPoll     = 2 * time.Minute
	MinPoll         = time.Second
	DefaultReminder = 10 * time.Minute
)

// Options configure a Server. Only Accounts is required.
type Options struct {
	// Accounts gives the accounts and their authorized clients.
	Accounts google.AccountSource
	// Account is the default account (`serve gcal --account EMAIL`);
	// "" means the first account added.
	Account string
	// SignIn asks the person to sign email in again ("" when no account
	// exists yet) because of why, through ss (nil outside a tool call);
	// the call is retried once after it returns nil. Nil: such calls fail
	// with a message saying how to sign in.
	SignIn func(ctx context.Context, ss *sdk.ServerSession, email string, why error) error
	// DataDir holds the poller's cursors (no secrets). "" keeps them in
	// RAM only.
	DataDir string
	// Poll is the sync interval (x-mcptray.google.calendarPoll), default
	// DefaultPoll, at least MinPoll.
	Poll time.Duration
	// Reminder is how long before an accepted event starts its
	// event/calendar_reminder is sent (calendarReminder), default
	// DefaultReminder.
	Reminder time.Duration
	// Notify sends an event notification. Default stdioserver.Notify.
	Notify func(method string, params any) error
	// Location is the user's zone when no calendar says one. Default
	// time.Local.
	Location *time.Location
	// Now is the clock (tests). Default time.Now.
	Now func() time.Time
	// Logger gets one line per sync problem and tool failure, never a
	// token. Default: discard.
	Logger *slog.Logger
	// Version is reported in the MCP handshake.
	Version string
}

// Server is the built-in Google Calendar MCP server.
type Server struct {
	opts  Options
	log   *slog.Logger
	retry google.Backoff

	zoneMu sync.Mutex        // guards zones
	zones  map[string]string // account → its primary calendar's zone

	ownMu sync.Mutex           // guards own
	own   map[string]time.Time // "account/event" changed by our tools (when), not to announce
}

// New returns a Server.
func New(opts Options) *Server {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	if opts.Poll < MinPoll {
		opts.Poll = MinPoll
	}
	if opts.Reminder <= 0 {
		opts.Reminder = DefaultReminder
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
	return &Server{opts: opts, log: opts.Logger, retry: google.DefaultBackoff, zones: map[string]string{}, own: map[string]time.Time{}}
}

// ServeStdio serves MCP on stdin and stdout, and polls for changes,
// until the client goes or ctx ends.
func (s *Server) ServeStdio(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Poll(ctx)
	}()
	err := s.MCPServer().Run(ctx, stdioserver.Transport())
	cancel()
	<-done
	return err
}

// accountsFor resolves a tool's account argument: "" is the default
// account, "all" every account (only when all is allowed). With no
// account at all it returns [""], which asks for a sign-in.
func (s *Server) accountsFor(in string, all bool) ([]string, error) {
	emails, err := s.opts.Accounts.Emails()
	if err != nil {
		return nil, fmt.Errorf("reading the Google accounts: %w", err)
	}
	if len(emails) == 0 {
		return []string{""}, nil
	}
	switch {
	case in == "" && s.opts.Account != "":
		in = s.opts.Account
	case in == "":
		return emails[:1], nil
	case strings.EqualFold(in, "all"):
		if !all {
			return nil, errors.New(`account "all" is only for the reading tools list_calendars, list_events and find_free_time: pass one account (` + strings.Join(emails, ", ") + ")")
		}
		return emails, nil
	}
	for _, e := range emails {
		if strings.EqualFold(e, in) {
			return []string{e}, nil
		}
	}
	return nil, fmt.Errorf("no Google account %s has been added; the accounts are %s (add one with: mcptray auth google add)", in, strings.Join(emails, ", "))
}

// account resolves a tool's account argument to one account.
func (s *Server) account(in string) (string, error) {
	list, err := s.accountsFor(in, false)
	if err != nil {
		return "", err
	}
	return list[0], nil
}

// api runs one API call op for *email (google.Caller.Call): the
// account's client, retries while rate-limited, one sign-in when needed.
// *email "" (no account yet) becomes the account signed in.
func (s *Server) api(ctx context.Context, req *sdk.CallToolRequest, email *string, op func(*gcal.Service) error) error {
	return s.caller().Call(ctx, req, email, op)
}

// try runs op once for email, without signing in (google.Caller.Try).
func (s *Server) try(ctx context.Context, email string, op func(*gcal.Service) error) error {
	return s.caller().Try(ctx, email, op)
}

// caller is the server's google.Caller, on its current options.
func (s *Server) caller() *google.Caller[*gcal.Service] {
	return &google.Caller[*gcal.Service]{Accounts: s.opts.Accounts, NewService: newService, What: "Calendar",
		Retry: &s.retry, SignIn: s.opts.SignIn, Account: s.account}
}

// zone is the account's primary calendar's time zone (cached), or the
// user's local zone when it cannot be read.
func (s *Server) zone(ctx context.Context, req *sdk.CallToolRequest, email *string) (string, error) {
	s.zoneMu.Lock()
	tz, ok := s.zones[*email]
	s.zoneMu.Unlock()
	if ok {
		return tz, nil
	}
	var entry *gcal.CalendarListEntry
	err := s.api(ctx, req, email, func(svc *gcal.Service) (err error) {
		entry, err = svc.CalendarList.Get("primary").Context(ctx).Do()
		return err
	})
	if err != nil {
		return "", explain(err, "reading the primary calendar of "+*email)
	}
	tz = entry.TimeZone
	if _, lerr := time.LoadLocation(tz); tz == "" || lerr != nil {
		tz = s.opts.Location.String()
	}
	s.zoneMu.Lock()
	s.zones[*email] = tz
	s.zoneMu.Unlock()
	return tz, nil
}

// ownTTL is how long a tool's change waits to be seen by the poller
// before it is forgotten (an unselected calendar's never is).
const ownTTL = time.Hour

// markOwn notes an event changed by a tool: the poller does not announce
// its next change back to the assistant that made it.
func (s *Server) markOwn(email, eventID string) {
	s.ownMu.Lock()
	defer s.ownMu.Unlock()
	now := s.opts.Now()
	for k, at := range s.own {
		if now.Sub(at) > ownTTL {
			delete(s.own, k)
		}
	}
	s.own[email+"/"+eventID] = now
}

// takeOwn reports (and forgets) whether a change was a tool's own.
func (s *Server) takeOwn(email, eventID string) bool {
	s.ownMu.Lock()
	defer s.ownMu.Unlock()
	k := email + "/" + eventID
	_, ok := s.own[k]
	delete(s.own, k)
	return ok
}
