package ui

import (
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	fynedesktop "fyne.io/fyne/v2/driver/desktop"

	"github.com/mcptray/mcptray/app"
)

// desktop is the whole UI of one run: the main window and its screens, and
// the tray when there is one. Main goroutine only.
type desktop struct {
	app       fyne.App
	win       fyne.Window
	main      *mainScreen
	tray      *tray // nil without a tray
	popup     *popup
	pending   []app.InboxRequest // waiting inbox requests, oldest first
	now       func() time.Time
	notify    notifier
	visible   bool   // the window is shown
	configErr string // the config error last shown
}

// desktopOptions are the parts of a desktop that Run takes from the OS and
// tests replace.
type desktopOptions struct {
	env    screenEnv // onError is set by newDesktop
	host   trayHost  // nil: no tray
	noTray string    // why there is no tray, shown in the window
	quit   func()    // ends the app
}

func newDesktop(a fyne.App, c Core, o desktopOptions) *desktop {
	d := &desktop{app: a, win: a.NewWindow("mcptray"), notify: o.env.notify, now: o.env.now}
	o.env.core = c
	o.env.onError = d.showError
	o.env.requestDone = d.answered
	d.popup = newPopup(a, o.env.now, c.Answer, d.answered)
	d.main = newMainScreen(o.env, o.noTray)
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
	if o.host != nil {
		d.tray = newTray(o.host, c, d.open, o.quit, d.showError)
	}
	return d
}

// apply shows st everywhere. A new config error is also a desktop
// notification: the person may not have the window open.
func (d *desktop) apply(st app.Status) {
	d.main.apply(st)
	if d.tray != nil {
		d.tray.setStatus(st)
	}
	if st.ConfigError != d.configErr {
		d.configErr = st.ConfigError
		if st.ConfigError != "" {
			d.notify.notify("mcptray: mcp.json has an error", st.ConfigError+"\nThe last good config keeps running.")
		}
	}
}

// applyInbox shows an inbox event: a new request pops up (and is a
// desktop notification) and waits in the Inbox tab; a closed one leaves
// both and is listed among the outcomes.
func (d *desktop) applyInbox(ev app.InboxEvent) {
	req := ev.Request
	switch ev.Kind {
	case app.InboxAdded:
		if slices.ContainsFunc(d.pending, func(r app.InboxRequest) bool { return r.ID == req.ID }) {
			return
		}
		d.pending = append(d.pending, req)
		d.popup.add(req)
		d.main.inbox.add(req)
		d.notify.notify(requestNotice(req))
	case app.InboxClosed:
		d.drop(req.ID)
		d.main.inbox.closed(outcome{req: req, outcome: ev.Outcome, by: ev.By, at: d.now()})
	case app.InboxCompleted:
		d.main.inbox.closed(outcome{req: req, outcome: "completed", by: ev.By, at: d.now()})
	}
	d.showInboxCount()
}

// applyEvents shows the events and counts the unread ones in the tray.
func (d *desktop) applyEvents(l eventsList) {
	d.main.events.set(l)
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
	d.pending = slices.DeleteFunc(d.pending, func(r app.InboxRequest) bool { return r.ID == id })
	d.popup.remove(id)
	d.main.inbox.remove(id)
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

// open shows the main window on tab.
func (d *desktop) open(tab string) {
	d.main.show(tab)
	d.show()
}

func (d *desktop) show() {
	d.visible = true
	d.win.Show()
	d.win.RequestFocus()
}

func (d *desktop) hide() {
	d.visible = false
	d.win.Hide()
}

// showError shows err in the main window, opening it if hidden.
func (d *desktop) showError(err error) {
	d.show()
	dialog.ShowError(err, d.win)
}

// tick refreshes what changes with time alone, while the window is shown.
func (d *desktop) tick() {
	if d.visible {
		d.main.tick()
	}
	d.popup.tick()
}

// close stops what the screens follow (after the app quit).
func (d *desktop) close() { d.main.close() }
