package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/control"
)

// toolModes describes the tool-list modes, in the order offered.
var toolModes = []struct{ mode, about string }{
	{"live", "Only running servers' tools; assistants are told each time the list changes."},
	{"stable", "Every configured server's last known tools, even while it is off (for assistants that ignore list changes, such as Claude Desktop)."},
	{"dynamic", "Four meta tools with a tool search: a few % of the tokens of every tool (for many servers, or assistants that cap tools, such as Cursor)."},
}

// settingsScreen is the Settings tab: the config file (with a button that
// opens it), the default tool-list mode (written to mcp.json by the core),
// the ${keyring:NAME} secrets (secrets.go), desktop notifications on or
// off, and starting at login. Main goroutine only.
type settingsScreen struct {
	core    Core
	onError func(error)

	path      *widget.Label
	configAt  string // the config path shown
	mode      *widget.Select
	modeAbout *widget.Label
	notify    *widget.Check
	login     *widget.Check
	loginNote *widget.Label
	auto      autostart // nil when this platform has none
	secrets   *secretsCard
	root      fyne.CanvasObject
}

func newSettingsScreen(c Core, n notifier, auto autostart, openConfig func(string), win func() fyne.Window, onError func(error)) *settingsScreen {
	s := &settingsScreen{core: c, onError: onError, auto: auto, secrets: newSecretsCard(c, win, onError)}

	s.path = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	s.path.Wrapping = fyne.TextWrapBreak
	open := widget.NewButtonWithIcon("Open config", theme.DocumentIcon(), func() { openConfig(s.configAt) })

	var modes []string
	for _, m := range toolModes {
		modes = append(modes, m.mode)
	}
	s.modeAbout = widget.NewLabel("")
	s.modeAbout.Wrapping = fyne.TextWrapWord
	s.mode = widget.NewSelect(modes, nil)
	s.showMode(c.ToolsMode())
	s.mode.OnChanged = s.setMode

	// Ticked before OnChanged is set, like the other controls: showing the
	// preference must not write it (each write rewrites Fyne's preferences
	// file, which Fyne's own file watcher can read half-written:
	// "Preferences load error: EOF", fyne-io/fyne#2936; Fyne's save at
	// quit still can).
	s.notify = widget.NewCheck("Show desktop notifications (requests for input, events from servers)", nil)
	s.notify.SetChecked(n.enabled())
	s.notify.OnChanged = n.setEnabled

	s.loginNote = widget.NewLabel("")
	s.loginNote.Wrapping = fyne.TextWrapBreak
	s.login = widget.NewCheck("Start mcptray when I log in", nil)
	s.showLogin()
	s.login.OnChanged = s.setLogin

	modeNote := widget.NewLabel("Assistants can ask for another mode: `mcptray connect --tools MODE`, or `?tools=MODE` over HTTP.")
	modeNote.Wrapping = fyne.TextWrapWord
	s.root = container.NewVScroll(container.NewVBox(
		widget.NewCard("Config file", "", container.NewBorder(nil, nil, nil, container.NewCenter(open), s.path)),
		widget.NewCard("Tool list", "What assistants see by default (x-mcptray.tools in mcp.json)",
			container.NewVBox(container.NewBorder(nil, nil, nil, nil, s.mode), s.modeAbout, modeNote)),
		s.secrets.root,
		widget.NewCard("Notifications", "", s.notify),
		widget.NewCard("Start at login", "", container.NewVBox(s.login, s.loginNote)),
	))
	return s
}

// setStatus shows the config path and the mode now in effect.
func (s *settingsScreen) setStatus(st control.Status) {
	s.configAt = st.ConfigPath
	s.path.SetText(st.ConfigPath)
	s.showMode(s.core.ToolsMode())
}

// showMode selects mode without writing it back.
func (s *settingsScreen) showMode(mode string) {
	onChanged := s.mode.OnChanged
	s.mode.OnChanged = nil
	s.mode.SetSelected(mode)
	s.mode.OnChanged = onChanged
	s.modeAbout.SetText("")
	for _, m := range toolModes {
		if m.mode == mode {
			s.modeAbout.SetText(m.about)
		}
	}
}

// setMode is the person picking a mode.
func (s *settingsScreen) setMode(mode string) {
	if err := s.core.SetToolsMode(mode); err != nil {
		s.showMode(s.core.ToolsMode())
		s.onError(fmt.Errorf("setting the tool list to %s: %w", mode, err))
		return
	}
	s.showMode(mode) // the file says so now; the core applies it in a moment
}

// showLogin shows whether mcptray starts at login.
func (s *settingsScreen) showLogin() {
	if s.auto == nil {
		s.login.Disable()
		s.loginNote.SetText("Not available on this system.")
		return
	}
	on, err := s.auto.Enabled()
	onChanged := s.login.OnChanged
	s.login.OnChanged = nil
	s.login.SetChecked(on)
	s.login.OnChanged = onChanged
	if err != nil {
		s.loginNote.Importance = widget.DangerImportance
		s.loginNote.SetText(err.Error())
		return
	}
	s.loginNote.Importance = widget.MediumImportance
	s.loginNote.SetText(s.auto.Where())
}

// setLogin is a tap on "Start mcptray when I log in".
func (s *settingsScreen) setLogin(on bool) {
	if err := s.auto.SetEnabled(on); err != nil {
		s.onError(fmt.Errorf("changing start at login: %w", err))
	}
	s.showLogin()
}
