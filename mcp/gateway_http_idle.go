package mcp

import "time"

// Idle HTTP sessions. A streamable HTTP client ends its session with
// DELETE, but many never do — a script, an inspector run, an editor that
// crashed — and the SDK keeps a session until then: in a tray app that runs
// for weeks they would pile up, each still sent every list_changed. With
// HTTPOptions.SessionIdle set, a session with no request in flight (an
// open GET stream counts as one) and none for that long is closed when
// the next session starts; its client, as the spec says, starts a new
// session on the 404 its next request gets. Sweeping only when a session
// starts needs no timer, and bounds the idle sessions kept to the ones
// that were idle when the last one started.

// httpRequest counts a request of the HTTP session id as in flight, and
// returns what marks it done.
func (g *Gateway) httpRequest(id string) (done func()) {
	g.mu.Lock()
	up := g.httpUps[id]
	if up != nil {
		up.httpBusy++
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

// idleHTTPSessions returns the HTTP sessions idle for longer than
// SessionIdle, but the one starting (up). g.mu is held.
func (g *Gateway) idleHTTPSessions(up *upstream) []*upstream {
	if g.httpIdle <= 0 {
		return nil
	}
	var idle []*upstream
	for _, u := range g.httpUps {
		if u != up && u.httpBusy == 0 && time.Since(u.httpIdleSince) > g.httpIdle {
			idle = append(idle, u)
		}
	}
	return idle
}

// closeIdle closes sessions idleHTTPSessions returned (g.mu not held).
func (g *Gateway) closeIdle(idle []*upstream) {
	for _, u := range idle {
		g.log.Info("closing an idle HTTP session", "client", u.clientName(), "idle", g.httpIdle.String())
		u.ss.Close() // the SDK forgets it; dropUpstream follows (upstreamOf)
	}
}
