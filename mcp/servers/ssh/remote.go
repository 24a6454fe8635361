package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	gossh "golang.org/x/crypto/ssh"
)

// How a command runs on the remote host.
//
// The SSH command line is `exec /bin/sh -c OUTER mcptray CMD CWD`: the
// login shell becomes sh, which sshd made a session and process-group
// leader, so its pid ($$) is the process group of everything the command
// starts. OUTER prints that pid on stderr (pidMarker), then — directly or
// through sudo — INNER changes to CWD, prints startMarker on stderr and
// execs `bash -c CMD` (sh when the host has no bash). Both markers are
// taken out of the output. Whatever sudo or cd print comes before
// startMarker, so the command's own output is never mixed with theirs, and
// a sudo password is written to stdin before anything else and only then
// the command's stdin. On a timeout the process group gets SIGTERM, then
// SIGKILL, from a second session (through sudo when the command ran as
// root).
const (
	pidMarker   = "\x1emcptray-pid "
	startMarker = "\x1emcptray-start"
)

// inner is run by sh with $1 = the command, $2 = the directory ("" = the
// login directory).
const inner = `[ -z "$2" ] || cd -- "$2" || exit 126; ` +
	`unset LC_ALL; printf '\036mcptray-start\n' >&2; ` +
	`if command -v bash >/dev/null 2>&1; then exec bash -c "$1"; fi; exec sh -c "$1"`

// sudoRun is how a command goes through sudo.
type sudoRun struct {
	user     string // target user ("" = root)
	password string // "" = sudo -n (no password); else sudo -k -S -p ''
}

func (s *sudoRun) args() string {
	a := "sudo -n"
	if s.password != "" {
		a = "sudo -k -S -p ''"
	}
	if s.user != "" {
		a += " -u " + shellQuote(s.user)
	}
	return a
}

// remoteCommand builds the SSH command line for cmd.
func remoteCommand(cmd, cwd string, sudo *sudoRun) string {
	outer := `printf '\036mcptray-pid %s\n' "$$" >&2; `
	if sudo == nil {
		outer += inner
	} else {
		// LC_ALL=C: sudo's messages in English, so a wrong password is
		// recognised; INNER unsets it again for the command.
		outer += "LC_ALL=C exec " + sudo.args() + " -- /bin/sh -c " + shellQuote(inner) + ` mcptray "$1" "$2"`
	}
	return "exec /bin/sh -c " + shellQuote(outer) + " mcptray " + shellQuote(cmd) + " " + shellQuote(cwd)
}

// shellQuote quotes s as one word for a POSIX shell (and for bash, zsh
// and fish, which all read the quote-backslash-quote-quote escape alike).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runSpec is one command to run.
type runSpec struct {
	cmd     string
	cwd     string
	stdin   string
	sudo    *sudoRun
	timeout time.Duration
	maxOut  int // cap for stdout and for stderr, each
}

// runResult is what came of it.
type runResult struct {
	exitCode int    // -1 when there is none (killed by a signal, timed out, connection lost)
	signal   string // the signal that ended it, if any
	stdout   *capBuffer
	stderr   *capBuffer
	started  bool   // the command itself started (sudo and cd got through)
	pre      string // stderr before the command started: sudo's or cd's messages
	timedOut bool
	duration time.Duration
}

// run runs spec on t's connection. It returns an error only when the command could not
// be run at all; a non-zero exit or a timeout is in the result. When ctx
// ends or spec.timeout passes, the remote process group is killed.
func (s *Server) run(ctx context.Context, t *target, spec runSpec) (*runResult, error) {
	if spec.maxOut == 0 {
		spec.maxOut = maxOutput
	}
	sess, err := t.newSession()
	if err != nil {
		return nil, err
	}
	c := t.c
	defer sess.Close()
	res := &runResult{exitCode: -1, stdout: newCapBuffer(spec.maxOut), stderr: newCapBuffer(spec.maxOut)}
	filter := newStderrFilter(res.stderr)
	sess.Stdout = res.stdout
	sess.Stderr = filter
	stdin, err := sess.StdinPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := sess.Start(remoteCommand(spec.cmd, spec.cwd, spec.sudo)); err != nil {
		return nil, fmt.Errorf("starting the command on alias %s: %w", c.alias, err)
	}
	// done is closed when the session has ended; werr is then Wait's error.
	var werr error
	done := make(chan struct{})
	go func() { werr = sess.Wait(); close(done) }()
	go feedStdin(stdin, spec, filter, done)

	var timeout <-chan time.Time
	if spec.timeout > 0 {
		t := time.NewTimer(spec.timeout)
		defer t.Stop()
		timeout = t.C
	}
	finished := false
	select {
	case <-done:
		finished = true
	case <-timeout:
		res.timedOut = true
	case <-ctx.Done():
	}
	if !finished {
		s.kill(c, filter.pgid(), spec.sudo)
		// The session ends once the group is gone; if it does not, closing
		// it lets the call return.
		select {
		case <-done:
		case <-time.After(killGrace + 2*time.Second):
			sess.Close()
			<-done
		}
	}
	res.duration = time.Since(start)
	res.started = filter.hasStarted()
	res.pre = filter.preText()
	var ee *gossh.ExitError
	switch {
	case werr == nil:
		res.exitCode = 0
	case errors.As(werr, &ee):
		res.exitCode = ee.ExitStatus()
		res.signal = ee.Signal()
		if res.signal != "" {
			res.exitCode = -1
		}
	case isExitMissing(werr):
		// killed without an exit status, or the connection dropped
	default:
		if finished {
			return res, fmt.Errorf("running the command on alias %s: %w", c.alias, werr)
		}
	}
	return res, nil
}

func isExitMissing(err error) bool {
	var em *gossh.ExitMissingError
	return errors.As(err, &em) || errors.Is(err, io.EOF)
}

// feedStdin writes the sudo password line (when there is one), then the
// command's stdin once the command has started, then closes stdin. When
// sudo complains before the command starts (a wrong password), stdin is
// closed so that sudo, asking again, reads end-of-file and gives up.
func feedStdin(w io.WriteCloser, spec runSpec, f *stderrFilter, done <-chan struct{}) {
	defer w.Close()
	if spec.sudo != nil && spec.sudo.password != "" {
		if _, err := io.WriteString(w, spec.sudo.password+"\n"); err != nil {
			return
		}
		if spec.stdin == "" {
			return
		}
		select {
		case <-f.started:
		case <-f.complained:
			return
		case <-done:
			return
		}
	}
	io.WriteString(w, spec.stdin)
}

// killGrace is how long the process group has between SIGTERM and SIGKILL.
const killGrace = 2 * time.Second

// kill ends the remote process group pgid from a new session, through
// sudo (in the same way) when the command ran through sudo.
func (s *Server) kill(c *conn, pgid int, sudo *sudoRun) {
	if pgid <= 1 {
		return
	}
	// `kill -SIG -PGID`: dash's kill takes no "--".
	script := fmt.Sprintf(`kill -TERM -%d 2>/dev/null; i=0; `+
		`while kill -0 -%d 2>/dev/null && [ $i -lt %d ]; do sleep 0.1; i=$((i+1)); done; `+
		`kill -KILL -%d 2>/dev/null; exit 0`, pgid, pgid, int(killGrace/(100*time.Millisecond)), pgid)
	run := func(cmd, stdin string) error {
		done := make(chan error, 1)
		go func() {
			sess, err := c.d.client.NewSession()
			if err != nil {
				done <- err
				return
			}
			defer sess.Close()
			sess.Stdin = strings.NewReader(stdin)
			done <- sess.Run(cmd)
		}()
		select {
		case err := <-done:
			return err
		case <-time.After(killGrace + 10*time.Second):
			// The connection does not answer: end it, which also ends
			// the command's session (sshd then closes its pipes).
			c.d.client.Close()
			return errors.New("the connection did not answer the kill; closed it")
		}
	}
	if sudo != nil {
		var stdin string
		if sudo.password != "" {
			stdin = sudo.password + "\n"
		}
		root := &sudoRun{password: sudo.password}
		if err := run("LC_ALL=C "+root.args()+" -- /bin/sh -c "+shellQuote(script), stdin); err == nil {
			return
		}
	}
	if err := run("/bin/sh -c "+shellQuote(script), ""); err != nil {
		s.log.Warn("killing a timed-out command", "alias", c.alias, "err", err)
	}
}

// maxOutput caps a command's stdout and stderr, each (64 KiB).
const maxOutput = 64 << 10

// capBuffer keeps the first max bytes written and counts the rest.
type capBuffer struct {
	mu    sync.Mutex // guards buf and total
	max   int
	buf   bytes.Buffer
	total int64
}

func newCapBuffer(max int) *capBuffer { return &capBuffer{max: max} }

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(len(p))
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// String is the kept text, cut back to whole UTF-8 characters when cut.
func (b *capBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.buf.Bytes()
	if b.total > int64(len(out)) {
		out = cutPartialRune(out)
	}
	return string(out)
}

// cutPartialRune drops an incomplete UTF-8 sequence at the end of b.
func cutPartialRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				b = b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// Truncated says whether bytes were dropped; Total counts all bytes.
func (b *capBuffer) Truncated() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total > int64(b.buf.Len())
}
func (b *capBuffer) Total() int64 { b.mu.Lock(); defer b.mu.Unlock(); return b.total }

// stderrFilter takes the markers out of the remote stderr: the process
// group line, sudo's and cd's lines before the start marker (kept apart),
// then passes the command's stderr to out.
type stderrFilter struct {
	out        *capBuffer
	started    chan struct{} // closed at the start marker
	complained chan struct{} // closed at sudo's first complaint about the password

	mu     sync.Mutex // guards the fields below
	line   []byte     // a partial line before the start marker
	pre    bytes.Buffer
	group  int
	begun  bool
	moaned bool
}

func newStderrFilter(out *capBuffer) *stderrFilter {
	return &stderrFilter{out: out, started: make(chan struct{}), complained: make(chan struct{})}
}

// maxPre caps what is kept of stderr before the command starts.
const maxPre = 8 << 10

func (f *stderrFilter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(p)
	for !f.begun && len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			f.line = append(f.line, p...)
			if len(f.line) > maxPre { // not ours: a long line without newline
				f.addPre(f.line)
				f.line = nil
			}
			return n, nil
		}
		line := append(f.line, p[:i]...)
		f.line = nil
		p = p[i+1:]
		switch s := string(line); {
		case strings.HasPrefix(s, pidMarker):
			f.group, _ = strconv.Atoi(strings.TrimSpace(s[len(pidMarker):]))
		case s == startMarker:
			f.begun = true
			close(f.started)
		default:
			f.addPre(append(line, '\n'))
			if !f.moaned && isSudoComplaint(s) {
				f.moaned = true
				close(f.complained)
			}
		}
	}
	if len(p) > 0 {
		f.out.Write(p)
	}
	return n, nil
}

func (f *stderrFilter) addPre(b []byte) {
	if room := maxPre - f.pre.Len(); room > 0 {
		f.pre.Write(b[:min(room, len(b))])
	}
}

// isSudoComplaint recognises sudo's words for a refused password (with
// LC_ALL=C).
func isSudoComplaint(line string) bool {
	return strings.Contains(line, "try again") || strings.Contains(line, "incorrect password") ||
		strings.Contains(line, "no password was provided")
}

func (f *stderrFilter) pgid() int { f.mu.Lock(); defer f.mu.Unlock(); return f.group }
func (f *stderrFilter) hasStarted() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.begun
}

// preText is what came before the command started, plus any partial line.
func (f *stderrFilter) preText() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pre.String() + string(f.line)
}
