package ui

import (
	"net/url"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/control"
)

// The main window's tabs.
const (
	tabServers    = "Servers"
	tabInbox      = "Inbox"
	tabEvents     = "Events"
	tabSSH        = "SSH"
	tabGoogle     = "Google"
	tabAssistants = "Assistants"
	tabSettings   = "Settings"
)

// tabOrder is the order of the tabs; Ctrl+1… select them in this order.
var tabOrder = []string{tabServers, tabInbox, tabEvents, tabSSH, tabGoogle, tabAssistants, tabSettings}

// screenEnv is what the screens need besides the core: the parts of the
// desktop that tests replace.
type screenEnv struct {
	core       Core
	clipboard  fyne.Clipboard
	exe        string           // this executable, for the Assistants tab's snippets
	now        func() time.Time // the clock
	notify     notifier
	autostart  autostart          // nil when the platform has none
	openConfig func(path string)  // opens the config file in the person's editor
	onError    func(error)        // shows an error to the person
	ssh        SSHAliases         // the SSH server's aliases; nil: not available
	openURL    func(*url.URL)     // opens a web page in the person's browser
	window     func() fyne.Window // the main window, for dialogs
	// requestDone takes an inbox request the person answered off every
	// screen.
	requestDone func(id string)
	// background runs work that may block (the assistants' files, the
	// keyring) off the main goroutine; its result comes back through
	// onMain. Tests run it inline.
	background func(func())
}

// mainScreen is the main window's content: why there is no tray (when
// there is none) and the config-error banner over the tabs. Main goroutine
// only.
type mainScreen struct {
	notice     *fyne.Container // why there is no tray; hidden when there is one
	banner     *configBanner
	tabs       *container.AppTabs
	servers    *serversScreen
	inbox      *inboxScreen
	events     *eventsScreen
	ssh        *sshScreen
	google     *googleScreen
	assistants *assistantsScreen
	settings   *settingsScreen
	offline    *widget.Label // control.Status.Unreachable, hidden when ""
	root       fyne.CanvasObject
}

// newMainScreen builds the window's content; noTray, when not empty, says
// why there is no tray icon.
func newMainScreen(env screenEnv, noTray string) *mainScreen {
	m := &mainScreen{
		banner:     newConfigBanner(env.openConfig),
		servers:    newServersScreen(env.core, env.now, env.window, env.onError),
		inbox:      newInboxScreen(env.now, env.core.Answer, env.requestDone),
		events:     newEventsScreen(env.core, env.now, env.onError),
		ssh:        newSSHScreen(env.ssh, env.window, env.onError),
		google:     newGoogleScreen(env),
		assistants: newAssistantsScreen(env),
		settings:   newSettingsScreen(env.core, env.notify, env.autostart, env.openConfig, env.window, env.onError),
	}
	why := widget.NewLabel(noTray)
	why.Wrapping = fyne.TextWrapWord
	why.Importance = widget.WarningImportance
	m.notice = container.NewBorder(nil, nil, widget.NewIcon(theme.NewWarningThemedResource(theme.WarningIcon())), nil, why)
	if noTray == "" {
		m.notice.Hide()
	}
	tabs := map[string]*container.TabItem{
		tabServers:    container.NewTabItemWithIcon(tabServers, theme.ComputerIcon(), m.servers.root),
		tabInbox:      container.NewTabItemWithIcon(tabInbox, theme.MailComposeIcon(), m.inbox.root),
		tabEvents:     container.NewTabItemWithIcon(tabEvents, theme.InfoIcon(), m.events.root),
		tabSSH:        container.NewTabItemWithIcon(tabSSH, theme.StorageIcon(), m.ssh.root),
		tabGoogle:     container.NewTabItemWithIcon(tabGoogle, theme.AccountIcon(), m.google.root),
		tabAssistants: container.NewTabItemWithIcon(tabAssistants, theme.LoginIcon(), m.assistants.root),
		tabSettings:   container.NewTabItemWithIcon(tabSettings, theme.SettingsIcon(), m.settings.root),
	}
	// All at once: each Append lays out every tab again (≈ 100 ms more
	// for the window's first frame, BenchmarkWindowOpen).
	items := make([]*container.TabItem, 0, len(tabOrder))
	for _, name := range tabOrder {
		items = append(items, tabs[name])
	}
	m.tabs = container.NewAppTabs(items...)
	m.tabs.OnSelected = func(t *container.TabItem) {
		if t.Text == tabSSH {
			m.ssh.refresh() // `mcptray ssh alias` or an assistant may have changed them
		}
		if t.Text == tabGoogle {
			m.google.refresh() // `mcptray auth google` or a server may have changed them
		}
		if t.Text == tabAssistants {
			m.assistants.refresh() // `mcptray setup` or the assistant may have changed their configs
		}
		if t.Text == tabSettings {
			m.settings.secrets.refresh() // `mcptray secret` may have changed them
		}
	}
	// The window's process lost the tray app (app/remote): it says so
	// until the next one answers.
	m.offline = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	m.offline.Wrapping = fyne.TextWrapWord
	m.offline.Importance = widget.DangerImportance
	m.offline.Hide()
	m.root = container.NewBorder(container.NewVBox(m.offline, m.notice, m.banner.root), nil, nil, nil, m.tabs)
	return m
}

// apply shows st.
func (m *mainScreen) apply(st control.Status) {
	if st.Unreachable != "" {
		m.offline.SetText(st.Unreachable)
		m.offline.Show()
	} else {
		m.offline.Hide()
	}
	m.banner.set(st.ConfigPath, st.ConfigError)
	m.servers.setServers(st.Servers)
	m.assistants.connect.setStatus(st)
	m.settings.setStatus(st)
}

// show selects the tab called name, if there is one.
func (m *mainScreen) show(name string) {
	for _, t := range m.tabs.Items {
		if t.Text == name {
			m.tabs.Select(t)
			return
		}
	}
}

// tick refreshes what changes with time alone.
func (m *mainScreen) tick() {
	m.servers.tick()
	m.inbox.tick()
}

// close stops what the screens follow.
func (m *mainScreen) close() { m.servers.close() }
