package control

import (
	"context"
	"io"

	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/inbox"
)

// Backend is what the control API needs from the running core
// (*app.Core implements it). Errors a handler branches on wrap the
// sentinels named here; any other error is a 400 or a 500, its message
// the reply's "error".
type Backend interface {
	// Status is the whole core's state (GET /v1/status); Subscribe
	// delivers it after every change, newest wins (GET /v1/status/watch).
	Status() Status
	Subscribe() (<-chan Status, func())
	// SetEnabled rewrites a server's "disabled" key; Restart restarts
	// one server; ApproveServer lets a new or changed entry run (an
	// error wrapping config.ErrNotWaiting when it does not wait). Each
	// wraps config.ErrNoServer when there is no such server.
	SetEnabled(name string, enabled bool) error
	Restart(name string) error
	ApproveServer(name string) error
	// Tools lists a server's tools with their switches; SetToolEnabled
	// turns one on or off (config.ErrNoServer: no such server).
	Tools(name string) (ToolList, error)
	SetToolEnabled(server, tool string, on bool) error

	// ToolsMode is the configured tools mode of a gateway session
	// (live, stable or dynamic); CheckServer returns an error, its
	// message the reply's, when no server is called name.
	ToolsMode() string
	CheckServer(name string) error
	// ServeMCP serves one MCP session with the gateway on rw (newline
	// delimited JSON-RPC) until it ends or ctx does. server "" aggregates
	// every server; tools is live, stable or dynamic.
	ServeMCP(ctx context.Context, rw io.ReadWriteCloser, server, tools string) error

	// The inbox: the open requests, a subscription to its events (first
	// an inbox.Added for each open request), an answer (an
	// *inbox.InvalidAnswerError, or inbox.ErrRequestClosed), and
	// forgetting an ${input:ID} (inbox.ErrNoInputValue: none stored).
	Inbox() []inbox.Request
	SubscribeInbox() (<-chan inbox.Event, func())
	Answer(id string, a inbox.Answer) error
	ForgetInput(id string) error

	// Events and the tool-call history: a page of events (at most
	// MaxEventsPage), acknowledging them (events.ErrNoEvent), the last
	// calls, newest first.
	EventPage(f events.Filter) (EventPage, error)
	AckEvents(req events.AckRequest) (int, error)
	History(limit int) ([]ToolCall, error)
	// SubscribeEvents says when events arrive or are acknowledged
	// (events.Hub.Subscribe; GET /v1/events/watch).
	SubscribeEvents() (<-chan events.Change, func())

	// RegisterWindow registers a window of kind (WindowMain, WindowPopup)
	// that another process shows; signals gets a WindowSignal when the
	// tray asks for a window of that kind while it is open, and when the
	// instance quits. unregister ends it (POST /v1/windows/{kind},
	// windows.go).
	RegisterWindow(kind string) (signals <-chan WindowSignal, unregister func())

	// The ${keyring:NAME} secrets: their names, setting one (the servers
	// using it restart), removing one (config.ErrNoSecret: none stored).
	SecretNames() ([]string, error)
	SetSecret(name, value string) error
	RemoveSecret(name string) error

	// The sign-ins of remote servers (auth.go).
	authBackend

	// ReplaceConfig replaces mcp.json, read as old, with new, as
	// mcptray's own edit (config.ErrChanged: the file is no longer old).
	ReplaceConfig(old, new []byte) error

	// The peer check (peer.go): ProcStart is the start time of process
	// pid (0: unknown), taken when it connects; InspectPeer says whether
	// pid, started then, is one of the servers or descends from one;
	// RecordRefusal logs a refused request and shows it as an event.
	ProcStart(pid int) uint64
	InspectPeer(pid int, start uint64) Peer
	RecordRefusal(p Peer, what, request string)
}

// Peer is the process that sent a request, as the peer check knows it.
type Peer struct {
	PID     int
	Command string // its name, for the log; "" when unknown
	// Server is the name of the running server it belongs to, "" when
	// none is known.
	Server string
	// OfServers is set when the process is a server's, or nothing can be
	// known of it: Why says which.
	OfServers bool
	Why       string
}
