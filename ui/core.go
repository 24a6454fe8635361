package ui

import (
	"context"
	"io"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/inbox"
)

// Core is what the UI needs from the core; *app.Core satisfies it. The UI
// holds no state of its own beyond what it shows: every decision (what a
// toggle writes, when a server restarts) is the core's.
type Core interface {
	// Status returns the current state of every server and of the config.
	Status() control.Status
	// Subscribe returns a channel that receives the latest status on every
	// change. Updates are coalesced: intermediate states may be dropped. cancel
	// ends the subscription; the channel need not be closed by it.
	Subscribe() (updates <-chan control.Status, cancel func())
	// SetEnabled turns a server on or off (rewrites its "disabled" key in the
	// config file; the change then flows back through Subscribe).
	SetEnabled(name string, enabled bool) error
	// Restart stops and starts one server.
	Restart(name string) error
	// AskSignIn puts a remote server's "Sign in to NAME at HOST" request
	// in the inbox (its popup's yes opens the browser), when the server
	// waits in state needs-sign-in.
	AskSignIn(name string) error
	// ServerEntry reads a server's entry as written in mcp.json (variables
	// unresolved), for Edit. AddServer writes one (replace: Edit, in
	// place), its secrets stored first; an *config.EntryError refuses it with
	// the field to blame, and nothing is written. RemoveServer takes one
	// out and returns the ${keyring:NAME} names it used (left in the
	// keyring). Each change flows back through Subscribe.
	ServerEntry(name string) (config.Entry, error)
	AddServer(e config.Entry, replace bool) (config.AddResult, error)
	RemoveServer(name string) ([]string, error)
	// Tools lists a server's tools with their switches; SetToolEnabled
	// turns one on or off (rewrites the entry's disabledTools).
	Tools(name string) (control.ToolList, error)
	SetToolEnabled(server, tool string, on bool) error
	// FollowLog writes a server's log to w, then each new line, until ctx
	// ends.
	FollowLog(ctx context.Context, name string, w io.Writer) error
	// Token is the HTTP endpoint's bearer token.
	Token() (string, error)
	// ToolsMode is the configured default tool-list mode (live, stable or
	// dynamic); SetToolsMode rewrites it in the config file.
	ToolsMode() string
	SetToolsMode(mode string) error

	// SubscribeInbox returns the inbox's events: first an inbox.Added for
	// every request already waiting, then each change; the channel is
	// closed after cancel.
	SubscribeInbox() (events <-chan inbox.Event, cancel func())
	// Answer answers an inbox request: an *inbox.InvalidAnswerError names a
	// field the core refused (the request stays open); an error wrapping
	// inbox.ErrRequestClosed means it was answered elsewhere or is gone.
	Answer(id string, a inbox.Answer) error

	// Events returns the events f selects, oldest first; UnackedEvents
	// counts the unread ones; AckEvents marks events read.
	Events(f events.Filter) ([]events.Event, error)
	UnackedEvents() (int, error)
	AckEvents(req events.AckRequest) (int, error)
	// SubscribeEvents says when events arrive or are marked read.
	SubscribeEvents() (changes <-chan events.Change, cancel func())

	// GoogleCore is the Google tab's (google.go).
	GoogleCore
	// AssistantsCore is the Assistants tab's (assistants.go).
	AssistantsCore
	// SecretNames lists the names of the ${keyring:NAME} secrets (never a
	// value); SetSecret stores one and restarts the servers using it;
	// RemoveSecret deletes one (an error wrapping config.ErrNoSecret when
	// there is none).
	SecretNames() ([]string, error)
	SetSecret(name, value string) error
	RemoveSecret(name string) error
}
