package ui

import (
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	fynedesktop "fyne.io/fyne/v2/driver/desktop"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
)

// desktop is the whole UI of one run: the main window and its screens, and
// the tray when there is one. Main goroutine only.
type desktop struct {
	app       fyne.App
	win       fyne.Window // nil until the window first opens: see screen
	main      *mainScreen // nil until the window first opens: see screen
	opts      desktopOptions
	tray      *tray // nil without a tray
	popup     *popup
	pending   []inbox.Request // waiting inbox requests, oldest first
	now       func() time.Time
	notify    notifier
	visible   bool   // the window is shown
	configErr string // the config error last shown

	// What the main screen shows, kept for when it is built.
	st       control.Status
	events   eventsList
	outcomes []outcome // closed requests, oldest first, at most maxOutcomes
}

// desktopOptions are the parts of a desktop that Run takes from the OS and
// tests replace.
type desktopOptions struct {
	env    screenEnv // onError is set by newDesktop
	host   trayHost  // nil: no tray
	noTray string    // why there is no tray, shown in the window
	quit   func()    // ends the app

	// windows, in the tray app, opens the main window and the popup as
	// processes of their own (children.go): this process then never
	// builds a window. nil: they are built here (the window's process, and
	// the tests of the screens).
	windows windowOpener
	// noPopup leaves requests to the popup's own process: the window's
	// process shows them in its Inbox tab only.
	noPopup bool
	// onClose is what closing the main window does (nil: hide it).
	onClose func()
}

// windowOpener opens the main window and the popup in processes of their
// own (children.go). Main goroutine only.
type windowOpener interface {
	// openMain shows the main window on tab; need is gcal or gmail turned
	// on with no Google account (see needGoogle), "" for none.
	openMain(tab, need string)
	// openPopup shows the waiting requests in the popup.
	openPopup()
}

func newDesktop(a fyne.App, c Core, o desktopOptions) *desktop {
	d := &desktop{app: a, notify: o.env.notify, now: o.env.now}
	c = googleGate{Core: c, open: d.needGoogle}
	o.env.core = c
	o.env.onError = d.showError
	o.env.window = func() fyne.Window { return d.win }
	o.env.requestDone = d.answered
	d.opts = o
	d.popup = newPopup(a, o.env.now, c.Answer, d.answered)
	if o.host != nil {
		d.tray = newTray(o.host, c, d.open, o.quit, d.showError)
	}
	return d
}

// screen returns the main screen, building it (and the window's content)
// the first time, with everything that happened before. A tray app that
// is never opened never lays out text, so it never loads fonts (≈ 20 MB of
// parsed font tables, twice that resident with the garbage collector's
// headroom): the window is built when the person first wants it.
func (d *desktop) screen() *mainScreen {
	if d.main != nil {
		return d.main
	}
	d.win = d.app.NewWindow("mcptray")
	if d.opts.onClose != nil {
		d.win.SetCloseIntercept(d.opts.onClose)
	} else {
		d.win.SetCloseIntercept(d.hide)
	}
	d.main = newMainScreen(d.opts.env, d.opts.noTray)
	d.win.SetContent(d.main.root)
	d.win.Resize(fyne.NewSize(900, 560))
	// Ctrl+1, Ctrl+2, … (Cmd on macOS) select the tabs in order.
	keys := []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5, fyne.Key6, fyne.Key7, fyne.Key8, fyne.Key9}
	for i, tab := range d.main.tabs.Items {
		if i < len(keys) {
			name := tab.Text
			d.win.Canvas().AddShortcut(&fynedesktop.CustomShortcut{KeyName: keys[i], Modifier: fyne.KeyModifierShortcutDefault},
				func(fyne.Shortcut) { d.main.show(name) })
		}
	}
	d.main.apply(d.st)
	d.main.events.set(d.events)
	for _, oc := range d.outcomes {
		d.main.inbox.closed(oc)
	}
	for _, req := range d.pending {
		d.main.inbox.add(req)
	}
	return d.main
}

// apply shows st everywhere. A new config error is also a desktop
// notification (the person may not have the window open), withdrawn when
// the config parses again.
func (d *desktop) apply(st control.Status) {
	d.st = st
	if d.main != nil {
		d.main.apply(st)
	}
	if d.tray != nil {
		d.tray.setStatus(st)
	}
	if st.ConfigError != d.configErr {
		d.configErr = st.ConfigError
		if st.ConfigError != "" {
			d.notify.post(notice{key: keyConfigError, title: "mcptray: mcp.json has an error",
				body: st.ConfigError + "\nThe last good config keeps running.", expire: untilWithdrawn})
		} else {
			d.notify.withdraw(keyConfigError) // it parses again
		}
	}
}

// applyInbox shows an inbox event: a new request pops up (and is a
// desktop notification) and waits in the Inbox tab; a closed one leaves
// all three and is listed among the outcomes.
func (d *desktop) applyInbox(ev inbox.Event) {
	req := ev.Request
	switch ev.Kind {
	case inbox.Added:
		if slices.ContainsFunc(d.pending, func(r inbox.Request) bool { return r.ID == req.ID }) {
			return
		}
		d.pending = append(d.pending, req)
		switch {
		case d.opts.windows != nil:
			d.opts.windows.openPopup()
		case !d.opts.noPopup:
			d.popup.add(req)
		}
		if d.main != nil {
			d.main.inbox.add(req)
		}
		d.notify.post(requestNotice(req))
	case inbox.Closed:
		d.drop(req.ID)
		d.closed(outcome{req: req, outcome: ev.Outcome, by: ev.By, at: d.now()})
	case inbox.Completed:
		d.closed(outcome{req: req, outcome: "completed", by: ev.By, at: d.now()})
	}
	d.showInboxCount()
}

// closed lists a closed request among the Inbox tab's outcomes.
func (d *desktop) closed(oc outcome) {
	d.outcomes = append(d.outcomes, oc)
	if len(d.outcomes) > maxOutcomes {
		d.outcomes = slices.Delete(d.outcomes, 0, len(d.outcomes)-maxOutcomes)
	}
	if d.main != nil {
		d.main.inbox.closed(oc)
	}
}

// applyEvents shows the events and counts the unread ones in the tray.
func (d *desktop) applyEvents(l eventsList) {
	d.events = l
	if d.main != nil {
		d.main.events.set(l)
	}
	if d.tray != nil {
		d.tray.setUnread(l.unread)
	}
}

// answered takes a request the person just answered off every screen.
func (d *desktop) answered(id string) {
	d.drop(id)
	d.showInboxCount()
}

func (d *desktop) drop(id string) {
	d.notify.withdraw(keyRequestPre + id)
	d.pending = slices.DeleteFunc(d.pending, func(r inbox.Request) bool { return r.ID == id })
	d.popup.remove(id)
	if d.main != nil {
		d.main.inbox.remove(id)
	}
}

// showInboxCount gives the tray the waiting requests per server.
func (d *desktop) showInboxCount() {
	if d.tray == nil {
		return
	}
	per := map[string]int{}
	for _, r := range d.pending {
		per[r.Server]++
	}
	d.tray.setInbox(per)
}

// needGoogle is gcal or gmail (name) turned on with no Google account: the
// window opens on the Google tab, which turns it on once an account is
// added, and the Servers tab's check goes back to off.
func (d *desktop) needGoogle(name string) {
	if d.opts.windows != nil {
		d.opts.windows.openMain(tabGoogle, name)
		return
	}
	m := d.screen()
	m.google.needAccount(name)
	m.servers.setServers(d.st.Servers)
	d.open(tabGoogle)
}

// open shows the main window on tab.
func (d *desktop) open(tab string) {
	if d.opts.windows != nil {
		d.opts.windows.openMain(tab, "")
		return
	}
	d.screen().show(tab)
	d.show()
}

func (d *desktop) show() {
	d.screen()
	d.visible = true
	showWindow(d.win)
	d.win.RequestFocus()
}

func (d *desktop) hide() {
	d.visible = false
	if d.win != nil {
		hideWindow(d.win)
	}
}

// showError shows err in the main window, opening it if hidden; in the
// tray app, whose window is another process, as a notification.
func (d *desktop) showError(err error) {
	if d.opts.windows != nil {
		d.notify.post(notice{title: "mcptray", body: err.Error(), expire: infoExpire})
		return
	}
	d.show()
	dialog.ShowError(err, d.win)
}

// tick refreshes what changes with time alone, while the window is shown.
func (d *desktop) tick() {
	if d.visible {
		d.screen().tick()
	}
	d.popup.tick()
}

// close stops what the screens follow (after the app quit).
func (d *desktop) close() {
	if d.main != nil {
		d.main.close()
	}
}
