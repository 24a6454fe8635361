package trust

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
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/store"
)

// mcptray's records are not a key to the door (DESIGN.md §14). The first
// start's "approve what is there" happens once per install: its marker is
// kept in the OS keyring (Options.Marks), under a name made from the
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
func InstallMarkName(data string) string {
	if abs, err := filepath.Abs(data); err == nil {
		data = abs
	}
	sum := sha256.Sum256([]byte(data))
	return "install/" + hex.EncodeToString(sum[:12])
}

// Why every entry waits, as the request says it.
const (
	WhyReset     = "mcptray's records were reset (mcptray.db was lost, emptied or replaced)"
	WhyNoKeyring = "mcptray cannot reach the keyring, so it cannot tell its first start from a reset of its records"
)

// firstStart reports whether this is the install's first start (no
// marker in the keyring); else why every entry waits.
func (ls *Launches) firstStart() (bool, string) {
	_, err := ls.o.Marks.Get(InstallMarkName(ls.o.DataDir))
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return true, ""
	case err == nil:
		ls.o.Log.Warn("mcptray's records were reset: every entry waits for approval", "data", ls.o.DataDir)
		ls.markSeeded()
		return false, WhyReset
	}
	ls.o.Log.Warn("the keyring is unavailable: every entry of mcp.json waits for approval", "err", err)
	return false, WhyNoKeyring
}

// markSeeded records the first start, in the keyring and the database.
func (ls *Launches) markSeeded() {
	now := time.Now().UTC().Format(time.RFC3339)
	if err := ls.o.Marks.Set(InstallMarkName(ls.o.DataDir), now); err != nil {
		ls.o.Log.Warn("marking this install's first start in the keyring: a lost database would approve every entry", "err", err)
	}
	if err := ls.o.Store.SetFlag(context.Background(), seededFlag, now); err != nil {
		ls.o.Log.Warn("recording the first start's approvals", "err", err)
	}
}

// ensureInstallMark marks an install whose database says it started
// before, when the keyring has no marker yet (an earlier version, or no
// keyring then).
func (ls *Launches) ensureInstallMark() {
	name := InstallMarkName(ls.o.DataDir)
	if _, err := ls.o.Marks.Get(name); errors.Is(err, keyring.ErrNotFound) {
		if err := ls.o.Marks.Set(name, time.Now().UTC().Format(time.RFC3339)); err != nil {
			ls.o.Log.Warn("marking this install in the keyring", "err", err)
		}
	}
}

// askReset puts the one request after a reset: every entry of cfg that
// would run waits until it is answered (waitReset). A yes approves them
// all as they are now; a no lets each ask on its own.
func (ls *Launches) askReset(ctx context.Context, cfg *config.Config, why string) {
	ls.mu.Lock()
	trust := ls.trust
	ls.mu.Unlock()
	if trust {
		return
	}
	launches := map[string]config.Launch{}
	var entries []inbox.LaunchApproval
	var names []string
	for _, spec := range cfg.Servers {
		if _, dup := launches[spec.Name]; dup || spec.Disabled || spec.Launch.Fingerprint() == "" || !ls.NeedsApproval(spec) {
			continue
		}
		launches[spec.Name] = spec.Launch
		names = append(names, spec.Name)
		entries = append(entries, inbox.LaunchApproval{File: ls.o.ConfigPath, Entry: spec.Name, CommandLine: spec.Launch.CommandLine(),
			EnvNames: spec.Launch.EnvNames, Cwd: config.Visible(spec.Launch.Cwd)})
	}
	if len(entries) == 0 {
		return
	}
	done := make(chan struct{})
	ls.mu.Lock()
	ls.resetDone = done
	ls.mu.Unlock()
	req := inbox.Request{Kind: inbox.KindLaunchReset, Server: ls.o.NoticeServer, Source: inbox.SourceMcptray, Mode: "form", Confirm: true,
		Message: fmt.Sprintf("%s; these %d servers want to run: %s. Approve them all, or choose one by one?",
			why, len(entries), config.Visible(strings.Join(names, ", "))),
		Reset: &inbox.LaunchReset{File: ls.o.ConfigPath, Why: why, Entries: entries}}
	ls.wg.Add(1)
	go func() {
		defer ls.wg.Done()
		defer func() {
			ls.mu.Lock()
			ls.resetDone = nil
			ls.mu.Unlock()
			close(done)
		}()
		r := ls.o.Ask.Ask(ctx, req, "", ls.o.Timeout())
		if r.Outcome != inbox.ActionAccept {
			ls.o.Log.Info("after the reset, each entry asks on its own", "outcome", r.Outcome)
			return
		}
		for _, name := range names {
			ls.Approve(name, launches[name], store.ApprovedByPerson)
		}
		ls.o.Log.Info("after the reset, every entry was approved at once", "count", len(names))
	}()
}

// waitReset holds a waiting entry while the one request after a reset is
// open: it returns true once that is answered (or the entry is approved
// on its own), false when ctx ends.
func (ls *Launches) waitReset(ctx context.Context, w Waiter, spec config.Server) bool {
	ls.mu.Lock()
	done := ls.resetDone
	ls.mu.Unlock()
	if done == nil {
		return true
	}
	w.NeedsApproval(fmt.Sprintf("every entry waits for your approval (see the inbox): approve them all there, or this one with: mcptray approve %s", spec.Name))
	for {
		select {
		case <-done:
			return true
		case <-w.Approvals():
			if !ls.NeedsApproval(spec) {
				return true
			}
		case <-ctx.Done():
			return false
		}
	}
}
