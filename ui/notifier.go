package ui

import "github.com/mcptray/mcptray/app/events"

// Notifier is the tray app's notifier of events (events.Notifier): give it to
// app.New as Options.Notifier and to Run, which shows each notification
// through Fyne unless the person turned notifications off. Notify never
// blocks: with 64 notifications not yet shown, more are dropped (the
// events themselves are stored).
type Notifier struct {
	ch chan events.Notification // to Run's follower
}

// NewNotifier makes a Notifier for Run.
func NewNotifier() *Notifier { return &Notifier{ch: make(chan events.Notification, 64)} }

// Notify queues n; the core calls it from a goroutine of its own.
func (n *Notifier) Notify(x events.Notification) {
	select {
	case n.ch <- x:
	default:
	}
}
