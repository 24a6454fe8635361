package gmail

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config is what `mcptray serve gmail` has to give: the accounts, the
// entry's --account, the data dir, and the x-mcptray settings as the
// config file writes them (paths already made absolute).
type Config struct {
	Accounts google.AccountSource
	Account  string // --account EMAIL; "" for the first account
	DataDir  string // mcptray's data dir (the poller's cursor goes there)
	// GmailPoll is x-mcptray.google.gmailPoll (default "60s", at least
	// "1s"); GmailSend is x-mcptray.google.gmailSend (confirm, the
	// default, allow or drafts-only).
	GmailPoll, GmailSend string
	// DownloadDir is x-mcptray.google.downloadDir, absolute ("" for
	// ~/Downloads/mcptray).
	DownloadDir string
	// LocalRoots is x-mcptray.localRoots (or the older
	// x-mcptray.ssh.localRoots), absolute folders; nil for the home
	// folder.
	LocalRoots []string
	// Home is the user's home folder; "" for os.UserHomeDir.
	Home string
	// SignIn asks for a sign-in (Options.SignIn); nil with Accounts a
	// *google.Accounts means google.ElicitSignIn of them.
	SignIn  func(ctx context.Context, ss *sdk.ServerSession, email string, why error) error
	Logger  *slog.Logger
	Version string
}

// NewFromConfig checks c's settings and returns the Server.
func NewFromConfig(c Config) (*Server, error) {
	if c.Accounts == nil {
		return nil, fmt.Errorf("the Gmail server needs the Google accounts")
	}
	poll, err := ParsePoll(c.GmailPoll)
	if err != nil {
		return nil, err
	}
	send, err := ParseSendMode(c.GmailSend)
	if err != nil {
		return nil, err
	}
	if c.DownloadDir != "" && !filepath.IsAbs(c.DownloadDir) {
		return nil, fmt.Errorf("x-mcptray.google.downloadDir %q must be an absolute folder or start with ~", c.DownloadDir)
	}
	for _, r := range c.LocalRoots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("x-mcptray.localRoots: %q must be an absolute folder or start with ~", r)
		}
	}
	if a, ok := c.Accounts.(*google.Accounts); ok && c.SignIn == nil {
		c.SignIn = google.ElicitSignIn(a)
	}
	return New(Options{Accounts: c.Accounts, Account: c.Account, DataDir: c.DataDir, Poll: poll, Send: send,
		DownloadDir: c.DownloadDir, LocalRoots: c.LocalRoots, Home: c.Home,
		SignIn: c.SignIn, Logger: c.Logger, Version: c.Version}), nil
}

// ParsePoll reads x-mcptray.google.gmailPoll: a duration of at least
// MinPoll; "" is DefaultPoll.
func ParsePoll(v string) (time.Duration, error) {
	if v == "" {
		return DefaultPoll, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("x-mcptray.google.gmailPoll %q is not a duration: write it like %q", v, "60s")
	}
	if d < MinPoll {
		return 0, fmt.Errorf("x-mcptray.google.gmailPoll %q is too short: at least %q", v, MinPoll.String())
	}
	return d, nil
}

// ParseSendMode reads x-mcptray.google.gmailSend; "" is SendConfirm.
func ParseSendMode(v string) (SendMode, error) {
	switch m := SendMode(v); m {
	case "":
		return SendConfirm, nil
	case SendConfirm, SendAllow, SendDraftsOnly:
		return m, nil
	}
	return "", fmt.Errorf(`x-mcptray.google.gmailSend %q must be "confirm" (ask the person before each message goes out; the default), "allow" or "drafts-only"`, v)
}
