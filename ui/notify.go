package ui

import (
	"os"
	"path/filepath"
	"time"
	"unicode"

	"fyne.io/fyne/v2"

	"github.com/mcptray/mcptray/app/inbox"
)

// prefNotifications is the preference (Fyne's, per user) that turns desktop
// notifications on and off; on by default.
const prefNotifications = "notifications"

// How long notifications stay on screen. An event's goes after infoExpire.
// One that asks for something stays until that is done, and is then taken
// off the screen: an inbox request's when the request closes (answered
// anywhere, timed out or withdrawn), the config error's when mcp.json
// parses again (a config error is a state, and the notification says it
// for as long as it lasts). The notification daemon may shorten or ignore
// these; the person's settings there win.
const (
	infoExpire     = 10 * time.Second
	untilWithdrawn = 0
)

// Keys of the notifications that are withdrawn (see notice.key).
const (
	keyConfigError = "config-error"
	keyRequestPre  = "inbox/" // + the request's id
)

// notice is one desktop notification.
type notice struct {
	// key names a notification that can be withdrawn or replaced: one
	// posted with the key of one still shown replaces it. "" for one that
	// only expires.
	key         string
	title, body string
	expire      time.Duration // 0: until withdrawn or dismissed
}

// notificationService sends notices that expire and can be withdrawn: on Linux
// over org.freedesktop.Notifications (notify_linux.go). Its methods never
// block and may be called from any goroutine.
type notificationService interface {
	post(notice)
	withdraw(key string)
	// close withdraws every notice still shown by key, and stops.
	close()
}

// notifier sends desktop notifications, unless the person turned them off
// in Settings: through bus when there is one, else through Fyne's
// SendNotification (where they neither expire nor can be withdrawn).
// Copies share bus.
type notifier struct {
	app   fyne.App
	bus   notificationService // nil: Fyne's
	quiet bool                // posts nothing: the window's process, where the tray app posts
}

// enabled reports whether notifications are on.
func (n notifier) enabled() bool {
	return n.app.Preferences().BoolWithFallback(prefNotifications, true)
}

// setEnabled turns notifications on or off.
func (n notifier) setEnabled(on bool) {
	n.app.Preferences().SetBool(prefNotifications, on)
}

// notify shows title and body for infoExpire, when notifications are on.
func (n notifier) notify(title, body string) {
	n.post(notice{title: title, body: body, expire: infoExpire})
}

// post shows x, when notifications are on.
func (n notifier) post(x notice) {
	if n.quiet || !n.enabled() {
		return
	}
	if n.bus != nil {
		n.bus.post(x)
		return
	}
	n.app.SendNotification(fyne.NewNotification(x.title, x.body))
}

// withdraw takes the notice posted with key off the screen, if it is
// still there (also when notifications were turned off since).
func (n notifier) withdraw(key string) {
	if n.bus != nil {
		n.bus.withdraw(key)
	}
}

// requestNotice is the notification for a new inbox request: "ssh needs
// your sudo password", with the server's message as the body. It stays
// until the request closes.
func requestNotice(req inbox.Request) notice {
	var title string
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
	return notice{key: keyRequestPre + req.ID, title: title, body: req.Message, expire: untilWithdrawn}
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

// cachedIcon writes the app's icon where Fyne keeps it for its own
// notifications (the user cache dir, fyne/<app ID>/icon.png) and returns
// its path; "" when there is none.
func cachedIcon(a fyne.App) string {
	icon := a.Icon()
	cache, err := os.UserCacheDir()
	if icon == nil || err != nil {
		return ""
	}
	dir := filepath.Join(cache, "fyne", a.UniqueID())
	path := filepath.Join(dir, "icon.png")
	if os.MkdirAll(dir, 0o700) != nil || os.WriteFile(path, icon.Content(), 0o600) != nil {
		return ""
	}
	return path
}
