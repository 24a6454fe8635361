package app

import (
	"context"
	"fmt"
	"io"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// The core is the control API's backend (package control): what the
// handlers ask of it and the core does not otherwise offer.
var _ control.Backend = (*Core)(nil)

// CheckServer returns an error when no server is called name.
func (c *Core) CheckServer(name string) error {
	c.mu.Lock()
	_, ok := c.servers[name]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("no server named %q in %s", name, c.opts.ConfigPath)
	}
	return nil
}

// ServeMCP serves one MCP session with the gateway on rw until it ends.
func (c *Core) ServeMCP(ctx context.Context, rw io.ReadWriteCloser, server, tools string) error {
	return c.gw.ServeStream(ctx, rw, mcp.UpstreamOptions{Server: server, Tools: tools})
}

// ProcStart is the start time of process pid (0: unknown).
func (c *Core) ProcStart(pid int) uint64 { return downstream.ProcStart(pid) }

// InspectPeer says whether pid, started at start, is one of this
// instance's servers or descends from one.
func (c *Core) InspectPeer(pid int, start uint64) control.Peer {
	p := downstream.InspectPeer(pid, start, c.instance)
	return control.Peer{PID: p.PID, Command: p.Command, Server: p.Server, OfServers: p.OfServers, Why: p.Why}
}

// EventPage returns a page of the events f selects: the oldest f.Limit,
// or with f.Newest the newest f.Limit, and at most control.MaxEventsPage
// (also when f.Limit <= 0).
func (c *Core) EventPage(f events.Filter) (control.EventPage, error) {
	if f.Limit <= 0 || f.Limit > control.MaxEventsPage {
		f.Limit = control.MaxEventsPage
	}
	ctx := context.Background()
	want := f.Limit
	f.Limit++ // one more says whether there are more
	evs, err := c.store.Events(ctx, f)
	if err != nil {
		return control.EventPage{}, err
	}
	if len(evs) <= want {
		return control.EventPage{Events: events.FromStore(evs)}, nil
	}
	if f.Newest {
		evs = evs[1:] // the extra one is the oldest
	} else {
		evs = evs[:want]
	}
	n, err := c.store.CountEvents(ctx, f)
	if err != nil {
		return control.EventPage{}, err
	}
	return control.EventPage{Events: events.FromStore(evs), NotShown: max(n-want, 1)}, nil
}
