package app

import (
	"context"
	"fmt"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/trust"
	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/store"
)

// The core's wiring of the trust layer (app/trust: pins, launch approval,
// call approval): what trust needs of the core, as callbacks, and the
// core's own methods over it.

// StateNeedsApproval: a new or changed entry waits for the person's yes
// before it runs (trust.Launches.WaitApproval).
const StateNeedsApproval = "needs-approval"

// trustOptions is what the trust layer is given: the callbacks take c.mu
// themselves, and trust calls them with no lock of its own held.
func (c *Core) trustOptions() trust.Options {
	return trust.Options{
		Store:        c.store,
		Log:          c.log,
		Ask:          c.inbox,
		Timeout:      c.inboxTimeout,
		Lifecycle:    func(server, text string) { c.serverLog(server, logLifecycle, text) },
		Marks:        c.opts.InstallMarks,
		DataDir:      c.opts.DataDir,
		ConfigPath:   c.opts.ConfigPath,
		NoticeServer: noticeServer,
		TrustEdits:   c.opts.TrustConfigEdits,
		Env:          c.configEnv,
		Released: func(server string, held map[string]string) {
			c.gw.SetHeld(server, held)
			c.broadcast()
		},
		Mode:      c.approveMode,
		AllowTool: func(server, tool string) error { return c.configFile.AllowTool(server, tool) },
		InboxLog:  func(server, text string) { c.serverLog(server, logInbox, text) },
	}
}

// approveMode is server's approve mode: its entry's, else the top level's.
func (c *Core) approveMode(server string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	mode := c.rules[server].Approve
	if mode == "" {
		mode = c.approveDefault
	}
	return mode
}

// approveCall is the gateway's Approve.
func (c *Core) approveCall(ctx context.Context, req mcp.ApprovalRequest) (mcp.Approval, error) {
	return c.calls.Approve(ctx, req)
}

// checkTools is the gateway's CheckTools: it pins the tools seen for the
// first time and returns the changed ones to hold back (trust.Pins.Check),
// unless the entry's pinTools is off.
func (c *Core) checkTools(server string, sess *downstream.Session, tools []*downstream.Tool) map[string]string {
	c.mu.Lock()
	on := c.rules[server].Pins()
	c.mu.Unlock()
	if !on {
		c.pins.Forget(server)
		return nil
	}
	return c.pins.Check(server, sess, tools)
}

// waitApproval holds s in state needs-approval until the person allows
// spec to run (true) or ctx ends (false): trust.Launches.WaitApproval.
func (s *server) waitApproval(ctx context.Context, spec config.Server) bool {
	return s.core.launches.WaitApproval(ctx, approvalWaiter{s}, spec)
}

// approvalWaiter is a server as trust.Launches sees it while it waits.
type approvalWaiter struct{ s *server }

func (w approvalWaiter) NeedsApproval(detail string) { w.s.setState(StateNeedsApproval, detail) }
func (w approvalWaiter) Log(text string)             { w.s.log.Write(logLifecycle, text) }
func (w approvalWaiter) Approvals() <-chan struct{}  { return w.s.approvals }

func (w approvalWaiter) Pending(l *config.Launch) {
	w.s.core.mu.Lock()
	w.s.pendingLaunch = l
	w.s.core.mu.Unlock()
}

// ApproveServer allows the new or changed entry name to run as it is now
// (`mcptray approve NAME`, the Servers tab); it wraps trust.ErrNotWaiting
// when name does not wait.
func (c *Core) ApproveServer(name string) error {
	c.mu.Lock()
	s, ok := c.servers[name]
	var l *config.Launch
	if ok {
		l = s.pendingLaunch
	}
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrNoServer, name)
	}
	if l == nil {
		return fmt.Errorf("%s: %w", name, trust.ErrNotWaiting)
	}
	c.launches.Approve(name, *l, store.ApprovedByPerson)
	select {
	case s.approvals <- struct{}{}:
	default:
	}
	return nil
}
