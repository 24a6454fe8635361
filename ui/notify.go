package ui

import "fyne.io/fyne/v2"

// prefNotifications is the preference (Fyne's, per user) that turns desktop
// notifications on and off; on by default.
const prefNotifications = "notifications"

// notifier sends desktop notifications through Fyne (D-Bus
// org.freedesktop.Notifications on Linux), unless the person turned them
// off in Settings.
type notifier struct{ app fyne.App }

// enabled reports whether notifications are on.
func (n notifier) enabled() bool {
	return n.app.Preferences().BoolWithFallback(prefNotifications, true)
}

// setEnabled turns notifications on or off.
func (n notifier) setEnabled(on bool) {
	n.app.Preferences().SetBool(prefNotifications, on)
}

// notify shows title and body, when notifications are on.
func (n notifier) notify(title, body string) {
	if n.enabled() {
		n.app.SendNotification(fyne.NewNotification(title, body))
	}
}
