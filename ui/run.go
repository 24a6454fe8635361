package ui

import (
	"context"
	"net/url"
	"time"

	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/storage"

	"github.com/mcptray/mcptray/app/assistants"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/assets"
)

// AppID is the Fyne application ID (preferences and storage are kept under it).
const AppID = "io.github.mcptray"

// Run builds the Fyne app, its tray and its main window, and blocks until
// the app quits, then returns nil. It must be called on the main goroutine
// (the OS main thread).
//
// With a tray (a session D-Bus is reachable), the app starts quietly in the
// tray, and closing the window only hides it; Quit in the tray menu quits.
// Without a tray, or with no tray host on the bus to show it, the window
// opens at once and says why, and closing it quits. One goroutine follows
// c.Subscribe, one c.SubscribeInbox, one c.SubscribeEvents, one notes
// (the core's event notifications; nil for none) and one a clock (stopped
// while no window is shown), each applying through onMain; they are
// stopped before Run returns. While no window is shown, Fyne's loop dozes
// (doze.go). Inbox requests pop up in a small window of their own. When
// ctx ends (SIGTERM, a logout) the app quits as from the tray's Quit —
// even before Fyne's own signal handler is installed.
func Run(ctx context.Context, c Core, notes *Notifier, ssh SSHAliases) error {
	mainGoroutine.Store(goroutineID())
	openLoopGate()
	a := fyneapp.NewWithID(AppID)
	defer startDozing()() // once the app is there: its goroutine queues work for Fyne
	a.SetIcon(assets.Icon)
	// The Assistants tab's snippets and the autostart entry name an installed
	// mcptray over a build in a checkout (assistants.InstalledExecutable).
	exe, _ := assistants.InstalledExecutable()
	auto, err := defaultAutostart(exe)
	if err != nil {
		auto = nil
	}
	host, noTray := systemTray(a)
	if host != nil {
		defer host.close()
	}
	hostAtStart := host != nil && trayHostRunning()
	if host != nil && !hostAtStart {
		noTray = "No tray icon yet: nothing on this desktop shows tray icons (no panel owns " +
			"org.kde.StatusNotifierWatcher; on GNOME the AppIndicator extension adds one). " +
			"Closing this window quits mcptray."
	}

	// When ctx ends the app quits as from the tray's Quit, even before
	// Fyne's loop runs (onMainLast then queues the quit for it). Quitting
	// closes the loop gate first (mainthread.go): nothing of ours is
	// queued for the main goroutine after it.
	quit := func() {
		closeLoopGate()
		endDozing() // Fyne's loop must be awake to see the quit
		a.Quit()
	}
	defer context.AfterFunc(ctx, func() { onMainLast(quit) })()
	notify := notifier{app: a, bus: systemNotifications(a)}
	if notify.bus != nil {
		defer notify.bus.close() // after the followers have stopped: withdraws what is still shown
	}
	d := newDesktop(a, c, desktopOptions{
		env: screenEnv{
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
		},
		host:   host,
		noTray: noTray,
		quit:   quit,
	})
	defer d.close()

	// The followers, stopped when Run returns. An update that arrives while
	// the app quits is dropped: onMain queues nothing once the app has
	// begun to quit, and drops what runs once Fyne's loop has ended (a
	// SIGTERM reaches Fyne's own handler and ctx at once, so the loop may
	// end either way).
	var stops []func()
	// Subscribe before reading the status, so no change falls in between.
	updates, cancel := c.Subscribe()
	defer cancel()
	d.apply(c.Status())
	stops = append(stops, follow(updates, d.apply))
	inbox, cancelInbox := c.SubscribeInbox()
	defer cancelInbox()
	stops = append(stops, follow(inbox, d.applyInbox))
	eventChanges, cancelEvents := c.SubscribeEvents()
	defer cancelEvents()
	d.applyEvents(loadEvents(c))
	stops = append(stops, followLoad(eventChanges, func() eventsList { return loadEvents(c) }, d.applyEvents))
	if notes != nil {
		stops = append(stops, follow(notes.ch, func(n events.Notification) { d.notify.notify(n.Title, n.Body) }))
	}
	clock := time.NewTicker(time.Second)
	defer clock.Stop()
	tickWhileShown(clock, time.Second)
	stops = append(stops, follow(clock.C, func(time.Time) { d.tick() }))
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()

	d.win.SetCloseIntercept(func() {
		if host != nil && trayHostRunning() {
			d.hide()
			return
		}
		quit()
	})
	if !hostAtStart {
		d.show()
	}
	a.Run()
	return nil
}
