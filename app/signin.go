package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/store"
)

// Remote servers that sign in (OAuth, DESIGN.md §15). A start that fails
// for want of a sign-in puts the server in state needs-sign-in: no
// backoff, no retry, no browser. One inbox request per server asks the
// person "Sign in to NAME at HOST"; their yes (the popup, `mcptray inbox
// answer ID --yes`), or `mcptray auth login NAME`, runs the sign-in in
// the browser and restarts the server. Only the person starts a sign-in:
// the gateway's calls to such a server answer that the person was asked
// (mcp.Gateway's notReadyText), and the control API's sign-in routes are
// refused to the servers' processes.

// RemoteAuth is the OAuth client of remote servers as the core uses it
// (mcp/oauthclient, through oauthclient.go). It never opens a browser
// by itself: only SignIn does, through open.
type RemoteAuth interface {
	// Wire gives an HTTP server's session its OAuth handler.
	Wire(spec config.Server, hs *downstream.HTTPSpec)
	// NeedsSignIn reports whether err, a start's, says that the server
	// waits for the person to sign in, and where.
	NeedsSignIn(err error) (control.SignInStatus, bool)
	// SignIn signs the person in to the server of spec; open gets the
	// address to visit.
	SignIn(ctx context.Context, spec config.Server, open func(url string) error) (control.AuthInfo, error)
	// Complete finishes the server's sign-in under way with the address
	// the person's browser ended on, pasted (a browser on another machine).
	Complete(spec config.Server, redirect string) error
	// Logout forgets the server's tokens, revoking them where it can.
	Logout(ctx context.Context, spec config.Server) error
	// Info is the server's sign-in as `mcptray auth list` shows it.
	Info(spec config.Server) (control.AuthInfo, error)
}

// waitSignIn keeps the server in state needs-sign-in, with one inbox
// request asking the person, until ctx ends: a sign-in restarts the
// server (signInServer), which ends ctx.
func (s *server) waitSignIn(ctx context.Context, need control.SignInStatus) {
	s.log.Write(logLifecycle, "needs a sign-in at "+need.IssuerHost+": asked in the inbox")
	s.setStatus(func(st *control.ServerStatus) {
		st.State, st.Since, st.StderrTail = control.StateNeedsSignIn, time.Now().UTC(), nil
		st.Error = fmt.Sprintf("sign in at %s: accept the request in mcptray's inbox, or run: mcptray auth login %s", need.IssuerHost, s.name)
		st.PID, st.Tools, st.SignIn = 0, 0, &need
	})
	s.core.askSignIn(ctx, s, need)
	<-ctx.Done()
}

// askSignIn puts the sign-in request of s in the inbox, unless one is
// open already: one per server. The person's yes runs the sign-in with
// the desktop's browser; a no leaves the server waiting. The question
// ends with ctx (the server's run: a restart, an edit, mcptray's stop).
func (c *Core) askSignIn(ctx context.Context, s *server, need control.SignInStatus) {
	c.mu.Lock()
	if s.signInAsked {
		c.mu.Unlock()
		return
	}
	s.signInAsked = true
	s.asks++
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			c.mu.Lock()
			s.signInAsked = false
			c.mu.Unlock()
		}()
		msg := fmt.Sprintf("Sign in to %s at %s", s.name, need.IssuerHost)
		if need.StepUp {
			msg = fmt.Sprintf("%s needs more access at %s: sign in again", s.name, need.IssuerHost)
		}
		req := inbox.Request{Kind: inbox.KindSignIn, Server: s.name, Source: inbox.SourceMcptray, Message: msg,
			Mode: "form", Confirm: true, AcceptLabel: "Sign in", SignIn: &inbox.SignIn{IssuerHost: need.IssuerHost, StepUp: need.StepUp}}
		r := c.inbox.Ask(ctx, req, "", c.inboxTimeout())
		if r.Outcome != store.OutcomeAccept {
			s.log.Write(logLifecycle, "sign-in not started ("+outcomeWords(r.Outcome)+"): the server waits; `mcptray auth login "+s.name+"` signs in")
			return
		}
		if _, err := c.signIn(ctx, s.name, nil); err != nil {
			s.log.Write(logLifecycle, "sign-in: "+err.Error())
			c.notice("Signing in to "+s.name+" failed", err.Error())
		}
	}()
}

// AskSignIn asks the person again to sign in to name (the tray's "Sign
// in…" item), when it waits for one and no request is open.
func (c *Core) AskSignIn(name string) error {
	c.mu.Lock()
	s, ok := c.servers[name]
	var need *control.SignInStatus
	var ctx context.Context
	if ok {
		need, ctx = s.status.SignIn, s.runCtx
	}
	c.mu.Unlock()
	switch {
	case !ok:
		return fmt.Errorf("%w: %q", ErrNoServer, name)
	case need == nil || ctx == nil:
		return fmt.Errorf("%s does not wait for a sign-in", name)
	}
	s.personActed()
	c.askSignIn(ctx, s, *need)
	return nil
}

// remoteSpec is the current spec of the remote server name.
func (c *Core) remoteSpec(name string) (config.Server, *server, error) {
	c.mu.Lock()
	s, ok := c.servers[name]
	var spec config.Server
	if ok {
		spec = s.spec
	}
	c.mu.Unlock()
	switch {
	case !ok:
		return spec, nil, fmt.Errorf("%w: %q", ErrNoServer, name)
	case spec.Type != config.TypeHTTP:
		return spec, nil, fmt.Errorf("%s: %w", name, control.ErrNotRemote)
	case spec.Err != nil:
		return spec, nil, spec.Err
	case c.opts.RemoteAuth == nil:
		return spec, nil, errors.New("this build of mcptray has no OAuth client")
	}
	return spec, s, nil
}

// CheckRemote says why name cannot sign in; nil when it can.
func (c *Core) CheckRemote(name string) error {
	_, _, err := c.remoteSpec(name)
	return err
}

// SignIn signs the person in to the remote server name and restarts it
// (`mcptray auth login`): the person's own sign-in, the first of a new
// run of maxAsks. open gets the address to visit; nil opens the
// desktop's browser (Options.OpenURL). One sign-in per server at a time.
func (c *Core) SignIn(ctx context.Context, name string, open func(url string) error) (control.AuthInfo, error) {
	if _, s, err := c.remoteSpec(name); err == nil {
		c.mu.Lock()
		s.asks = 1 // the person acted: this sign-in is the first in a row
		c.mu.Unlock()
	}
	return c.signIn(ctx, name, open)
}

// signIn is SignIn, also after the person's yes to an inbox request
// (which counted already).
func (c *Core) signIn(ctx context.Context, name string, open func(url string) error) (control.AuthInfo, error) {
	spec, s, err := c.remoteSpec(name)
	if err != nil {
		return control.AuthInfo{}, err
	}
	c.mu.Lock()
	busy := s.signingIn
	s.signingIn = true
	c.mu.Unlock()
	if busy {
		return control.AuthInfo{}, fmt.Errorf("a sign-in to %s is under way already", name)
	}
	defer func() {
		c.mu.Lock()
		s.signingIn = false
		c.mu.Unlock()
	}()
	signCtx, stop := context.WithCancel(ctx)
	defer stop()
	if open == nil {
		open = c.browserOrInbox(signCtx, s, stop)
	}
	s.log.Write(logLifecycle, "signing in")
	info, err := c.opts.RemoteAuth.SignIn(signCtx, spec, open)
	if err != nil {
		return control.AuthInfo{}, fmt.Errorf("signing in to %s: %w", name, err)
	}
	info.Server = name
	s.log.Write(logLifecycle, "signed in at "+info.Issuer+": restarting")
	return info, c.restart(name)
}

// CompleteSignIn finishes the sign-in to name under way with the address
// the person's browser ended on (`auth login --no-browser`, whose
// browser is on another machine and cannot reach 127.0.0.1 here).
func (c *Core) CompleteSignIn(name, redirect string) error {
	spec, _, err := c.remoteSpec(name)
	if err != nil {
		return err
	}
	return c.opts.RemoteAuth.Complete(spec, redirect)
}

// SignOut forgets the tokens of the remote server name and restarts it
// (which then waits for a sign-in).
func (c *Core) SignOut(ctx context.Context, name string) error {
	spec, s, err := c.remoteSpec(name)
	if err != nil {
		return err
	}
	if err := c.opts.RemoteAuth.Logout(ctx, spec); err != nil {
		return fmt.Errorf("signing out of %s: %w", name, err)
	}
	s.log.Write(logLifecycle, "signed out: restarting")
	return c.Restart(name)
}

// AuthList is every remote server's sign-in, in config order (never a
// token).
func (c *Core) AuthList() ([]control.AuthInfo, error) {
	c.mu.Lock()
	var specs []config.Server
	for _, name := range c.order {
		if s := c.servers[name]; s != nil && s.spec.Type == config.TypeHTTP {
			specs = append(specs, s.spec)
		}
	}
	c.mu.Unlock()
	out := []control.AuthInfo{}
	for _, spec := range specs {
		info := control.AuthInfo{Server: spec.Name, State: control.AuthSignedOut}
		if c.opts.RemoteAuth != nil && spec.Err == nil {
			i, err := c.opts.RemoteAuth.Info(spec)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", spec.Name, err)
			}
			info, info.Server = i, spec.Name
		}
		out = append(out, info)
	}
	return out, nil
}

// needsSignIn reports whether a start's error says the server waits for
// the person to sign in.
func (s *server) needsSignIn(err error) (control.SignInStatus, bool) {
	if err == nil || s.core.opts.RemoteAuth == nil {
		return control.SignInStatus{}, false
	}
	return s.core.opts.RemoteAuth.NeedsSignIn(err)
}

// maxAsks is how many sign-ins in a row mcptray asks of the person for one
// server (at its starts and during its calls: a 401, a 403
// insufficient_scope, a token refused and not refreshed) without a start
// or a call succeeding in between. Past it, a start ends in state error
// and a call fails, both saying why, and mcptray asks no more until the
// person acts: `mcptray auth login`, a restart, a toggle, the tray's
// "Sign in…". A server that never grants the scope it asks for
// (conformance auth/scope-retry-limit) gets 3 sign-ins, not one per
// start without end.
const maxAsks = 3

// tooManyAsks says, for a sign-in needed, whether maxAsks were asked in a
// row already, and the message that says so.
func (s *server) tooManyAsks(need control.SignInStatus) (string, bool) {
	s.core.mu.Lock()
	n := s.asks
	s.core.mu.Unlock()
	if n < maxAsks {
		return "", false
	}
	if need.StepUp {
		return fmt.Sprintf("%s keeps asking for more access (insufficient_scope after %d sign-ins); mcptray stopped asking: run mcptray auth login %s, or restart it", s.name, maxAsks, s.name), true
	}
	return fmt.Sprintf("%s keeps refusing its sign-in (after %d sign-ins in a row); mcptray stopped asking: run mcptray auth login %s, or restart it", s.name, maxAsks, s.name), true
}

// stopAsking logs and tells the person, once per run of sign-ins, that
// mcptray stopped asking (msg, tooManyAsks').
func (s *server) stopAsking(msg string) {
	c := s.core
	c.mu.Lock()
	first := s.asks == maxAsks
	if first {
		s.asks++ // told: not again until the count starts anew
	}
	c.mu.Unlock()
	s.log.Write(logLifecycle, msg)
	if first {
		c.notice(s.name+" needs your attention", msg)
	}
}

// signedInOK starts the count of sign-ins in a row anew: a start or a
// call succeeded (downstream.HTTPSpec.AuthOK).
func (s *server) signedInOK() {
	s.core.mu.Lock()
	s.asks = 0
	s.core.mu.Unlock()
}

// personActed starts the count anew: the person restarted, toggled or
// signed in to the server themselves.
func (s *server) personActed() { s.signedInOK() }

// callAsk is one question asked during calls: done is closed once ok
// says whether the person signed in.
type callAsk struct {
	done chan struct{}
	ok   bool
}

// askDuringCall is a ready session's downstream.HTTPSpec.AskAuth: a call
// the server refused for want of a sign-in (or more scopes) waits while
// the inbox asks the person; their yes signs in, and the call is tried
// again. Calls that need it meanwhile wait for the same answer. At most
// maxAsks questions in a row (tooManyAsks): past them the call fails,
// and the status says why, while the session stays up.
func (s *server) askDuringCall(ctx context.Context, err error) bool {
	c := s.core
	need, ok := s.needsSignIn(err)
	if !ok {
		return false
	}
	c.mu.Lock()
	a := s.callAsk
	if a == nil {
		if s.asks >= maxAsks {
			c.mu.Unlock()
			msg, _ := s.tooManyAsks(need)
			s.stopAsking(msg)
			s.setStatus(func(st *control.ServerStatus) { st.Error = msg })
			return false
		}
		s.asks++
		a = &callAsk{done: make(chan struct{})}
		s.callAsk = a
		c.mu.Unlock()
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			s.runCallAsk(a, need)
		}()
	} else {
		c.mu.Unlock()
	}
	select {
	case <-a.done:
		return a.ok
	case <-ctx.Done():
		return false
	}
}

// runCallAsk asks the person once for the calls that wait (askDuringCall)
// and, on their yes, signs in without a restart: the session's handler
// serves the new token to the retried calls.
func (s *server) runCallAsk(a *callAsk, need control.SignInStatus) {
	c := s.core
	defer func() {
		c.mu.Lock()
		s.callAsk = nil
		c.mu.Unlock()
		close(a.done)
	}()
	c.mu.Lock()
	ctx := s.runCtx
	c.mu.Unlock()
	if ctx == nil {
		return
	}
	msg := fmt.Sprintf("Sign in to %s at %s", s.name, need.IssuerHost)
	if need.StepUp {
		msg = fmt.Sprintf("%s needs more access at %s: sign in again", s.name, need.IssuerHost)
	}
	s.log.Write(logLifecycle, "a call waits for a sign-in at "+need.IssuerHost+": asked in the inbox")
	req := inbox.Request{Kind: inbox.KindSignIn, Server: s.name, Source: inbox.SourceMcptray, Message: msg,
		Mode: "form", Confirm: true, AcceptLabel: "Sign in", SignIn: &inbox.SignIn{IssuerHost: need.IssuerHost, StepUp: need.StepUp}}
	r := c.inbox.Ask(ctx, req, "", c.inboxTimeout())
	if r.Outcome != store.OutcomeAccept {
		s.log.Write(logLifecycle, "sign-in not started ("+outcomeWords(r.Outcome)+"): the call fails")
		return
	}
	spec, _, err := c.remoteSpec(s.name)
	if err == nil {
		signCtx, stop := context.WithCancel(ctx)
		_, err = c.opts.RemoteAuth.SignIn(signCtx, spec, c.browserOrInbox(signCtx, s, stop))
		stop()
	}
	if err != nil {
		s.log.Write(logLifecycle, "sign-in: "+err.Error())
		c.notice("Signing in to "+s.name+" failed", err.Error())
		return
	}
	s.log.Write(logLifecycle, "signed in: the call is tried again")
	a.ok = true
}
