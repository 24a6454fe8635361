package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// Only the person answers (DESIGN.md §14). The control API refuses what
// decides for the person — answering the inbox, approving an entry,
// turning servers and tools on or off, setting or removing secrets,
// forgetting an input, mcptray's own edits of mcp.json — to any process
// that is one of mcptray's servers or descends from one: a server that
// finds the socket must not approve its own call, or another server's.
// Reading (status, events, tools) and restarting stay open, and a server
// may still follow its own inbox requests: the inbox it reads holds those
// alone (inboxViewer).
//
// The peer is known per connection from the socket (peerPID: SO_PEERCRED
// on Linux), and judged, for each request that only the person may make,
// by the process table (downstream.InspectPeer). Each refusal is logged and shown: an
// event RefusedMethod of the server (or of "mcptray" when the process
// names none), which the Events tab lists and the desktop notifies.

// RefusedMethod is the method of the event that records a refusal.
const RefusedMethod = "mcptray/refused"

// refusedServer is the event's server when the refused process belongs to
// no server that is known by name.
const refusedServer = "mcptray"

// peerKey is the request context key of the connection's connPeer.
type peerKey struct{}

// connPeer is the process on the other end of a control connection.
type connPeer struct {
	pid   int
	start uint64 // its start time when it connected (0: unknown)
	err   error  // the socket did not say; errors.ErrUnsupported where no check exists yet
}

// peerContext is the control server's ConnContext: it records the peer,
// and its start time, so that a later process reusing the pid is not
// taken for it.
func peerContext(ctx context.Context, conn net.Conn) context.Context {
	pid, err := peerPID(conn)
	var start uint64
	if err == nil {
		start = downstream.ProcStart(pid)
	}
	return context.WithValue(ctx, peerKey{}, connPeer{pid: pid, start: start, err: err})
}

// personOnly wraps a handler that only the person may use; what says
// what it does, for the refusal ("answer the inbox").
func (c *Core) personOnly(what string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if c.refuseServer(w, r, what) {
			return
		}
		h(w, r)
	}
}

// peerOf says who sent r: the person (OfServers false), or one of the
// servers or their descendants.
func (c *Core) peerOf(r *http.Request) downstream.Peer {
	cp, ok := r.Context().Value(peerKey{}).(connPeer)
	switch {
	case !ok:
		return downstream.Peer{OfServers: true, Why: "the request did not come over the control socket"}
	case cp.err != nil && !errors.Is(cp.err, errors.ErrUnsupported):
		return downstream.Peer{OfServers: true, Why: "the socket did not say which process sent it: " + cp.err.Error()}
	case cp.err != nil:
		return downstream.Peer{PID: cp.pid} // no check on this platform yet (peer_other.go)
	}
	return downstream.InspectPeer(cp.pid, cp.start, c.instance)
}

// inboxViewer says whose inbox requests r may see: all of them (the
// person), or only those of server (a server's process; "" for none,
// when it names no server). Another server's request may show what it
// is about to do, with whose data.
func (c *Core) inboxViewer(r *http.Request) (server string, all bool) {
	p := c.peerOf(r)
	return p.Server, !p.OfServers
}

// refuseServer answers 403 and reports true when r comes from one of the
// servers or their descendants.
func (c *Core) refuseServer(w http.ResponseWriter, r *http.Request, what string) bool {
	p := c.peerOf(r)
	if !p.OfServers {
		return false
	}
	c.recordRefusal(p, what, r.Method+" "+r.URL.Path)
	who := "one of mcptray's servers"
	if p.Server != "" {
		who = fmt.Sprintf("server %q", p.Server)
	}
	writeJSON(w, http.StatusForbidden, apiError{Error: fmt.Sprintf(
		"refused: only the person may %s, and this request comes from %s (pid %d: %s); do it from the tray, or from a terminal you opened yourself",
		what, who, p.PID, p.Why)})
	return true
}

// recordRefusal logs a refusal and shows it as an event.
func (c *Core) recordRefusal(p downstream.Peer, what, request string) {
	c.log.Warn("refused a server's request on the control socket", "server", p.Server, "pid", p.PID, "command", p.Command, "request", request, "why", p.Why)
	server := p.Server
	c.mu.Lock()
	s := c.servers[server]
	c.mu.Unlock()
	if s == nil {
		server = refusedServer
	}
	title := fmt.Sprintf("Refused: a server's process tried to %s", what)
	body := fmt.Sprintf("pid %d (%q) sent %s; %s. Only you answer the inbox, approve, switch servers and tools, and set secrets.", p.PID, p.Command, request, p.Why)
	params, _ := json.Marshal(map[string]any{"title": title, "body": body, "pid": p.PID, "command": p.Command, "request": request, "why": p.Why})
	if s != nil {
		s.log.Write(logControl, title+": "+body)
	}
	// enqueue never waits for the event writer: a server that floods the
	// socket with refused requests cannot hold anything up (past the
	// queue's bounds, refusals are dropped and counted in the logs).
	var log events.Log // nil, not a nil *serverLog, when there is no server
	if s != nil {
		log = s.log
	}
	c.events.Add(server, RefusedMethod, params, log)
}

// logControl is the server log kind of refusals on the control socket.
const logControl = "control"
