package mcp

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
)

// A stdio server that stops reading its input (issue 34): its calls
// must not hold their clients, over HTTP their connections (the
// endpoint's cap), for the call timeout. The session's watch
// (downstream/stdin_watch.go) tells NotReading once nothing was read for
// StdioSpec.NotReadingAfter with lines waiting; the calls whose requests
// the server did not read fail then, and new ones fail at once
// (downstream.NotReadingError, unsentText) until it reads again. A call
// whose request it read goes on: the server may still answer it.

// NotReading fails the calls to s whose requests end past read in what
// was sent to it: those still queued are taken back, those in its pipe
// are cancelled.
func (a *gwAttachment) NotReading(s *downstream.Session, read uint64) {
	g := a.g
	for _, c := range g.calls.takeWhere(func(c *call) bool {
		if c.sess != s {
			return false
		}
		end := c.stdinEnd.Load()
		return end == 0 || end > read // 0: not yet written, and it will be refused
	}) {
		how := "cancelled"
		if g.cancelDownstream(s, c.n, "the server is not reading its input") {
			how = "not sent"
		}
		g.failCall(c, notReadingText(c.server, s.NotReadingAfter(), how))
	}
}

// LostReply fails the oldest call in flight to s in place of a reply too
// long to read whose id was not found.
func (a *gwAttachment) LostReply(s *downstream.Session, why string) bool {
	g := a.g
	g.calls.mu.Lock()
	var oldest *call
	for _, c := range g.calls.m {
		if c.sess == s && (oldest == nil || c.n < oldest.n) {
			oldest = c
		}
	}
	if oldest != nil {
		delete(g.calls.m, oldest.n)
	}
	g.calls.mu.Unlock()
	if oldest == nil {
		return false
	}
	g.failCall(oldest, why)
	return true
}

// failCall answers a call taken from the table with an error: the fast
// path's answer, or the reply the slow path (and rawRequest) waits for.
func (g *Gateway) failCall(c *call, text string) {
	c.dl.Stop()
	if c.reply != nil {
		c.reply <- wire.ErrorLine([]byte(strconv.Quote(wire.GWIDPrefix+strconv.FormatUint(c.n, 10))), codeInternal, text)
		return
	}
	c.finish(wire.ErrorLine(c.upID, codeInternal, text))
	g.recordCall(c, OutcomeError)
}

// notReadingText is the error of a call to a server that is not reading
// its input; how is "not sent" or "cancelled".
func notReadingText(server string, after time.Duration, how string) string {
	return fmt.Sprintf("server %q is not reading its input (it read nothing for %s); the call was %s", server, after, how)
}
