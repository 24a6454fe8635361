package downstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainWait bounds how long a session waits, after its process group is
// gone, for stdout and stderr to reach EOF (a process outside the group may
// still hold them).
const drainWait = time.Second

// Start launches a stdio server in its own process group, connects the SDK
// client and runs a full tools/list. It asks initialize (ProtocolVersion)
// first, and where the server refuses it (an error answer, or it exits
// without one: a server on 2026-07-28 only), starts it once more with the
// server/discover probe (ProbeVersion), which the session then speaks.
// spec.DiscoverFirst turns the order around: the probe first, initialize
// where the server does not take it (it exits on it, or leaves it
// unanswered). Whichever worked the second time is remembered in
// spec.Probes (a probe left unanswered until the deadline is remembered
// at once), and the next start goes straight to it; where that start is
// refused in turn, the memory is dropped and both ways are tried again.
// A server that takes neither fails with the first way's error. ctx bounds the whole startup, and so does spec.StartTimeout
// (paused while the server's elicitation waits in the inbox: see
// session_startup.go). On any failure the process group
// is killed before Start returns, and the error is one readable line such
// as "exited with code 3 before initialize: panic: boom" or
// "no answer to initialize within 2m0s".
func Start(ctx context.Context, spec StdioSpec, hooks Hooks) (*Session, error) {
	if v := spec.Probes.version(spec); v != "" {
		s, err := start(ctx, spec, hooks, v)
		var pf *probeFailure
		if !errors.As(err, &pf) || pf.timedOut || ctx.Err() != nil {
			return s, err
		}
		// What it took before, it refuses now (updated in place): forget
		// it, and ask both ways again.
		spec.Probes.forget(spec)
		hooks.log("stderr", fmt.Sprintf("the server no longer takes %s (%v); asking both ways again", firstRequest(v), pf.err))
	}
	first, other := ProtocolVersion, ProbeVersion
	if spec.DiscoverFirst {
		first, other = ProbeVersion, ProtocolVersion
	}
	s, err := start(ctx, spec, hooks, first)
	var pf *probeFailure
	if !errors.As(err, &pf) {
		return s, err
	}
	if ctx.Err() != nil || pf.timedOut {
		// Silent on the probe until the deadline: the next start goes
		// straight to initialize.
		spec.Probes.remember(spec, other)
		return nil, pf.err
	}
	hooks.log("stderr", fmt.Sprintf("the server did not take %s (%v); starting it again with %s", firstRequest(first), pf.err, firstRequest(other)))
	s, err = start(ctx, spec, hooks, other)
	if err == nil {
		spec.Probes.remember(spec, other)
		return s, nil
	}
	var again *probeFailure
	if errors.As(err, &again) && !again.timedOut {
		// It took neither (a server that crashes at every start): what the
		// person reads is why the first, usual way failed.
		hooks.log("stderr", fmt.Sprintf("the server did not take %s either (%v)", firstRequest(other), again.err))
		return nil, pf.err
	}
	return nil, err
}

// firstRequest is the request a session on version starts with.
func firstRequest(version string) string {
	if version >= NewWireVersion {
		return "server/discover"
	}
	return "initialize"
}

// probeFailure is start's error when the server did not take the first
// request: it refused initialize, or never answered server/discover (it
// ended, or the startup's deadline passed).
type probeFailure struct {
	err      error
	timedOut bool
}

func (e *probeFailure) Error() string { return e.err.Error() }
func (e *probeFailure) Unwrap() error { return e.err }

// start is one Start: version is ProbeVersion (server/discover first, then
// initialize as the SDK falls back) or ProtocolVersion (initialize only).
func start(ctx context.Context, spec StdioSpec, hooks Hooks, version string) (*Session, error) {
	begun := time.Now()
	budget := startBudget(ctx, begun, spec.StartTimeout)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("not started: %w", err)
	}
	path, err := lookCommand(spec.Command, spec.Env, spec.Dir)
	if err != nil {
		return nil, err
	}
	if err := checkDir(spec.Dir); err != nil {
		return nil, err
	}
	pipes, err := newStdioPipes()
	if err != nil {
		return nil, fmt.Errorf("making pipes: %w", err)
	}
	proc, err := startProcess(spec, path, pipes.childIn, pipes.childOut, pipes.childErr)
	pipes.closeChildEnds()
	if err != nil {
		pipes.closeOurEnds()
		return nil, err
	}

	s := newSession(hooks)
	for _, v := range spec.Secrets {
		s.addSecret(v)
	}
	s.proc = proc
	s.stopGrace, s.termGrace = stopGraceOf(spec), termGraceOf(spec)
	after := spec.NotReadingAfter
	if after == 0 {
		after = DefaultNotReadingAfter
	}
	s.notReadingAfter = after
	s.conn = newStdioConn(pipes.in, pipes.out, s.hooks, stdinWatch{after: after,
		onDeaf: func(read uint64) { s.notReading(read, after) }, onHear: s.readsAgain})
	s.attachEarly(spec.Router)
	s.stderr = readStderr(pipes.errOut, s.hooks, s.RedactText)
	go s.monitor()
	ctx, done := s.boundStart(ctx, spec.StartTimeout)
	defer done()

	s.logLevel = levelOf(spec.LogLevel)
	pc := &probeConn{Connection: s.conn}
	cs, err := s.newClient().Connect(ctx, ConnTransport{pc}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		if pc.refused(ctx.Err() == nil && s.conn.peerClosed()) {
			err := s.failStart(ctx, firstRequest(version), budget, err)
			return nil, &probeFailure{err: err, timedOut: ctx.Err() != nil}
		}
		return nil, s.failStart(ctx, "initialize", budget, err)
	}
	s.cs = cs
	if m := pc.meta.Load(); m != nil && s.ProtocolVersion() >= NewWireVersion {
		s.wireMeta = newWireMeta(*m)
		s.newWire = s.wireMeta != nil
	}
	if err := s.afterConnect(ctx, spec.LogLevel); err != nil {
		return nil, s.failStart(ctx, "tools/list", budget, err)
	}
	return s, nil
}

func stopGraceOf(spec StdioSpec) time.Duration {
	if spec.StopGrace > 0 {
		return spec.StopGrace
	}
	return defaultStopGrace
}

func termGraceOf(spec StdioSpec) time.Duration {
	if spec.TermGrace > 0 {
		return spec.TermGrace
	}
	return defaultTermGrace
}

// failStart kills the process group, waits until the session has ended and
// turns err into the one line a person reads.
func (s *Session) failStart(ctx context.Context, phase string, budget time.Duration, err error) error {
	byItself := false
	if ctx.Err() == nil && s.conn.peerClosed() {
		// The server closed its stdout: most likely it is on its way out.
		// Give it a moment, so the error can say how it ended.
		byItself = s.proc.waitExit(time.Second)
	}
	if !byItself {
		s.endLife()
		s.conn.Close()
		s.proc.kill()
	}
	<-s.done
	if s.cs != nil {
		s.cs.Close()
	}
	tail := s.stderr.lines()
	telling := cutLine(tellingLine(tail), startErrorLineBytes)
	if byItself {
		when := "before " + phase
		if phase != "initialize" {
			when = "during " + phase
		}
		reason, _ := describeExit(s.proc.state)
		if telling != "" {
			reason += " " + when + ": " + telling // what a crash printed is usually why
		} else {
			reason += " " + when
		}
		return &startupError{msg: reason, cause: err, tail: tail}
	}
	detail := ""
	switch {
	case telling == "":
	case len(tail) > 0 && telling == cutLine(tail[len(tail)-1], startErrorLineBytes):
		detail = " (last stderr line: " + telling + ")"
	default:
		detail = " (stderr: " + telling + ")"
	}
	if ctx.Err() != nil {
		err := timeoutError(ctx, phase, budget, detail)
		err.tail = tail
		return err
	}
	return &startupError{msg: phase + ": " + err.Error() + detail, cause: err, tail: tail}
}

// monitor ends the session: when the process exits, when the connection
// ends (stdout EOF, or the SDK closed it) or when Close is called. It owns
// the stop escalation and closes done last.
func (s *Session) monitor() {
	cause := ""
	select {
	case <-s.proc.exited:
	case <-s.closeReq:
		cause = "stopped"
	case <-s.conn.ended:
		cause = "connection closed"
	}
	signaled := false
	if cause != "" {
		if cause == "stopped" {
			s.endLife()
		}
		signaled = s.proc.stop(func() { s.conn.Close() }, s.stopGrace, s.termGrace)
	}
	reason, code := describeExit(s.proc.state)
	if cause == "stopped" || (cause == "connection closed" && signaled) {
		reason = cause
	}

	// The group is gone, so stdout and stderr reach EOF unless a process
	// outside the group holds them; don't wait for that forever. Replies
	// the server wrote before it exited still reach their callers.
	timer := time.NewTimer(drainWait)
	select {
	case <-s.conn.readDone:
	case <-timer.C:
	}
	select {
	case <-s.stderr.done:
	case <-timer.C:
	}
	timer.Stop()
	s.endLife()
	s.conn.Close()
	s.conn.closeOut()
	s.stderr.close()

	s.exitReason, s.exitCode = reason, code
	close(s.done)
}

// stdioPipes are the three pipes between mcptray and a server.
type stdioPipes struct {
	childIn, childOut, childErr *os.File // the child's ends
	in, out, errOut             *os.File // ours: write stdin, read stdout and stderr
}

func newStdioPipes() (*stdioPipes, error) {
	p := &stdioPipes{}
	var err error
	if p.childIn, p.in, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.out, p.childOut, err = os.Pipe(); err != nil {
		p.closeChildEnds()
		p.closeOurEnds()
		return nil, err
	}
	if p.errOut, p.childErr, err = os.Pipe(); err != nil {
		p.closeChildEnds()
		p.closeOurEnds()
		return nil, err
	}
	return p, nil
}

func (p *stdioPipes) closeChildEnds() { closeFiles(p.childIn, p.childOut, p.childErr) }
func (p *stdioPipes) closeOurEnds()   { closeFiles(p.in, p.out, p.errOut) }

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// stderrReader passes a server's stderr to Hooks.Log line by line and keeps
// the last line, redacted, for startup errors (shown in status, stored as
// the run's reason).
type stderrReader struct {
	f    *os.File
	done chan struct{} // closed at EOF

	mu   sync.Mutex
	tail []string // guarded by mu: the last stderrTailLines non-empty lines, oldest first
}

func readStderr(f *os.File, hooks Hooks, redact func(string) string) *stderrReader {
	r := &stderrReader{f: f, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		lr := wire.NewLineReader(f, wire.MaxStderrLineBytes)
		for {
			line, skipped, err := lr.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
					hooks.log("stderr", "reading stderr: "+err.Error())
				}
				return
			}
			if skipped > 0 {
				hooks.log("stderr", fmt.Sprintf("line over 1 MiB discarded (%d bytes)", skipped))
				continue
			}
			if len(line) == 0 {
				continue
			}
			text := redact(wire.LogText(line))
			r.mu.Lock()
			if len(r.tail) == stderrTailLines {
				r.tail = append(r.tail[:0], r.tail[1:]...)
			}
			r.tail = append(r.tail, cutLine(text, stderrTailLineBytes))
			r.mu.Unlock()
			hooks.log("stderr", text)
		}
	}()
	return r
}

// lines is a copy of the stderr tail, oldest first.
func (r *stderrReader) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.tail...)
}

func (r *stderrReader) close() { r.f.Close() }
