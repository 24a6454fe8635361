package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/store"
)

// Nothing new runs without a yes (DESIGN.md §14). A config edit is code
// execution: an entry's command runs before any handshake. So an entry
// that is new, or whose launch (config.Launch: the executable, arguments,
// environment and header names and values, working directory, URL, the
// contents of the user-writable files it runs) differs from the one the
// person approved — checked at every start and restart, so a wrapper
// script rewritten in place asks at the next crash — waits in state needs-approval, asking in
// the inbox (kind launch), until the person allows it there or with
// `mcptray approve NAME`. What was approved is kept in the store as the
// launch's fingerprint. Exempt: the entries present when this install
// first starts (approved once, logged; once per install, not per
// database: launch_reset.go), edits mcptray makes itself
// (recorded as approved before the write: ownWrite), edits that leave
// every launch as it was (disabled, x-mcptray), and everything when
// x-mcptray.trustConfigEdits is true.

// seededFlag marks a data dir whose entries were approved at first start.
const seededFlag = "launch-approvals-seeded"

// fileChanged is what a prompt says of a file whose bytes changed.
const fileChanged = "contents changed since you approved it"

// rotationNote points from a prompt that shows changed values to the
// README: a rotated ${keyring:…} secret is no change.
const rotationNote = "A new secret behind ${keyring:NAME} is not a change and asks nothing (README: What mcptray asks you)."

// launchState is what the core knows of approved launches.
type launchState struct {
	approved map[string]store.LaunchApproval // guarded by Core.mu: by server
	seeded   bool                            // guarded by Core.mu: the first start's approvals are recorded
	// resetDone, while the one request after a reset waits (askReset), is
	// closed when it is answered: the entries wait for it before they ask
	// one by one. Guarded by Core.mu.
	resetDone chan struct{}
	trust     bool // guarded by Core.mu: x-mcptray.trustConfigEdits or Options.TrustConfigEdits
}

// loadApprovals reads the approved launches (at start).
func (c *Core) loadApprovals(ctx context.Context) {
	approved, err := c.store.LaunchApprovals(ctx)
	if err != nil {
		c.log.Warn("reading approved launches: every entry will ask", "err", err)
		approved = map[string]store.LaunchApproval{}
	}
	_, seeded, err := c.store.Flag(ctx, seededFlag)
	if err != nil {
		c.log.Warn("reading the first-start flag", "err", err)
		seeded = true // never approve what may be new without asking
	}
	c.mu.Lock()
	c.launches.approved, c.launches.seeded = approved, seeded
	c.mu.Unlock()
	if seeded {
		c.ensureInstallMark() // an install from before the marker: mark it now
	}
}

// checkLaunches is the first step of apply: on the first config this
// install applies, every entry's launch is approved once (or, after a
// reset of mcptray's records, every entry waits: launch_reset.go); and
// trust follows x-mcptray.trustConfigEdits.
func (c *Core) checkLaunches(ctx context.Context, cfg *config.Config) {
	c.carryOverV1(cfg)
	c.mu.Lock()
	c.launches.trust = c.opts.TrustConfigEdits || cfg.Settings.TrustConfigEdits
	if c.launches.seeded {
		c.mu.Unlock()
		return
	}
	c.launches.seeded = true
	had := len(c.launches.approved) > 0
	c.mu.Unlock()
	if had { // the flag alone was lost: nothing to approve, nothing to ask at once
		c.markSeeded()
		return
	}
	switch first, why := c.firstStart(); {
	case first:
		c.seedApprovals(cfg)
	default:
		c.askReset(ctx, cfg, why)
	}
}

// seedApprovals approves every entry of cfg as it is: the first start of
// this install.
func (c *Core) seedApprovals(cfg *config.Config) {
	var names []string
	for _, spec := range cfg.Servers {
		if spec.Launch.Fingerprint() == "" {
			continue
		}
		c.approveLaunch(spec.Name, spec.Launch, store.ApprovedAtFirstStart)
		names = append(names, spec.Name)
	}
	c.markSeeded()
	c.log.Info("first start of this version: the entries of mcp.json are approved to run as they are; new or changed ones will ask first",
		"count", len(names), "servers", strings.Join(names, ","))
}

// carryOverV1 is the one-time migration of the approvals an earlier
// version recorded, which left out values and files
// (config.FingerprintV1): an entry whose command line is still the one
// approved is approved with its values and files as they are now.
func (c *Core) carryOverV1(cfg *config.Config) {
	for _, spec := range cfg.Servers {
		c.mu.Lock()
		a, ok := c.launches.approved[spec.Name]
		c.mu.Unlock()
		if ok && config.IsFingerprintV1(a.Fingerprint) && a.Fingerprint == spec.Launch.FingerprintV1() {
			c.approveLaunch(spec.Name, spec.Launch, a.How)
			c.log.Info("approved launch carried over: its environment values and files as they are now", "server", spec.Name)
		}
	}
}

// needsApproval reports whether spec waits for the person before it runs.
func (c *Core) needsApproval(spec config.Server) bool {
	fp := spec.Launch.Fingerprint()
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.launches.trust && fp != "" && c.launches.approved[spec.Name].Fingerprint != fp
}

// launchChanges says what of l differs from the approved launch beside
// its command line (inbox.LaunchApproval.Changes), and which files changed.
// Nothing for a new entry, or one approved by an earlier version (which
// kept no values).
func launchChanges(l config.Launch, approved store.LaunchApproval) (changes, files []string) {
	if approved.Fingerprint == "" || config.IsFingerprintV1(approved.Fingerprint) {
		return nil, nil
	}
	values := l.ValueChanges(approved.Values)
	for _, v := range values {
		changes = append(changes, v.String())
	}
	files = l.FileChanges(approved.Files)
	for _, f := range files {
		changes = append(changes, config.Visible(f)+": "+fileChanged)
	}
	if len(values) > 0 {
		changes = append(changes, rotationNote)
	}
	return changes, files
}

// approveLaunch records that server may run l.
func (c *Core) approveLaunch(server string, l config.Launch, how string) {
	a := store.LaunchApproval{Server: server, Fingerprint: l.Fingerprint(), Command: l.CommandLine(), Approved: time.Now().UTC(), How: how,
		Values: l.Values, Files: l.Files}
	c.mu.Lock()
	c.launches.approved[server] = a
	c.mu.Unlock()
	if err := c.store.ApproveLaunch(context.Background(), a); err != nil {
		c.log.Warn("storing an approval: it lasts until mcptray exits", "server", server, "err", err)
	}
}

// approveOwnEdit records as approved every launch that mcptray's own edit
// of mcp.json (old → new) adds or changes, before the edit is written:
// what mcptray writes needs no yes. An entry the edit leaves as it was is
// not approved by it.
func (c *Core) approveOwnEdit(old, new []byte) {
	env := c.configEnv()
	before, err := config.Launches(old, env)
	if err != nil {
		before = map[string]config.Launch{}
	}
	after, err := config.Launches(new, env)
	if err != nil {
		return
	}
	for name, l := range after {
		if fp := l.Fingerprint(); fp != "" && before[name].Fingerprint() != fp {
			c.approveLaunch(name, l, store.ApprovedByMcptray)
		}
	}
}

// ApproveServer allows the new or changed entry name to run as it is now
// (`mcptray approve NAME`, the Servers tab).
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
		return fmt.Errorf("%s: %w", name, config.ErrNotWaiting)
	}
	c.approveLaunch(name, *l, store.ApprovedByPerson)
	select {
	case s.approvals <- struct{}{}:
	default:
	}
	return nil
}

// waitApproval holds a new or changed entry in state needs-approval until
// the person allows it (true) or ctx ends (false). It asks in the inbox
// once; a no (or no answer) leaves it waiting for `mcptray approve`, a
// restart (which asks again) or a change of the entry.
func (s *server) waitApproval(ctx context.Context, spec config.Server) bool {
	c := s.core
	l := spec.Launch
	c.mu.Lock()
	approved := c.launches.approved[s.name]
	prev := approved.Command
	s.pendingLaunch = &l
	c.mu.Unlock()
	changes, files := launchChanges(l, approved)
	if !s.waitReset(ctx, spec) {
		return false
	}
	if !c.needsApproval(spec) {
		return true // approved with the others after a reset
	}
	defer func() {
		c.mu.Lock()
		s.pendingLaunch = nil
		c.mu.Unlock()
	}()
	head := "a new entry waits for your approval before it runs"
	if prev != "" {
		head = "a changed entry waits for your approval before it runs"
	}
	if len(files) > 0 {
		head = fmt.Sprintf("%s: %s", config.Visible(files[0]), fileChanged)
		if len(files) > 1 {
			head += fmt.Sprintf(" (and %d more files)", len(files)-1)
		}
	}
	s.setState(control.StateNeedsApproval, fmt.Sprintf("%s: allow it in the inbox, or with: mcptray approve %s", head, s.name))
	s.log.Write(logLifecycle, "needs approval before it runs: "+l.CommandLine())
	for _, ch := range changes {
		s.log.Write(logLifecycle, "changed: "+ch)
	}
	c.log.Warn("an entry waits for approval before it runs", "server", s.name, "command", l.CommandLine(), "previous", prev, "changes", len(changes))

	msg := fmt.Sprintf("mcp.json has a new entry %q. Allow it to run this?", s.name)
	switch {
	case len(files) > 0 && prev == l.CommandLine():
		msg = fmt.Sprintf("A file the entry %q runs changed since you approved it. Allow it to run the new contents?", s.name)
	case prev == l.CommandLine():
		msg = fmt.Sprintf("The entry %q in mcp.json has new environment or header values, which choose what runs. Allow it?", s.name)
	case prev != "":
		msg = fmt.Sprintf("The entry %q in mcp.json now runs something else. Allow it?", s.name)
	}
	req := inbox.Request{Kind: inbox.KindLaunch, Server: s.name, Source: inbox.SourceMcptray, Message: msg, Mode: "form", Confirm: true,
		Launch: &inbox.LaunchApproval{File: c.opts.ConfigPath, Entry: s.name, CommandLine: l.CommandLine(), EnvNames: l.EnvNames, Cwd: config.Visible(l.Cwd), Previous: prev, Changes: changes}}
	if l.Type == config.TypeHTTP {
		req.Launch.EnvNames = l.HeaderNames // an HTTP entry's secrets are its headers
	}
	askCtx, cancel := context.WithCancel(ctx)
	defer cancel() // closes the request if still open (approved elsewhere)
	answered := make(chan inbox.Result, 1)
	go func() { answered <- c.inbox.Ask(askCtx, req, "", c.inboxTimeout()) }()
	for {
		select {
		case r := <-answered:
			if r.Outcome == inbox.ActionAccept {
				c.approveLaunch(s.name, l, store.ApprovedByPerson)
				return true
			}
			answered = nil
			why := "declined in the inbox"
			if r.Outcome != inbox.ActionDecline {
				why = "not answered in the inbox"
			}
			s.setState(control.StateNeedsApproval, fmt.Sprintf("%s (%s): allow it with: mcptray approve %s", head, why, s.name))
			s.log.Write(logLifecycle, "not approved ("+why+")")
		case <-s.approvals:
			if !c.needsApproval(spec) {
				return true
			}
		case <-ctx.Done():
			return false
		}
	}
}
