package calendar

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config is what `mcptray serve gcal` has to give: the accounts, the
// entry's --account, the data dir, and the x-mcptray.google settings as
// the config file writes them.
type Config struct {
	Accounts google.AccountSource
	Account  string // --account EMAIL; "" for the first account
	DataDir  string // mcptray's data dir (the cursors file goes there)
	// CalendarPoll and CalendarReminder are x-mcptray.google.calendarPoll
	// (default "2m", at least "1s") and calendarReminder (default "10m").
	CalendarPoll, CalendarReminder string
	// SignIn asks for a sign-in (Options.SignIn); nil with Accounts a
	// *google.Accounts means ElicitSignIn of them.
	SignIn  func(ctx context.Context, ss *sdk.ServerSession, email string, why error) error
	Logger  *slog.Logger
	Version string
}

// NewFromConfig checks c's settings and returns the Server.
func NewFromConfig(c Config) (*Server, error) {
	if c.Accounts == nil {
		return nil, fmt.Errorf("the Calendar server needs the Google accounts")
	}
	poll, err := setting("calendarPoll", c.CalendarPoll, DefaultPoll)
	if err != nil {
		return nil, err
	}
	if poll < MinPoll {
		return nil, fmt.Errorf("x-mcptray.google.calendarPoll %q is too short: at least %q", c.CalendarPoll, MinPoll.String())
	}
	reminder, err := setting("calendarReminder", c.CalendarReminder, DefaultReminder)
	if err != nil {
		return nil, err
	}
	if a, ok := c.Accounts.(*google.Accounts); ok && c.SignIn == nil {
		c.SignIn = ElicitSignIn(a)
	}
	return New(Options{Accounts: c.Accounts, Account: c.Account, DataDir: c.DataDir, Poll: poll, Reminder: reminder,
		SignIn: c.SignIn, Logger: c.Logger, Version: c.Version}), nil
}

func setting(name, v string, def time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("x-mcptray.google.%s %q is not a duration: write it like %q", name, v, def.String())
	}
	return d, nil
}

// ElicitSignIn is the SignIn of a server on the real accounts:
// google.ElicitSignIn, which gmail shares.
func ElicitSignIn(a *google.Accounts) func(ctx context.Context, ss *sdk.ServerSession, email string, why error) error {
	return google.ElicitSignIn(a)
}
