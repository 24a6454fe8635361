package app

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/loginenv"
)

// loginShell is the login shell's environment for the servers of an
// mcptray the desktop started (package loginenv): read once, by one
// goroutine that begin starts at the first config applied that does not
// turn it off; servers starting meanwhile wait for it (server.start).
type loginShell struct {
	decision loginenv.Decision // from Options.LoginShell: the shell, or why none
	timeout  time.Duration
	once     sync.Once
	done     chan struct{} // closed when the read ended; nil until begin

	mu     sync.Mutex // guards the fields below
	state  string
	detail string
	vars   map[string]string // PATH and the allowed variables; set before done closes, then read-only
}

func newLoginShell(d loginenv.Decision, timeout time.Duration) *loginShell {
	l := &loginShell{decision: d, timeout: timeout, state: control.LoginShellOff, detail: d.Why}
	if d.Shell != "" {
		l.detail = ""
	}
	return l
}

// begin starts the read, once, unless there is no shell to read or the
// config turns it off; changed is called when it ends (the status changed).
// The read ends with ctx (Run's) at the latest.
func (l *loginShell) begin(ctx context.Context, settingOff bool, log *slog.Logger, changed func()) {
	if l == nil || l.decision.Shell == "" || settingOff {
		return
	}
	l.once.Do(func() {
		done := make(chan struct{})
		l.mu.Lock()
		l.state, l.done = control.LoginShellReading, done
		l.mu.Unlock()
		go func() {
			defer close(done)
			begun := time.Now()
			vars, err := loginenv.Read(ctx, l.decision.Shell, l.timeout)
			l.mu.Lock()
			if err != nil {
				l.state, l.detail = control.LoginShellFailed, err.Error()
			} else {
				l.state, l.detail, l.vars = control.LoginShellUsed, "", vars
			}
			l.mu.Unlock()
			if err != nil {
				log.Warn("servers get mcptray's own PATH: reading the login shell's environment failed", "shell", l.decision.Shell, "err", err)
			} else {
				// Names only: the values stay out of the log.
				names := make([]string, 0, len(vars))
				for k := range vars {
					names = append(names, k)
				}
				slices.Sort(names)
				log.Info("servers get the login shell's PATH and variables", "shell", l.decision.Shell, "vars", strings.Join(names, ","), "took", time.Since(begun).Round(time.Millisecond))
			}
			changed()
		}()
	})
}

// wait blocks until a read in progress ends, or ctx does.
func (l *loginShell) wait(ctx context.Context) {
	if l == nil {
		return
	}
	l.mu.Lock()
	done := l.done
	l.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// result is the variables read (nil unless used) and the status.
func (l *loginShell) result(settingOff bool) (map[string]string, control.LoginShellStatus) {
	if l == nil {
		return nil, control.LoginShellStatus{State: control.LoginShellOff, Detail: "no login shell given"}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	st := control.LoginShellStatus{State: l.state, Shell: l.decision.Shell, Detail: l.detail}
	if settingOff {
		return nil, control.LoginShellStatus{State: control.LoginShellOff, Shell: l.decision.Shell, Detail: `x-mcptray.loginShell is false`}
	}
	if l.state != control.LoginShellUsed {
		return nil, st
	}
	return l.vars, st
}

// baseEnv is the environment every server starts from: mcptray's own, with
// the login shell's PATH and variables when they are used.
func (c *Core) baseEnv() []string {
	vars, _ := c.login.result(c.loginShellOff())
	return loginenv.Apply(os.Environ(), vars)
}

// loginShellOff reports whether the config turns the login shell off.
func (c *Core) loginShellOff() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settings.NoLoginShell
}

// serverPath is the PATH servers get (unless an entry sets its own), and
// where it comes from, for Status; called with c.mu held.
func (c *Core) serverPathLocked() (string, control.LoginShellStatus) {
	vars, st := c.login.result(c.settings.NoLoginShell)
	path := os.Getenv("PATH")
	if vars != nil {
		path = loginenv.MergePath(vars["PATH"], path)
	}
	return path, st
}
