package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/assets"
)

// trayHost is where the tray menu and icon go: the system tray
// (systray_linux.go, systray_other.go), a recorder in tests.
type trayHost interface {
	setMenu(trayMenu)
	setIcon(fyne.Resource)
}

// systemTrayHost is the real tray: a trayHost that is closed when the app
// ends. systemTray (trayhost_linux.go, trayhost_other.go) makes it.
type systemTrayHost interface {
	trayHost
	close()
}

// trayMenu is the tray's menu: Fyne's menu model, plus which items are
// checkboxes, checked or not (Fyne's model only knows checked items, so
// an unchecked checkbox would look like a plain item).
type trayMenu struct {
	*fyne.Menu
	checkbox map[*fyne.MenuItem]bool
}

// tray keeps the tray menu and icon in step with the core: a summary
// header, one checkbox item per server (clicking it toggles the server),
// then Inbox, Events, Open and Quit. Main goroutine only.
type tray struct {
	host    trayHost
	core    Core
	open    func(tab string) // shows the main window on a tab
	quit    func()
	onError func(error) // shows a failed toggle to the person

	st      control.Status
	waiting map[string]int // pending inbox requests per server
	pending int            // pending inbox requests in all
	unread  int            // events not yet read

	shown string        // the menu last set, as text: identical menus are not set again
	icon  fyne.Resource // the icon last set
}

func newTray(host trayHost, c Core, open func(tab string), quit func(), onError func(error)) *tray {
	return &tray{host: host, core: c, open: open, quit: quit, onError: onError}
}

// setStatus shows st.
func (t *tray) setStatus(st control.Status) {
	t.st = st
	t.refresh()
}

// setInbox shows the pending inbox requests, counted per server.
func (t *tray) setInbox(perServer map[string]int) {
	t.waiting = perServer
	t.pending = 0
	for _, n := range perServer {
		t.pending += n
	}
	t.refresh()
}

// setUnread shows how many events are not read yet.
func (t *tray) setUnread(n int) {
	t.unread = n
	t.refresh()
}

// refresh sets the menu and the icon, when they changed.
func (t *tray) refresh() {
	// The icon first: the tray item registers with it (systray_linux.go).
	if icon := trayIcon(t.st, t.pending); icon != t.icon {
		t.icon = icon
		t.host.setIcon(icon)
	}
	menu := t.menu()
	if text := menuText(menu); text != t.shown {
		t.shown = text
		t.host.setMenu(menu)
	}
}

func (t *tray) menu() trayMenu {
	header := fyne.NewMenuItem(summary(t.st, t.waiting), nil)
	header.Disabled = true
	items := []*fyne.MenuItem{header, fyne.NewMenuItemSeparator()}
	checkbox := map[*fyne.MenuItem]bool{}
	for _, s := range t.st.Servers {
		name, on := s.Name, s.Enabled
		click := func() { t.toggle(name, !on) }
		if s.State == control.StateNeedsSignIn {
			click = func() { t.askSignIn(name) }
		}
		item := fyne.NewMenuItem(serverLabel(s, t.waiting[s.Name]), click)
		item.Checked = on
		checkbox[item] = true
		items = append(items, item)
	}
	if len(t.st.Servers) > 0 {
		items = append(items, fyne.NewMenuItemSeparator())
	}
	events := "Events…"
	if t.unread > 0 {
		events = fmt.Sprintf("Events (%d new)…", t.unread)
	}
	quit := fyne.NewMenuItem("Quit", t.quit)
	quit.IsQuit = true // so Fyne adds no Quit of its own
	items = append(items,
		fyne.NewMenuItem(fmt.Sprintf("Inbox (%d)…", t.pending), func() { t.open(tabInbox) }),
		fyne.NewMenuItem(events, func() { t.open(tabEvents) }),
		fyne.NewMenuItem("Open mcptray…", func() { t.open(tabServers) }),
		fyne.NewMenuItemSeparator(),
		quit)
	return trayMenu{Menu: fyne.NewMenu("mcptray", items...), checkbox: checkbox}
}

// toggle is a click on a server's item.
func (t *tray) toggle(name string, on bool) {
	if err := t.core.SetEnabled(name, on); err != nil {
		verb := "off"
		if on {
			verb = "on"
		}
		t.onError(fmt.Errorf("turning %s %s: %w", name, verb, err))
	}
}

// askSignIn is a click on a server's "Sign in…" item: the inbox asks
// again (its popup's yes opens the browser).
func (t *tray) askSignIn(name string) {
	if err := t.core.AskSignIn(name); err != nil {
		t.onError(fmt.Errorf("signing in to %s: %w", name, err))
	}
}

// menuText renders a menu as one line per item, for change detection and
// tests: "[x] label" for a checked item, "[ ] label" for an unchecked
// checkbox, "(label)" for a disabled one, "---" for a separator.
func menuText(m trayMenu) string {
	var b strings.Builder
	for _, it := range m.Items {
		switch {
		case it.IsSeparator:
			b.WriteString("---")
		case it.Disabled:
			b.WriteString("(" + it.Label + ")")
		case it.Checked:
			b.WriteString("[x] " + it.Label)
		case m.checkbox[it]:
			b.WriteString("[ ] " + it.Label)
		default:
			b.WriteString(it.Label)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// summary is the tray menu's header: "3 running · 1 error", plus how many
// servers wait for input, start or are off, and a config error.
func summary(st control.Status, waiting map[string]int) string {
	if len(st.Servers) == 0 {
		if st.ConfigError != "" {
			return "No servers · config error"
		}
		return "No servers configured"
	}
	var running, wait, approve, signIn, starting, failed, off int
	for _, s := range st.Servers {
		switch {
		case s.State == control.StateNeedsApproval:
			approve++
		case s.State == control.StateNeedsSignIn:
			signIn++
		case waiting[s.Name] > 0 || s.State == control.StateWaitingInput:
			wait++
		case s.State == control.StateReady:
			running++
		case s.State == control.StateError || s.State == control.StateCrashLoop:
			failed++
		case s.State == control.StateStarting || s.State == control.StateRestarting:
			starting++
		default:
			off++
		}
	}
	parts := []string{fmt.Sprintf("%d running", running)}
	if wait > 0 {
		parts = append(parts, fmt.Sprintf("%d waiting for input", wait))
	}
	if approve > 0 {
		parts = append(parts, fmt.Sprintf("%d waiting for your approval", approve))
	}
	if signIn > 0 {
		parts = append(parts, fmt.Sprintf("%d waiting for you to sign in", signIn))
	}
	if starting > 0 {
		parts = append(parts, fmt.Sprintf("%d starting", starting))
	}
	if failed == 1 {
		parts = append(parts, "1 error")
	} else if failed > 1 {
		parts = append(parts, fmt.Sprintf("%d errors", failed))
	}
	if off > 0 {
		parts = append(parts, fmt.Sprintf("%d off", off))
	}
	if st.ConfigError != "" {
		parts = append(parts, "config error")
	}
	return strings.Join(parts, " · ")
}

// serverLabel is a server's tray item: "ssh — ready", "gmail — error: …",
// "notes — waiting for input".
func serverLabel(s control.ServerStatus, waiting int) string {
	state := s.State
	switch {
	case s.State == control.StateNeedsApproval:
		state = "waiting for your approval"
	case s.State == control.StateNeedsSignIn:
		state = "Sign in…"
	case waiting > 0 && s.Enabled, s.State == control.StateWaitingInput:
		state = "waiting for input"
	case (s.State == control.StateError || s.State == control.StateCrashLoop) && s.Error != "":
		state += ": " + shorten(s.Error, 60)
	}
	return s.Name + " — " + state
}

// shorten returns the first line of s, cut to at most n runes with "…".
func shorten(s string, n int) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + " …"
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// trayIcon is the tray's icon: attention while a request or a new entry
// waits for the person, error while a server or the config is in error,
// else normal.
func trayIcon(st control.Status, pending int) fyne.Resource {
	if pending > 0 {
		return assets.IconAttention
	}
	for _, s := range st.Servers {
		if s.State == control.StateNeedsApproval || s.State == control.StateNeedsSignIn {
			return assets.IconAttention
		}
	}
	if st.ConfigError != "" {
		return assets.IconError
	}
	for _, s := range st.Servers {
		if s.Enabled && (s.State == control.StateError || s.State == control.StateCrashLoop) {
			return assets.IconError
		}
	}
	return assets.Icon
}
