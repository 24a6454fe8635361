package mcp

import (
	"fmt"
	"time"
)

// Idle HTTP sessions. A streamable HTTP client ends its session with
// DELETE, but many never do — a script, an inspector run, an editor that
// crashed — and the SDK keeps a session until then: in a tray app that runs
// for weeks they would pile up, each still sent every list_changed and
// each holding about 16 KB and two goroutines. With HTTPOptions.SessionIdle
// set, a session with no request in flight (an open GET stream counts as
// one) and none for that long is closed when the next session starts; one
// that made no request after initialize (UnusedSessionIdle) much sooner.
// Its client, as the spec says, starts a new session on the 404 its next
// request gets. Sweeping only when a session starts needs no timer, and
// bounds the idle sessions kept to the ones that were idle when the last
// one started. MaxSessions bounds them all: a new session over it closes
// the one idle the longest, or is refused when every one is busy.

// httpRequest counts a request of the HTTP session id as in flight, and
// returns what marks it done.
func (g *Gateway) httpRequest(id string) (done func()) {
	g.mu.Lock()
	up := g.httpUps[id]
	if up != nil {
		up.httpBusy++
		up.httpRequests++
	}
	g.mu.Unlock()
	return func() {
		if up == nil {
			return
		}
		g.mu.Lock()
		up.httpBusy--
		up.httpIdleSince = time.Now()
		g.mu.Unlock()
	}
}

// unused reports whether the HTTP session made no request after
// initialize but the initialized notification. g.mu is held.
func (u *upstream) unused() bool { return u.httpRequests <= 1 }

// idleSession is a session idleHTTPSessions found, with why.
type idleSession struct {
	up     *upstream
	unused bool          // it made no request after initialize
	after  time.Duration // the limit it passed
}

// idleHTTPSessions takes out of g.httpUps the HTTP sessions idle for
// longer than SessionIdle (UnusedSessionIdle for unused ones), but the one
// starting (up), and returns them for closeIdle. g.mu is held.
func (g *Gateway) idleHTTPSessions(up *upstream) []idleSession {
	var idle []idleSession
	for id, u := range g.httpUps {
		if u == up || u.httpBusy > 0 {
			continue
		}
		s := idleSession{up: u, after: g.httpIdle}
		if u.unused() && g.httpUnused > 0 && (s.after <= 0 || g.httpUnused < s.after) {
			s.unused, s.after = true, g.httpUnused
		}
		if s.after > 0 && time.Since(u.httpIdleSince) > s.after {
			delete(g.httpUps, id) // counted out now; dropUpstream follows the close
			idle = append(idle, s)
		}
	}
	return idle
}

// closeIdle closes sessions idleHTTPSessions returned (g.mu not held).
func (g *Gateway) closeIdle(idle []idleSession) {
	for _, s := range idle {
		what := "closing an idle HTTP session"
		if s.unused {
			what = "closing an unused HTTP session (no request after initialize)"
		}
		g.log.Info(what, "client", s.up.clientName(), "idle", s.after.String())
		s.up.ss.Close() // the SDK forgets it; dropUpstream follows (upstreamOf)
	}
}

// roomForHTTPSession makes room for a new HTTP session under MaxSessions:
// at the cap it closes the session idle the longest. When every session
// has a request in flight it returns the refusal to answer with 503.
func (g *Gateway) roomForHTTPSession() (refusal string) {
	g.mu.Lock()
	if g.httpMax <= 0 || len(g.httpUps) < g.httpMax {
		g.mu.Unlock()
		return ""
	}
	var (
		lru   *upstream
		lruID string
	)
	for id, u := range g.httpUps {
		if u.httpBusy == 0 && (lru == nil || u.httpIdleSince.Before(lru.httpIdleSince)) {
			lru, lruID = u, id
		}
	}
	if lru == nil {
		n := len(g.httpUps)
		g.mu.Unlock()
		g.log.Warn("refusing a new HTTP session: every session has a request in flight", "sessions", n)
		return fmt.Sprintf("too many sessions: mcptray keeps at most %d HTTP sessions, and each has a request in flight; end one (DELETE) and try again", g.httpMax)
	}
	delete(g.httpUps, lruID) // counted out now; dropUpstream follows the close
	g.mu.Unlock()
	g.log.Info(fmt.Sprintf("closing the HTTP session idle the longest: at the cap of %d HTTP sessions", g.httpMax),
		"client", lru.clientName(), "idle", time.Since(lru.httpIdleSince).Round(time.Second).String())
	lru.ss.Close()
	return ""
}
