package trust

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcptray/mcptray/app/config"
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
// (recorded as approved before the write: ApproveOwnEdit), edits that leave
// every launch as it was (disabled, x-mcptray), and everything when
// x-mcptray.trustConfigEdits is true.

// seededFlag marks a data dir whose entries were approved at first start.
const seededFlag = "launch-approvals-seeded"

// FileChanged is what a prompt says of a file whose bytes changed.
const FileChanged = "contents changed since you approved it"

// RotationNote points from a prompt that shows changed values to the
// README: a rotated ${keyring:…} secret is no change.
const RotationNote = "A new secret behind ${keyring:NAME} is not a change and asks nothing (README: What mcptray asks you)."

// Check is the first step of the core's apply: on the first config this
// install applies, every entry's launch is approved once (or, after a
// reset of mcptray's records, every entry waits: launch_reset.go); and
// trust follows x-mcptray.trustConfigEdits.
func (ls *Launches) Check(ctx context.Context, cfg *config.Config) {
	ls.carryOverV1(cfg)
	ls.mu.Lock()
	ls.trust = ls.o.TrustEdits || cfg.Settings.TrustConfigEdits
	if ls.seeded {
		ls.mu.Unlock()
		return
	}
	ls.seeded = true
	had := len(ls.approved) > 0
	ls.mu.Unlock()
	if had { // the flag alone was lost: nothing to approve, nothing to ask at once
		ls.markSeeded()
		return
	}
	switch first, why := ls.firstStart(); {
	case first:
		ls.seedApprovals(cfg)
	default:
		ls.askReset(ctx, cfg, why)
	}
}

// seedApprovals approves every entry of cfg as it is: the first start of
// this install.
func (ls *Launches) seedApprovals(cfg *config.Config) {
	var names []string
	for _, spec := range cfg.Servers {
		if spec.Launch.Fingerprint() == "" {
			continue
		}
		ls.Approve(spec.Name, spec.Launch, store.ApprovedAtFirstStart)
		names = append(names, spec.Name)
	}
	ls.markSeeded()
	ls.o.Log.Info("first start of this version: the entries of mcp.json are approved to run as they are; new or changed ones will ask first",
		"count", len(names), "servers", strings.Join(names, ","))
}

// carryOverV1 is the one-time migration of the approvals an earlier
// version recorded, which left out values and files
// (config.FingerprintV1): an entry whose command line is still the one
// approved is approved with its values and files as they are now.
func (ls *Launches) carryOverV1(cfg *config.Config) {
	for _, spec := range cfg.Servers {
		ls.mu.Lock()
		a, ok := ls.approved[spec.Name]
		ls.mu.Unlock()
		if ok && config.IsFingerprintV1(a.Fingerprint) && a.Fingerprint == spec.Launch.FingerprintV1() {
			ls.Approve(spec.Name, spec.Launch, a.How)
			ls.o.Log.Info("approved launch carried over: its environment values and files as they are now", "server", spec.Name)
		}
	}
}

// NeedsApproval reports whether spec waits for the person before it runs.
func (ls *Launches) NeedsApproval(spec config.Server) bool {
	fp := spec.Launch.Fingerprint()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return !ls.trust && fp != "" && ls.approved[spec.Name].Fingerprint != fp
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
		changes = append(changes, config.Visible(f)+": "+FileChanged)
	}
	if len(values) > 0 {
		changes = append(changes, RotationNote)
	}
	return changes, files
}

// Approve records that server may run launch; how is one of store's
// Approved* (`mcptray approve`: store.ApprovedByPerson).
func (ls *Launches) Approve(server string, l config.Launch, how string) {
	a := store.LaunchApproval{Server: server, Fingerprint: l.Fingerprint(), Command: l.CommandLine(), Approved: time.Now().UTC(), How: how,
		Values: l.Values, Files: l.Files}
	ls.mu.Lock()
	ls.approved[server] = a
	ls.mu.Unlock()
	if err := ls.o.Store.ApproveLaunch(context.Background(), a); err != nil {
		ls.o.Log.Warn("storing an approval: it lasts until mcptray exits", "server", server, "err", err)
	}
}

// ApproveOwnEdit records as approved every launch that mcptray's own edit
// of mcp.json (old → new) adds or changes, before the edit is written:
// what mcptray writes needs no yes. An entry the edit leaves as it was is
// not approved by it.
func (ls *Launches) ApproveOwnEdit(old, new []byte) {
	env := ls.o.Env()
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
			ls.Approve(name, l, store.ApprovedByMcptray)
		}
	}
}

// ErrNotWaiting is wrapped by app.Core.ApproveServer for a server that
// does not wait for approval.
var ErrNotWaiting = fmt.Errorf("it does not wait for approval")

// WaitApproval holds a new or changed entry (spec, run by w) in state
// needs-approval until the person allows it (true) or ctx ends (false).
// It asks in the inbox once; a no (or no answer) leaves it waiting for
// `mcptray approve`, a restart (which asks again) or a change of the
// entry.
func (ls *Launches) WaitApproval(ctx context.Context, w Waiter, spec config.Server) bool {
	name := spec.Name
	l := spec.Launch
	approved := ls.Approved(name)
	prev := approved.Command
	w.Pending(&l)
	changes, files := launchChanges(l, approved)
	if !ls.waitReset(ctx, w, spec) {
		return false
	}
	if !ls.NeedsApproval(spec) {
		return true // approved with the others after a reset
	}
	defer w.Pending(nil)
	head := "a new entry waits for your approval before it runs"
	if prev != "" {
		head = "a changed entry waits for your approval before it runs"
	}
	if len(files) > 0 {
		head = fmt.Sprintf("%s: %s", config.Visible(files[0]), FileChanged)
		if len(files) > 1 {
			head += fmt.Sprintf(" (and %d more files)", len(files)-1)
		}
	}
	w.NeedsApproval(fmt.Sprintf("%s: allow it in the inbox, or with: mcptray approve %s", head, name))
	w.Log("needs approval before it runs: " + l.CommandLine())
	for _, ch := range changes {
		w.Log("changed: " + ch)
	}
	ls.o.Log.Warn("an entry waits for approval before it runs", "server", name, "command", l.CommandLine(), "previous", prev, "changes", len(changes))

	msg := fmt.Sprintf("mcp.json has a new entry %q. Allow it to run this?", name)
	switch {
	case len(files) > 0 && prev == l.CommandLine():
		msg = fmt.Sprintf("A file the entry %q runs changed since you approved it. Allow it to run the new contents?", name)
	case prev == l.CommandLine():
		msg = fmt.Sprintf("The entry %q in mcp.json has new environment or header values, which choose what runs. Allow it?", name)
	case prev != "":
		msg = fmt.Sprintf("The entry %q in mcp.json now runs something else. Allow it?", name)
	}
	req := inbox.Request{Kind: inbox.KindLaunch, Server: name, Source: inbox.SourceMcptray, Message: msg, Mode: "form", Confirm: true,
		Launch: &inbox.LaunchApproval{File: ls.o.ConfigPath, Entry: name, CommandLine: l.CommandLine(), EnvNames: l.EnvNames, Cwd: config.Visible(l.Cwd), Previous: prev, Changes: changes}}
	if l.Type == config.TypeHTTP {
		req.Launch.EnvNames = l.HeaderNames // an HTTP entry's secrets are its headers
	}
	askCtx, cancel := context.WithCancel(ctx)
	defer cancel() // closes the request if still open (approved elsewhere)
	answered := make(chan inbox.Result, 1)
	go func() { answered <- ls.o.Ask.Ask(askCtx, req, "", ls.o.Timeout()) }()
	for {
		select {
		case r := <-answered:
			if r.Outcome == inbox.ActionAccept {
				ls.Approve(name, l, store.ApprovedByPerson)
				return true
			}
			answered = nil
			why := "declined in the inbox"
			if r.Outcome != inbox.ActionDecline {
				why = "not answered in the inbox"
			}
			w.NeedsApproval(fmt.Sprintf("%s (%s): allow it with: mcptray approve %s", head, why, name))
			w.Log("not approved (" + why + ")")
		case <-w.Approvals():
			if !ls.NeedsApproval(spec) {
				return true
			}
		case <-ctx.Done():
			return false
		}
	}
}
