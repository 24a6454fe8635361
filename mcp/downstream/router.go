package downstream

import (
	"context"

	"github.com/mcptray/mcptray/mcp/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Router takes what a session's server sends that is not an answer to
// the session's own requests: the gateway's raw replies and progress, log
// messages, list changes, and the server's requests to the client
// (sampling, elicitation). The gateway implements it for each server it
// routes for (Gateway.Router); a session has the spec's Router while it
// starts (elicitation only) and the one of Attach after that.
//
// Every method but Tap and TapElicit is called from the SDK's handler
// goroutines; CreateMessage and Elicit may block until ctx ends.
type Router interface {
	// Tap sees each single-message stdout line of a stdio server first and
	// takes the ones it returns true for; for an HTTP server, each message
	// answering a line of WriteLine (http_raw.go). Called from the stdout
	// read loop (HTTP: the POST's goroutine): it must not block; line and p
	// are valid only during the call.
	Tap(s *Session, line []byte, p *wire.Peek) bool
	// TapElicit is the tap while the server starts, for a request line
	// (p.Method set): it takes the server's elicitation/create and the
	// withdrawal of one (notifications/cancelled).
	TapElicit(s *Session, line []byte, p *wire.Peek) bool
	// Log receives a notifications/message, redacted.
	Log(s *Session, p *sdk.LoggingMessageParams)
	// ToolsListed is called after each successful ListTools.
	ToolsListed(s *Session)
	// FeaturesChanged is called after a resources or prompts list_changed.
	FeaturesChanged(s *Session)
	// ResourceUpdated receives notifications/resources/updated.
	ResourceUpdated(s *Session, p *sdk.ResourceUpdatedNotificationParams)
	// Progress receives a progress notification the SDK decoded (HTTP).
	Progress(p *sdk.ProgressNotificationParams)
	// ProgressSeen is told, before the SDK decodes it, of each progress
	// notification of an HTTP server whose token is the gateway's "gw-n".
	ProgressSeen(n uint64)
	// CreateMessage answers the server's sampling request.
	CreateMessage(ctx context.Context, s *Session, p *sdk.CreateMessageParams) (*sdk.CreateMessageResult, error)
	// Elicit answers the server's elicitation request (HTTP; stdio
	// elicitations are taken by the taps).
	Elicit(ctx context.Context, s *Session, p *sdk.ElicitParams) (*sdk.ElicitResult, error)
	// ElicitationComplete receives notifications/elicitation/complete.
	ElicitationComplete(s *Session, p *sdk.ElicitationCompleteParams)
	// NotReading is told that the stdio server stopped reading its input
	// (StdioSpec.NotReadingAfter): the calls whose request lines end past
	// read (WriteCall's end) were not read, and should fail now. Called
	// from the watch's timer: it must not block.
	NotReading(s *Session, read uint64)
	// LostReply is told of a reply over 16 MiB whose id could not be read
	// at either end of its line: it fails the oldest call in flight to s
	// with why, and reports whether there was one. Called from the stdout
	// read loop: it must not block.
	LostReply(s *Session, why string) bool
}

// Attach gives the session the Router that serves it from now on, before
// its stdout tap (stdio): from then on the server's lines, notifications
// and requests go to r. Attaching again replaces the router.
func (s *Session) Attach(r Router) {
	s.router.Store(&r)
	if s.conn != nil {
		tap := lineTap(func(line []byte, p *wire.Peek) bool { return r.Tap(s, line, p) })
		s.conn.tap.Store(&tap)
		lost := func(why string) bool { return r.LostReply(s, why) }
		s.conn.lost.Store(&lost)
	}
}

// attached is the Router of Attach; nil before.
func (s *Session) attached() Router {
	if r := s.router.Load(); r != nil {
		return *r
	}
	return nil
}
