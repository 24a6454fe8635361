package ui

import (
	"log"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/app/control"
)

// The main window and the popup are processes of their own (`mcptray
// window`, `mcptray popup`), started by the tray app when the person
// wants one and ended when closed: the tray app itself never creates a
// window, so it never loads the GL driver and the fonts, and closing a
// window gives all of that back (docs/performance.md, issue 31). They
// speak to the tray app's core over the control API, as the CLI does
// (app/remote), and tell it that they are open (HoldWindow), so that a
// second click raises the window that is there rather than starting
// another — also one left open across a restart of the tray app.

// ChildCommand makes the command line of a window's process: kind is
// "window" or "popup", args its flags. Nothing secret is ever in args.
type ChildCommand func(kind string, args ...string) *exec.Cmd

// ExecChildren is the ChildCommand of an installed mcptray: exe KIND
// --config CONFIG --data DATA ARGS…
func ExecChildren(exe, config, data string) ChildCommand {
	return func(kind string, args ...string) *exec.Cmd {
		return exec.Command(exe, append([]string{kind, "--config", config, "--data", data}, args...)...)
	}
}

// children starts and ends the window's and the popup's processes.
// Main goroutine only.
type children struct {
	command ChildCommand
	// raise asks an open window of kind (main or popup) to come to the
	// front, on tab for the main window; false: none is open.
	raise func(kind, tab string) bool
	// noTray is why there is no tray ("" when there is one): the window
	// says it, and closing it quits mcptray (mainExited).
	noTray func() string
	// mainExited runs when the window's process ended (the person closed
	// it, or it failed).
	mainExited func()
	release    func() // RunOptions.Release, or nil
	// pending says whether inbox requests wait (the tray app's view).
	pending func() bool
	// own tells the core's peer check that a process is the tray app's
	// own window (RunOptions.Own); forget once it has ended.
	own func(pid int) (forget func())

	live map[string]*child // by kind, while its process runs
	// again is an Open that came while the main window's process was
	// still there but no longer held its window (closed, on its way
	// out): it opens a new one once that has ended, if it is recent.
	again *openRequest
	// popupFailed counts the popup's processes in a row that ended with
	// an error: one that fails is started again for a request still
	// waiting, but not past maxPopupFailures (a popup that cannot show
	// would otherwise start again forever).
	popupFailed int
}

// maxPopupFailures is how many popups in a row may fail before a waiting
// request no longer starts another (the next request, or the tray's
// item, does).
const maxPopupFailures = 2

// openRequest is an openMain that waits for the last window to end.
type openRequest struct {
	tab, need string
	at        time.Time
}

// child is a window's process.
type child struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once it has ended
}

func newChildren(o RunOptions, noTray func() string, mainExited func(), pending func() bool) *children {
	own := o.Own
	if own == nil {
		own = func(int) func() { return func() {} }
	}
	return &children{command: o.Children, raise: o.Raise, own: own, release: o.Release, noTray: noTray, mainExited: mainExited, pending: pending,
		live: map[string]*child{}}
}

// openMain shows the main window on tab: the open one comes to the
// front, or a process starts.
func (c *children) openMain(tab, need string) {
	if c.raise(control.WindowMain, tab) {
		c.again = nil
		return
	}
	if c.live[control.WindowMain] != nil {
		// Starting (it opens on its own tab), or closed and ending: then
		// this opens the next one.
		c.again = &openRequest{tab: tab, need: need, at: time.Now()}
		return
	}
	c.again = nil
	var args []string
	if tab != "" {
		args = append(args, "--tab", tab)
	}
	if need != "" {
		args = append(args, "--need-account", need)
	}
	if why := c.noTray(); why != "" {
		args = append(args, "--no-tray", why)
	}
	c.start(control.WindowMain, "window", append(args, "--wait", childWait.String())...)
}

// openPopup shows the waiting requests in the popup.
func (c *children) openPopup() {
	if c.raise(control.WindowPopup, "") || c.live[control.WindowPopup] != nil {
		return // the open popup follows the inbox itself
	}
	c.start(control.WindowPopup, "popup", "--wait", childWait.String())
}

// childWait is how long a window's process waits for the control socket:
// the tray app opens its window at start when no tray shows, before its
// core listens.
const childWait = 10 * time.Second

func (c *children) start(kind, command string, args ...string) {
	cmd := c.command(command, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr // beside the tray app's own log
	noConsole(cmd)
	if err := cmd.Start(); err != nil {
		log.Printf("mcptray: starting the %s: %v", command, err)
		return
	}
	forget := c.own(cmd.Process.Pid)
	ch := &child{cmd: cmd, done: make(chan struct{})}
	c.live[kind] = ch
	go func() {
		err := cmd.Wait()
		forget()
		close(ch.done)
		onMain(func() {
			if c.live[kind] == ch {
				delete(c.live, kind)
			}
			if c.release != nil && len(c.live) == 0 {
				time.AfterFunc(releaseQuiet, c.release)
			}
			if err != nil && !ended(err) {
				log.Printf("mcptray: the %s ended: %v", command, err)
			}
			switch again := c.again; {
			case kind == control.WindowMain && again != nil && time.Since(again.at) < childWait:
				c.again = nil
				c.openMain(again.tab, again.need)
			case kind == control.WindowMain && c.mainExited != nil:
				c.mainExited()
			case kind == control.WindowPopup && c.popupEnded(err):
				c.openPopup()
			}
		})
	}()
}

// popupEnded counts a popup process's end (err is its exit) and says
// whether another must start: a request waits, which arrived as it ended
// and reached it on its way out (openPopup's raise), or which it could not
// show because it failed (a popup with none to show fails too: RunPopup).
// After maxPopupFailures failures in a row, no: the next request or the
// tray's item starts one.
func (c *children) popupEnded(err error) bool {
	if err == nil {
		c.popupFailed = 0
	} else {
		c.popupFailed++
	}
	return c.popupFailed <= maxPopupFailures && c.pending()
}

// ended says whether err is the exit of a process we asked to end.
func ended(err error) bool {
	ee, ok := err.(*exec.ExitError)
	if !ok {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM
}

// close ends the windows' processes, as quitting mcptray ends its
// windows, and waits up to closeGrace for them. A tray app that dies
// instead (a crash, kill -9) leaves them open: they wait for the next
// one (app/remote).
func (c *children) close() {
	for _, ch := range c.live {
		if err := ch.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			ch.cmd.Process.Kill() // Windows has no SIGTERM for another process
		}
	}
	deadline := time.Now().Add(closeGrace)
	for kind, ch := range c.live {
		select {
		case <-ch.done:
		case <-time.After(time.Until(deadline)):
			ch.cmd.Process.Kill()
		}
		delete(c.live, kind)
	}
}

// releaseQuiet is how long after the last window's process ended the tray
// app hands back the memory serving it used (RunOptions.Release): the
// requests of its last moments are over by then.
const releaseQuiet = 2 * time.Second

// closeGrace is how long quitting waits for the windows to close.
const closeGrace = 3 * time.Second
