package ui

import (
	"unicode"

	"fyne.io/fyne/v2"

	"github.com/mcptray/mcptray/app"
)

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

// requestNotice is the notification for a new inbox request: "ssh needs
// your sudo password", with the server's message as the body.
func requestNotice(req app.InboxRequest) (title, body string) {
	switch {
	case req.Mode == "url":
		title = req.Server + " asks you to open " + req.Host
	case req.Confirm:
		title = req.Server + " asks you to confirm"
	case len(req.Fields) == 1:
		title = req.Server + " needs your " + lowerFirst(req.Fields[0].Label())
	default:
		title = req.Server + " needs your input"
	}
	return title, req.Message
}

// lowerFirst lowers the first letter of a word that is not an acronym
// ("Sudo password" → "sudo password", "SSH key" stays).
func lowerFirst(s string) string {
	r := []rune(s)
	if len(r) > 1 && unicode.IsUpper(r[1]) {
		return s
	}
	if len(r) > 0 {
		r[0] = unicode.ToLower(r[0])
	}
	return string(r)
}
