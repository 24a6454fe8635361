package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// server supervises one mcp.json entry. Its manage goroutine owns the
// process; other goroutines talk to it through the channels.
type server struct {
	core *Core
	name string
	log  *serverLog

	specs        chan config.Server // latest spec wins (cap 1)
	restarts     chan struct{}      // restart requests (cap 1)
	toolsChanged chan struct{}      // the running session's tools changed (cap 1)
	approvals    chan struct{}      // an approval of the entry was recorded (cap 1; app/trust: Launches.WaitApproval)
	removed      chan struct{}      // closed when the entry leaves mcp.json
	done         chan struct{}      // closed when manage has stopped everything
	prev         *server            // a removed server of the same name still stopping

	key    string               // guarded by core.mu: fingerprint + enabled state of the last spec sent
	fresh  *config.Server       // guarded by core.mu: the spec the pending restart request brings (Restart resolved it again); nil: the current one
	status control.ServerStatus // guarded by core.mu
	// pendingLaunch is what the entry would run while it waits for the
	// person's approval (trust.Waiter.Pending); nil otherwise. Guarded by core.mu.
	pendingLaunch *config.Launch
	// spec and runCtx are the spec that runs and its run's context (a
	// restart or an edit ends it); guarded by core.mu.
	spec   config.Server
	runCtx context.Context
	// signInAsked: the inbox asks the person to sign in (one request per
	// server); signingIn: a sign-in runs (one at a time). Guarded by
	// core.mu (signin.go).
	signInAsked, signingIn bool
	// asks counts the sign-ins asked in a row (the inbox's questions,
	// at a start or during a call, and the person's own sign-in) since
	// a start or a call last succeeded, across starts (at most
	// maxAsks); callAsk is the one question open during calls, which
	// every call that needs it waits for. Guarded by core.mu (signin.go).
	asks    int
	callAsk *callAsk
}

func newServer(c *Core, spec config.Server) *server {
	s := &server{
		core:         c,
		name:         spec.Name,
		log:          openServerLog(logsDir(c.opts.DataDir), spec.Name),
		specs:        make(chan config.Server, 1),
		restarts:     make(chan struct{}, 1),
		toolsChanged: make(chan struct{}, 1),
		approvals:    make(chan struct{}, 1),
		removed:      make(chan struct{}),
		done:         make(chan struct{}),
		key:          specKey(spec),
		status:       control.ServerStatus{Name: spec.Name, Type: spec.Type, Enabled: !spec.Disabled, State: control.StateStopped},
	}
	s.specs <- spec
	return s
}

func specKey(spec config.Server) string {
	return fmt.Sprintf("%s/%t", spec.Fingerprint(), spec.Disabled)
}

// update hands a new spec to the server if its effective spec changed.
// Called with core.mu held.
func (s *server) update(spec config.Server) {
	key := specKey(spec)
	if key == s.key {
		return
	}
	s.key = key
	s.fresh = nil // older than spec
	select {
	case <-s.specs:
	default:
	}
	s.specs <- spec
}

// restartWith restarts the server with spec, its variables resolved again
// (a secret set since may be in it). Called with core.mu held.
func (s *server) restartWith(spec config.Server) {
	s.key = specKey(spec)
	s.fresh = &spec
	s.restart()
}

// remove stops the server for good. Called with core.mu held.
func (s *server) remove() { close(s.removed) }

func (s *server) restart() {
	select {
	case s.restarts <- struct{}{}:
	default:
	}
}

func (s *server) setStatus(f func(*control.ServerStatus)) {
	s.core.mu.Lock()
	f(&s.status)
	s.core.mu.Unlock()
	s.core.broadcast()
}

func (s *server) setState(state, errText string) {
	s.setStatus(func(st *control.ServerStatus) {
		st.State, st.Error, st.Since, st.StderrTail = state, errText, time.Now().UTC(), nil
		st.NotReading = false // a new session, or none
		st.SignIn = nil
		if state != control.StateReady {
			st.PID, st.Tools = 0, 0
		}
	})
}

// manage runs one spec at a time until the entry is removed or ctx ends:
// a new spec or a restart request stops the current run and starts anew.
func (s *server) manage(ctx context.Context) {
	defer close(s.done)
	defer s.log.Close()
	if s.prev != nil {
		<-s.prev.done
	}
	spec := <-s.specs
	first := true
	for {
		runCtx, cancel := context.WithCancel(ctx)
		ran := make(chan struct{})
		go func(spec config.Server, first bool) {
			defer close(ran)
			s.run(runCtx, spec, first)
		}(spec, first)
		first = false
		select {
		case spec = <-s.specs:
			s.log.Write(logLifecycle, "config changed: restarting")
		case <-s.restarts:
			s.log.Write(logLifecycle, "restart requested")
			s.core.mu.Lock()
			if s.fresh != nil {
				spec, s.fresh = *s.fresh, nil
			}
			s.core.mu.Unlock()
		case <-s.removed:
			s.log.Write(logLifecycle, "removed from config: stopping")
		case <-ctx.Done():
		}
		cancel()
		<-ran
		select {
		case <-s.removed:
			return
		case <-ctx.Done():
			return
		default:
		}
	}
}

// run keeps one spec running with restarts and backoff until ctx ends.
func (s *server) run(ctx context.Context, spec config.Server, first bool) {
	s.setStatus(func(st *control.ServerStatus) { st.Type, st.Enabled = spec.Type, !spec.Disabled })
	s.core.mu.Lock()
	s.spec, s.runCtx = spec, ctx
	s.core.mu.Unlock()
	var need *config.InputNeededError
	runnable := !spec.Disabled && (spec.Err == nil || errors.As(spec.Err, &need))
	spec.Launch = spec.Launch.Rehash() // the files as they are now (app/trust)
	if runnable && s.core.launches.NeedsApproval(spec) && !s.waitApproval(ctx, spec) {
		s.setState(control.StateStopped, "")
		return
	}
	switch {
	case !spec.Disabled && errors.As(spec.Err, &need):
		s.waitInput(ctx, spec, need.Input)
		return
	case spec.Err != nil:
		s.log.Write(logLifecycle, "refused: "+spec.Err.Error())
		s.setState(control.StateError, spec.Err.Error())
		<-ctx.Done()
		return
	case spec.Disabled:
		s.setState(control.StateDisabled, "")
		<-ctx.Done()
		return
	}
	var bo backoff
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			// A restart runs the files as they are now: one changed since
			// the yes waits for another (app/trust).
			spec.Launch = spec.Launch.Rehash()
			if s.core.launches.NeedsApproval(spec) && !s.waitApproval(ctx, spec) {
				s.setState(control.StateStopped, "")
				return
			}
		}
		if !first || attempt > 0 {
			s.setStatus(func(st *control.ServerStatus) { st.Restarts++ })
		}
		s.setState(control.StateStarting, "")
		started := time.Now()
		sess, err := s.start(ctx, spec)
		if ctx.Err() != nil {
			if sess != nil {
				s.stop(sess)
			}
			s.setState(control.StateStopped, "")
			return
		}
		var uptime time.Duration
		var reason string
		var tail []string
		if need, ok := s.needsSignIn(err); ok {
			// Not a failure: no backoff, no retry, until the person
			// signs in (which restarts the server). Past maxAsks
			// sign-ins in a row, an error until the person acts.
			if msg, over := s.tooManyAsks(need); over {
				s.stopAsking(msg)
				s.setState(control.StateError, msg)
				<-ctx.Done()
				s.setState(control.StateStopped, "")
				return
			}
			s.waitSignIn(ctx, need)
			s.setState(control.StateStopped, "")
			return
		}
		if err != nil {
			reason, tail = err.Error(), downstream.StderrTail(err)
			s.log.Write(logLifecycle, "start failed: "+reason)
		} else {
			reason, uptime = s.serve(ctx, sess, started)
			if ctx.Err() != nil {
				s.setState(control.StateStopped, "")
				return
			}
		}
		delay := bo.fail(uptime)
		state := control.StateError
		if uptime > 0 {
			state = control.StateRestarting
		}
		if bo.crashLoop() {
			state = control.StateCrashLoop
		}
		s.log.Write(logLifecycle, fmt.Sprintf("%s; next start in %s", state, delay))
		s.setStatus(func(st *control.ServerStatus) {
			st.State, st.Error, st.Since, st.StderrTail = state, reason, time.Now().UTC(), tail
			st.PID, st.Tools = 0, 0
		})
		select {
		case <-ctx.Done():
			s.setState(control.StateStopped, "")
			return
		case <-time.After(delay):
		}
	}
}

// start launches the process and waits for initialize and tools/list,
// for StartTimeout; an elicitation the server sends meanwhile goes to the
// inbox, and the deadline stops while it waits there.
func (s *server) start(ctx context.Context, spec config.Server) (*downstream.Session, error) {
	hooks := downstream.Hooks{
		Log:   s.log.Write,
		Event: s.core.eventHook(s.name, spec, s.log),
		ToolsChanged: func() {
			select {
			case s.toolsChanged <- struct{}{}:
			default:
			}
		},
		NotReading: func(v bool) { s.setStatus(func(st *control.ServerStatus) { st.NotReading = v }) },
	}
	if spec.Type == "http" {
		s.log.Write(logLifecycle, "connecting to "+redactURL(spec.URL))
		hs := downstream.HTTPSpec{Name: spec.Name, URL: spec.URL, Headers: spec.Headers,
			StartTimeout: s.core.opts.StartTimeout, Router: s.core.gw.Router(spec.Name), Secrets: s.core.passwordInputs()}
		if a := s.core.opts.RemoteAuth; a != nil {
			a.Wire(spec, &hs)
			hs.AskAuth = func(ctx context.Context, err error) bool { return s.askDuringCall(ctx, err) }
			hs.AuthOK = s.signedInOK
		}
		return downstream.StartHTTP(ctx, hs, hooks)
	}
	// Started by the desktop: wait for the login shell's PATH (bounded
	// by its timeout).
	s.core.login.wait(ctx)
	s.log.Write(logLifecycle, "starting "+spec.Command)
	return downstream.Start(ctx, downstream.StdioSpec{
		Name:         spec.Name,
		Command:      spec.Command,
		Args:         spec.Args,
		Env:          s.core.serverEnv(spec),
		Dir:          spec.Cwd,
		Watchdog:     s.core.watchdog,
		Probes:       s.core.probes,
		ProbeKey:     probeKey(spec),
		StopGrace:    s.core.opts.StopGrace,
		TermGrace:    s.core.opts.TermGrace,
		StartTimeout: s.core.opts.StartTimeout,
		Router:       s.core.gw.Router(spec.Name),
		Secrets:      s.core.passwordInputs(),

		NotReadingAfter: s.core.inputTimeout(),
	}, hooks)
}

// serve waits while the session runs; it returns why it ended and how long
// it was up. When ctx ends it stops the session.
func (s *server) serve(ctx context.Context, sess *downstream.Session, started time.Time) (reason string, uptime time.Duration) {
	ready := time.Now()
	s.log.Write(logLifecycle, fmt.Sprintf("ready: pid %d, %d tools, protocol %s, in %s", sess.PID(), len(sess.Tools()), sess.ProtocolVersion(), ready.Sub(started).Round(time.Millisecond)))
	runID, _ := s.core.store.RunStarted(context.WithoutCancel(ctx), s.name, sess.PID(), sess.PGID(), s.core.instance, started)
	// The gateway learns of the session before the status says ready, so
	// a client that sees "ready" can call the server's tools.
	s.core.serverReady(s.name, sess)
	s.signedInOK() // the start succeeded: no sign-in asked in a row
	s.setStatus(func(st *control.ServerStatus) {
		st.State, st.Error, st.Since, st.StderrTail = control.StateReady, "", ready.UTC(), nil
		st.PID, st.Tools = sess.PID(), len(sess.Tools())
	})
	// Re-lists after tools/list_changed are rate-limited: a server that
	// sends it without end gets one list per RelistEvery, not one per
	// notification (each goes on to every assistant's view).
	var relist relistLimit
	defer relist.stop()
	for {
		select {
		case <-s.toolsChanged:
			if !relist.now(s.core.opts.RelistEvery) {
				if relist.limited == 1 {
					s.log.Write(logLifecycle, fmt.Sprintf("tools/list_changed comes more often than every %s: tools are listed again at most that often", s.core.opts.RelistEvery))
				}
				continue
			}
			s.relistTools(ctx, sess)
			continue
		case <-relist.due():
			relist.fired()
			s.relistTools(ctx, sess)
			continue
		case <-sess.Done():
			s.core.serverDown(s.name)
			reason = sess.ExitReason()
			s.log.Write(logLifecycle, "exited: "+reason)
			s.core.store.RunExited(context.WithoutCancel(ctx), runID, time.Now(), sess.ExitCode(), reason)
			return reason, time.Since(ready) + time.Nanosecond
		case <-ctx.Done():
			s.core.serverDown(s.name)
			s.stop(sess)
			s.core.store.RunExited(context.WithoutCancel(ctx), runID, time.Now(), sess.ExitCode(), "stopped")
			return "stopped", time.Since(ready)
		}
	}
}

// relistTools lists a session's tools again, after tools/list_changed.
func (s *server) relistTools(ctx context.Context, sess *downstream.Session) {
	listCtx, cancel := context.WithTimeout(ctx, s.core.opts.StartTimeout)
	tools, err := sess.ListTools(listCtx)
	cancel()
	if err != nil {
		s.log.Write(logLifecycle, "listing changed tools: "+err.Error())
		return
	}
	s.setStatus(func(st *control.ServerStatus) { st.Tools = len(tools) })
	s.core.serverReady(s.name, sess)
}

func (s *server) stop(sess *downstream.Session) {
	s.setState(control.StateStopping, "")
	s.log.Write(logLifecycle, "stopping")
	sess.Close()
	s.log.Write(logLifecycle, "stopped: "+sess.ExitReason())
}

// serverEnv is the child's whole environment: mcptray's own (with the
// login shell's PATH and variables when they are used: loginshell.go), then
// the entry's env, then MCPTRAY_CONFIG (the absolute path of mcp.json, unless
// the entry sets it: the built-in servers read their x-mcptray settings
// there), MCPTRAY_DATA (the absolute data dir, unless the entry sets it:
// the built-in Google servers keep their accounts file and cursors there)
// and the instance marker the watchdog and reaper look for.
func (c *Core) serverEnv(spec config.Server) []string {
	base := c.baseEnv()
	env := make([]string, 0, len(base)+len(spec.Env)+2)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, override := spec.Env[k]; override || k == instanceEnv || k == configEnv || k == dataEnv {
			continue
		}
		env = append(env, kv)
	}
	if _, set := spec.Env[configEnv]; !set {
		if p, err := filepath.Abs(c.opts.ConfigPath); err == nil {
			env = append(env, configEnv+"="+p)
		}
	}
	if _, set := spec.Env[dataEnv]; !set {
		if p, err := filepath.Abs(c.opts.DataDir); err == nil {
			env = append(env, dataEnv+"="+p)
		}
	}
	keys := make([]string, 0, len(spec.Env))
	for k := range spec.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+spec.Env[k])
	}
	return append(env, instanceEnv+"="+c.instance)
}

// instanceEnv marks every server process with the instance that started it.
const instanceEnv = downstream.InstanceEnv

// configEnv tells a server where mcp.json is (config.DefaultPath reads it).
const configEnv = "MCPTRAY_CONFIG"

// dataEnv tells a server where the data dir is (DefaultDataDir reads it).
const dataEnv = "MCPTRAY_DATA"

// redactURL keeps scheme, host and path; query strings may carry tokens.
func redactURL(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	if i := strings.Index(u, "@"); i >= 0 {
		if j := strings.Index(u, "://"); j >= 0 && j < i {
			u = u[:j+3] + u[i+1:]
		}
	}
	return u
}
