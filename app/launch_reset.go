package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/store"
)

// mcptray's records are not a key to the door (DESIGN.md §14). The first
// start's "approve what is there" happens once per install: its marker is
// kept in the OS keyring (Options.InstallMarks), under a name made from the
// data dir's absolute path, where a program that can only write files
// cannot reset it. A first start that finds the marker is a lost, emptied
// or replaced mcptray.db: nothing is approved, every entry waits, and one
// inbox request (kind launch-reset) lists them: approve all, or choose one
// by one. Pins start again as first-seen.
//
// Without a keyring (no Secret Service, a locked one that does not answer)
// a first start cannot be told from a reset: mcptray takes the safe side
// and asks the same one request; the flag in the database is then not
// set, so the next start with a keyring marks the install.

// InstallMarkName is the keyring entry (service "mcptray") marking the
// install whose data dir is data.
func InstallMarkName(data string) string { return installMarkName(data) }

// installMarkName is the keyring entry marking data's install.
func installMarkName(data string) string {
	if abs, err := filepath.Abs(data); err == nil {
		data = abs
	}
	sum := sha256.Sum256([]byte(data))
	return "install/" + hex.EncodeToString(sum[:12])
}

// Why every entry waits, as the request says it.
const (
	whyReset     = "mcptray's records were reset (mcptray.db was lost, emptied or replaced)"
	whyNoKeyring = "mcptray cannot reach the keyring, so it cannot tell its first start from a reset of its records"
)

// firstStart reports whether this is the install's first start (no
// marker in the keyring); else why every entry waits.
func (c *Core) firstStart() (bool, string) {
	_, err := c.opts.InstallMarks.Get(installMarkName(c.opts.DataDir))
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return true, ""
	case err == nil:
		c.log.Warn("mcptray's records were reset: every entry waits for approval", "data", c.opts.DataDir)
		c.markSeeded()
		return false, whyReset
	}
	c.log.Warn("the keyring is unavailable: every entry of mcp.json waits for approval", "err", err)
	return false, whyNoKeyring
}

// markSeeded records the first start, in the keyring and the database.
func (c *Core) markSeeded() {
	now := time.Now().UTC().Format(time.RFC3339)
	if err := c.opts.InstallMarks.Set(installMarkName(c.opts.DataDir), now); err != nil {
		c.log.Warn("marking this install's first start in the keyring: a lost database would approve every entry", "err", err)
	}
	if err := c.store.SetFlag(context.Background(), seededFlag, now); err != nil {
		c.log.Warn("recording the first start's approvals", "err", err)
	}
}

// ensureInstallMark marks an install whose database says it started
// before, when the keyring has no marker yet (an earlier version, or no
// keyring then).
func (c *Core) ensureInstallMark() {
	name := installMarkName(c.opts.DataDir)
	if _, err := c.opts.InstallMarks.Get(name); errors.Is(err, keyring.ErrNotFound) {
		if err := c.opts.InstallMarks.Set(name, time.Now().UTC().Format(time.RFC3339)); err != nil {
			c.log.Warn("marking this install in the keyring", "err", err)
		}
	}
}

// askReset puts the one request after a reset: every entry of cfg that
// would run waits until it is answered (waitReset). A yes approves them
// all as they are now; a no lets each ask on its own.
func (c *Core) askReset(ctx context.Context, cfg *config.Config, why string) {
	c.mu.Lock()
	trust := c.launches.trust
	c.mu.Unlock()
	if trust {
		return
	}
	launches := map[string]config.Launch{}
	var entries []inbox.LaunchApproval
	var names []string
	for _, spec := range cfg.Servers {
		if _, dup := launches[spec.Name]; dup || spec.Disabled || spec.Launch.Fingerprint() == "" || !c.needsApproval(spec) {
			continue
		}
		launches[spec.Name] = spec.Launch
		names = append(names, spec.Name)
		entries = append(entries, inbox.LaunchApproval{File: c.opts.ConfigPath, Entry: spec.Name, CommandLine: spec.Launch.CommandLine(),
			EnvNames: spec.Launch.EnvNames, Cwd: config.Visible(spec.Launch.Cwd)})
	}
	if len(entries) == 0 {
		return
	}
	done := make(chan struct{})
	c.mu.Lock()
	c.launches.resetDone = done
	c.mu.Unlock()
	req := inbox.Request{Kind: inbox.KindLaunchReset, Server: noticeServer, Source: inbox.SourceMcptray, Mode: "form", Confirm: true,
		Message: fmt.Sprintf("%s; these %d servers want to run: %s. Approve them all, or choose one by one?",
			why, len(entries), config.Visible(strings.Join(names, ", "))),
		Reset: &inbox.LaunchReset{File: c.opts.ConfigPath, Why: why, Entries: entries}}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			c.mu.Lock()
			c.launches.resetDone = nil
			c.mu.Unlock()
			close(done)
		}()
		r := c.inbox.Ask(ctx, req, "", c.inboxTimeout())
		if r.Outcome != inbox.ActionAccept {
			c.log.Info("after the reset, each entry asks on its own", "outcome", r.Outcome)
			return
		}
		for _, name := range names {
			c.approveLaunch(name, launches[name], store.ApprovedByPerson)
		}
		c.log.Info("after the reset, every entry was approved at once", "count", len(names))
	}()
}

// waitReset holds a waiting entry while the one request after a reset is
// open: it returns true once that is answered (or the entry is approved
// on its own), false when ctx ends.
func (s *server) waitReset(ctx context.Context, spec config.Server) bool {
	c := s.core
	c.mu.Lock()
	done := c.launches.resetDone
	c.mu.Unlock()
	if done == nil {
		return true
	}
	s.setState(control.StateNeedsApproval, fmt.Sprintf("every entry waits for your approval (see the inbox): approve them all there, or this one with: mcptray approve %s", s.name))
	for {
		select {
		case <-done:
			return true
		case <-s.approvals:
			if !c.needsApproval(spec) {
				return true
			}
		case <-ctx.Done():
			return false
		}
	}
}
