package trust

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/store"
)

// Asker asks the person and returns their answer, or how the request
// ended (the deadline, ctx's end). *inbox.Inbox satisfies it.
type Asker interface {
	Ask(ctx context.Context, req inbox.Request, elicitationID string, timeout time.Duration) inbox.Result
}

// Marks keeps the once-per-install marker of the first start
// (launch_reset.go): the OS keyring, where a program that can only write
// files cannot reset it. Get fails with keyring.ErrNotFound when there is
// no marker.
type Marks interface {
	Get(name string) (string, error)
	Set(name, value string) error
}

// Options are what the core gives the trust layer. Each part reads the
// fields it needs; the callbacks are called with no lock of trust's held.
type Options struct {
	Store *store.Store // approved launches, pins, the first start's flag
	Log   *slog.Logger // the core's log
	Ask   Asker        // the inbox
	// Timeout is the inbox's deadline now (x-mcptray.inboxTimeout).
	Timeout func() time.Duration
	// Lifecycle writes a line in a server's log (kind lifecycle).
	Lifecycle func(server, text string)

	// For Launches.
	Marks      Marks  // the install's marker; see Marks
	DataDir    string // the data dir: the marker's name is made from it
	ConfigPath string // mcp.json, as the launch questions name it
	// NoticeServer is the server mcptray's own requests are filed under
	// (the reset question).
	NoticeServer string
	// TrustEdits runs new and changed entries without asking
	// (app.Options.TrustConfigEdits), as x-mcptray.trustConfigEdits does.
	TrustEdits bool
	// Env is the environment mcp.json's launches resolve in, for
	// ApproveOwnEdit.
	Env func() config.Env

	// For Pins: Released is told that a change of server's tool was
	// approved, with the tools still held (the gateway's SetHeld).
	Released func(server string, held map[string]string)

	// For Calls.
	// Mode is server's approve mode (its entry's x-mcptray.approve, else
	// the top level's).
	Mode func(server string) string
	// AllowTool adds tool to server's x-mcptray.allowTools in mcp.json
	// (config.File.AllowTool).
	AllowTool func(server, tool string) error
	// InboxLog writes a line in a server's log (kind inbox).
	InboxLog func(server, text string)
}
