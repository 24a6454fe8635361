package app

import (
	"encoding/json"
	"fmt"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
)

// A request on the control socket that only the person may make, from one
// of mcptray's servers or a process of theirs, is refused (app/control/peer.go),
// logged and shown as an event: RecordRefusal.

// RefusedMethod is the method of the event that records a refusal.
const RefusedMethod = "mcptray/refused"

// refusedServer is the event's server when the refused process belongs to
// no server that is known by name.
const refusedServer = "mcptray"

// RecordRefusal logs a refusal and shows it as an event.
func (c *Core) RecordRefusal(p control.Peer, what, request string) {
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
