package ui

import (
	"context"
	"errors"
	"net/url"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/storage"

	"github.com/mcptray/mcptray/app/assistants"
	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/remote"
	"github.com/mcptray/mcptray/assets"
)

// AppID is the Fyne application ID (preferences and storage are kept under it).
const AppID = "io.github.mcptray"

// RunOptions are what the tray app's Run takes besides its core.
type RunOptions struct {
	// Notes are the core's event notifications (nil for none).
	Notes *Notifier
	// Children starts the main window and the popup as processes of
	// their own (ExecChildren), so that this process never builds a
	// window; nil builds them here, with SSH for the SSH tab.
	Children ChildCommand
	// Raise brings the open window of kind to the front on tab (the
	// core's window registry, app.Core.RaiseWindow); false: none is open.
	Raise func(kind, tab string) bool
	// Own tells the core's peer check that pid is a window process the
	// tray app started (app.Core.OwnWindowProcess): it answers requests
	// for the person, as the CLI does; forget once it has ended.
	Own func(pid int) (forget func())
	// Release, when set, hands back the memory serving a window's
	// process used (cli.ReleaseMemory), releaseQuiet after it ended; it
	// runs off the main goroutine.
	Release func()
	SSH     SSHAliases
}

// Run is the tray app: it builds the Fyne app and its tray, and blocks
// until the app quits, then returns nil. It must be called on the main
// goroutine (the OS main thread).
//
// With a tray (a session D-Bus is reachable), the app starts quietly in the
// tray; Quit in the tray menu quits. Without a tray, or with no tray host
// on the bus to show it, the window opens at once and says why, and
// closing it quits. The window and the popup are processes of their own
// (o.Children, children.go), ended when the app quits. One goroutine
// follows c.Subscribe, one c.SubscribeInbox, one c.SubscribeEvents, one
// the notes and one a clock (stopped while no window is shown), each
// applying through onMain; they are stopped before Run returns. While no
// window is shown, Fyne's loop dozes (doze.go). When ctx ends (SIGTERM, a
// logout) the app quits as from the tray's Quit — even before Fyne's own
// signal handler is installed.
func Run(ctx context.Context, c Core, o RunOptions) error {
	a, quit, done := startFyne(ctx, true)
	defer done()
	defer startDozing()() // once the app is there: its goroutine queues work for Fyne
	host, noTray := systemTray(a)
	if host != nil {
		defer host.close()
	}
	hostAtStart := host != nil && trayHostRunning()
	trayNow := func() string { // why there is no tray now, "" when there is one
		switch {
		case host == nil:
			return noTray
		case !trayHostRunning():
			return "No tray icon yet: nothing on this desktop shows tray icons (no panel owns " +
				"org.kde.StatusNotifierWatcher; on GNOME the AppIndicator extension adds one). " +
				"Closing this window quits mcptray."
		}
		return ""
	}
	// Closing the window quits when no tray would bring it back.
	closeWindow := func() {
		if trayNow() != "" {
			quit()
		}
	}
	notify := notifier{app: a, bus: systemNotifications(a)}
	if notify.bus != nil {
		defer notify.bus.close() // after the followers have stopped: withdraws what is still shown
	}
	opts := desktopOptions{env: screens(a, notify, o.SSH), host: host, noTray: trayNow(), quit: quit}
	var d *desktop
	if o.Children != nil {
		kids := newChildren(o, trayNow, closeWindow, func() bool { return len(d.pending) > 0 })
		defer kids.close() // once the app has quit: its windows go with it
		opts.windows = kids
	}
	d = newDesktop(a, c, opts)
	if o.Children == nil { // the window is built here: closing it hides it while a tray can show it again
		d.opts.onClose = func() {
			if trayNow() == "" {
				d.hide()
				return
			}
			quit()
		}
	}
	defer d.close()
	defer followCore(d, c, o.Notes)()
	if !hostAtStart {
		d.open("")
	}
	a.Run()
	return nil
}

// WindowCore is the core as the window's and the popup's processes have
// it (app/remote): besides Core, it keeps this process's window known to
// the tray app, which signals it when the person asks for a window of
// that kind (raise, on a tab) and when mcptray quits (close).
type WindowCore interface {
	Core
	HoldWindow(kind string) (signals <-chan control.WindowSignal, cancel func())
}

var _ WindowCore = (*remote.Core)(nil)

// WindowOptions are what RunWindow takes besides its core.
type WindowOptions struct {
	Tab         string     // the tab to open on ("" for the first)
	NeedAccount string     // gcal or gmail turned on with no Google account: opens the Google tab for it
	NoTray      string     // why there is no tray: said in the window, whose closing quits mcptray
	SSH         SSHAliases // the SSH tab's
}

// RunWindow is `mcptray window`: the main window alone, over the tray
// app's core, until the person closes it or ctx ends. It must be called
// on the main goroutine. It posts no notification (the tray app does)
// and shows requests in its Inbox tab only (the popup is a process of
// its own).
func RunWindow(ctx context.Context, c WindowCore, o WindowOptions) error {
	a, quit, done := startFyne(ctx, true)
	defer done()
	notify := notifier{app: a, quiet: true}
	d := newDesktop(a, c, desktopOptions{env: screens(a, notify, o.SSH), noTray: o.NoTray, quit: quit,
		noPopup: true, onClose: quit})
	defer d.close()
	defer followCore(d, c, nil)()
	signals, cancel := c.HoldWindow(control.WindowMain)
	defer cancel()
	defer follow(signals, func(s control.WindowSignal) {
		if s.Quit {
			quit()
			return
		}
		d.open(s.Tab)
	})()
	if o.NeedAccount != "" {
		d.needGoogle(o.NeedAccount)
	} else {
		d.open(o.Tab)
	}
	a.Run()
	return nil
}

// RunPopup is `mcptray popup`: the popup alone, over the tray app's
// core, showing the waiting requests oldest first, until none is left or
// ctx ends. Closed by hand it hides, and a new request shows it again
// (the requests it leaves wait in the Inbox tab). It returns
// ErrNothingShown when it ended without a request to show. It must be
// called on the main goroutine.
func RunPopup(ctx context.Context, c WindowCore) error {
	a, quit, done := startFyne(ctx, false)
	defer done()
	var p *popup
	p = newPopup(a, time.Now, c.Answer, func(id string) { p.remove(id) })
	shown := false
	p.onShow = func() { shown = true }
	p.onEmpty = quit
	updates, cancel := c.SubscribeInbox()
	defer cancel()
	defer follow(updates, func(ev inbox.Event) {
		switch ev.Kind {
		case inbox.Added:
			p.add(ev.Request)
		default:
			p.remove(ev.Request.ID)
		}
	})()
	signals, cancelHold := c.HoldWindow(control.WindowPopup)
	defer cancelHold()
	defer follow(signals, func(s control.WindowSignal) {
		if s.Quit {
			quit()
			return
		}
		p.raise()
	})()
	clock := time.NewTicker(time.Second)
	defer clock.Stop()
	defer follow(clock.C, func(time.Time) { p.tick() })()
	// Started for a request answered meanwhile: nothing to show.
	idle := time.AfterFunc(popupIdle, func() {
		onMain(func() {
			if len(p.queue) == 0 {
				quit()
			}
		})
	})
	defer idle.Stop()
	a.Run()
	if !shown {
		return ErrNothingShown
	}
	return nil
}

// ErrNothingShown is RunPopup's error when every request it was started
// for closed before it could show one.
var ErrNothingShown = errors.New("no request to show: answered meanwhile")

// popupIdle is how long a popup with nothing to show waits for a request
// before it ends.
const popupIdle = 5 * time.Second

// startFyne makes the Fyne app of this process (with its preferences:
// prefs), and quit, which ends it: as from the tray's Quit, and when ctx
// ends (even before Fyne's loop runs: onMainLast then queues the quit for
// it). Quitting closes the loop gate first (mainthread.go): nothing of
// ours is queued for the main goroutine after it. done stops watching
// ctx.
func startFyne(ctx context.Context, prefs bool) (a fyne.App, quit func(), done func()) {
	mainGoroutine.Store(goroutineID())
	openLoopGate()
	if prefs {
		a = fyneapp.NewWithID(AppID)
	} else {
		// Fyne rewrites an app's preferences file whenever the app ends,
		// from what it read at its start: a process that needs none keeps
		// out of it (another may write it at that moment).
		a = fyneapp.New()
	}
	a.SetIcon(assets.Icon)
	quit = func() {
		closeLoopGate()
		endDozing() // Fyne's loop must be awake to see the quit
		a.Quit()
	}
	stop := context.AfterFunc(ctx, func() { onMainLast(quit) })
	return a, quit, func() { stop() }
}

// screens is what the window's screens take from the OS.
func screens(a fyne.App, notify notifier, ssh SSHAliases) screenEnv {
	// The Assistants tab's snippets and the autostart entry name an
	// installed mcptray over a build in a checkout
	// (assistants.InstalledExecutable).
	exe, _ := assistants.InstalledExecutable()
	auto, err := defaultAutostart(exe)
	if err != nil {
		auto = nil
	}
	return screenEnv{
		clipboard:  a.Clipboard(),
		exe:        exe,
		now:        time.Now,
		notify:     notify,
		autostart:  auto,
		ssh:        ssh,
		openURL:    func(u *url.URL) { a.OpenURL(u) },
		background: func(f func()) { go f() },
		openConfig: func(path string) {
			if u, err := url.Parse(storage.NewFileURI(path).String()); err == nil {
				a.OpenURL(u)
			}
		},
	}
}

// followCore shows the core's changes in d until stop: one goroutine
// follows c.Subscribe, one c.SubscribeInbox, one c.SubscribeEvents, one
// notes (nil for none) and one a clock, each applying through onMain.
// An update that arrives while the app quits is dropped: onMain queues
// nothing once the app has begun to quit, and drops what runs once
// Fyne's loop has ended (a SIGTERM reaches Fyne's own handler and ctx at
// once, so the loop may end either way).
func followCore(d *desktop, c Core, notes *Notifier) (stop func()) {
	var stops []func()
	// Subscribe before reading the status, so no change falls in between.
	updates, cancel := c.Subscribe()
	d.apply(c.Status())
	stops = append(stops, follow(updates, d.apply), cancel)
	requests, cancelInbox := c.SubscribeInbox()
	stops = append(stops, follow(requests, d.applyInbox), cancelInbox)
	eventChanges, cancelEvents := c.SubscribeEvents()
	d.applyEvents(loadEvents(c))
	stops = append(stops, followLoad(eventChanges, func() eventsList { return loadEvents(c) }, d.applyEvents), cancelEvents)
	if notes != nil {
		stops = append(stops, follow(notes.ch, func(n events.Notification) { d.notify.notify(n.Title, n.Body) }))
	}
	clock := time.NewTicker(time.Second)
	tickWhileShown(clock, time.Second)
	stops = append(stops, follow(clock.C, func(time.Time) { d.tick() }), clock.Stop)
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}
