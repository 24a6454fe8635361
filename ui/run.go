package ui

import (
	"context"
	"net/url"
	"os"
	"sync"
	"time"

	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/storage"

	"github.com/mcptray/mcptray/app"
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
// (the core's event notifications; nil for none) and one a clock, each
// applying through onMain; they are stopped before Run returns. Inbox
// requests pop up in a small window of their own. When ctx ends (SIGTERM,
// a logout) the app quits as from the tray's Quit — even before Fyne's own
// signal handler is installed.
func Run(ctx context.Context, c Core, notes *Notifier, ssh SSHAliases) error {
	mainGoroutine.Store(goroutineID())
	a := fyneapp.NewWithID(AppID)
	a.SetIcon(assets.Icon)
	exe, _ := os.Executable()
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

	// The followers; every way to quit ends them as it begins, so nothing
	// keeps being read once the app is going. What makes late updates safe
	// is onMain, though: a SIGTERM reaches Fyne's own handler and ctx at
	// once, and Fyne's loop may end before stopAll has stopped them all
	// (the servers tab's log follower, stopped by d.close, runs until
	// Run returns).
	var (
		stopMu   sync.Mutex
		stops    []func() // guarded by stopMu
		stopping bool     // guarded by stopMu
	)
	addStop := func(stop func()) {
		stopMu.Lock()
		if stopping {
			stopMu.Unlock()
			stop()
			return
		}
		stops = append(stops, stop)
		stopMu.Unlock()
	}
	stopAll := func() { // from any goroutine
		stopMu.Lock()
		stopping = true
		list := stops
		stops = nil
		stopMu.Unlock()
		for _, stop := range list {
			stop()
		}
	}
	quit := func() {
		stopAll()
		a.Quit()
	}
	stopOnDone := context.AfterFunc(ctx, func() {
		stopAll()
		onMain(quit)
	})
	defer stopOnDone()
	a.Lifecycle().SetOnStopped(stopAll) // however else Fyne's loop ends
	d := newDesktop(a, c, desktopOptions{
		env: screenEnv{
			clipboard: a.Clipboard(),
			exe:       exe,
			now:       time.Now,
			notify:    notifier{app: a},
			autostart: auto,
			ssh:       ssh,
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

	// Subscribe before reading the status, so no change falls in between.
	updates, cancel := c.Subscribe()
	defer cancel()
	d.apply(c.Status())
	addStop(follow(updates, d.apply))
	inbox, cancelInbox := c.SubscribeInbox()
	defer cancelInbox()
	addStop(follow(inbox, d.applyInbox))
	events, cancelEvents := c.SubscribeEvents()
	defer cancelEvents()
	d.applyEvents(loadEvents(c))
	addStop(followLoad(events, func() eventsList { return loadEvents(c) }, d.applyEvents))
	if notes != nil {
		addStop(follow(notes.ch, func(n app.Notification) { d.notify.notify(n.Title, n.Body) }))
	}
	clock := time.NewTicker(time.Second)
	defer clock.Stop()
	addStop(follow(clock.C, func(time.Time) { d.tick() }))
	defer stopAll()

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
