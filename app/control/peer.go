package control

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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
// by the process table (Backend.InspectPeer). Each refusal is logged and
// shown (Backend.RecordRefusal: app.RefusedMethod, an event of the server
// or of "mcptray" when the process names none), which the Events tab lists
// and the desktop notifies.

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
func (h *Handler) peerContext(ctx context.Context, conn net.Conn) context.Context {
	pid, err := peerPID(conn)
	var start uint64
	if err == nil {
		start = h.b.ProcStart(pid)
	}
	return context.WithValue(ctx, peerKey{}, connPeer{pid: pid, start: start, err: err})
}

// personOnly wraps a handler that only the person may use; what says
// what it does, for the refusal ("answer the inbox").
func (h *Handler) personOnly(what string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.refuseServer(w, r, what) {
			return
		}
		next(w, r)
	}
}

// peerOf says who sent r: the person (OfServers false), or one of the
// servers or their descendants.
func (h *Handler) peerOf(r *http.Request) Peer {
	cp, ok := r.Context().Value(peerKey{}).(connPeer)
	switch {
	case !ok:
		return Peer{OfServers: true, Why: "the request did not come over the control socket"}
	case cp.err != nil && !errors.Is(cp.err, errors.ErrUnsupported):
		return Peer{OfServers: true, Why: "the socket did not say which process sent it: " + cp.err.Error()}
	case cp.err != nil:
		return Peer{PID: cp.pid} // no check on this platform yet (peer_other.go)
	}
	return h.b.InspectPeer(cp.pid, cp.start)
}

// inboxViewer says whose inbox requests r may see: all of them (the
// person), or only those of server (a server's process; "" for none,
// when it names no server). Another server's request may show what it
// is about to do, with whose data.
func (h *Handler) inboxViewer(r *http.Request) (server string, all bool) {
	p := h.peerOf(r)
	return p.Server, !p.OfServers
}

// refuseServer answers 403 and reports true when r comes from one of the
// servers or their descendants.
func (h *Handler) refuseServer(w http.ResponseWriter, r *http.Request, what string) bool {
	p := h.peerOf(r)
	if !p.OfServers {
		return false
	}
	h.b.RecordRefusal(p, what, r.Method+" "+r.URL.Path)
	who := "one of mcptray's servers"
	if p.Server != "" {
		who = fmt.Sprintf("server %q", p.Server)
	}
	writeJSON(w, http.StatusForbidden, apiError{Error: fmt.Sprintf(
		"refused: only the person may %s, and this request comes from %s (pid %d: %s); do it from the tray, or from a terminal you opened yourself",
		what, who, p.PID, p.Why)})
	return true
}
