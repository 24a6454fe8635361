package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
)

// serverColumns are the widths of a server row's columns: the enabled
// check, name, state, pid, uptime, tools, restarts; the last error takes the
// rest.
var serverColumns = columns{44, 150, 104, 70, 76, 56, 74}

// Positions of the widgets in a server row (a *fyne.Container).
const (
	colEnabled = iota
	colName
	colState
	colPID
	colUptime
	colTools
	colRestarts
	colError
)

// serversScreen is the Servers tab: Add server… (serverform.go), a row per
// server (a check that turns it on or off through Core.SetEnabled, then
// name, state badge, pid, uptime, tool count, restarts and the first line
// of its last error, cut to the column) over the selected server's Edit,
// Remove and Restart buttons, its whole last error, and two tabs: its
// tools with their switches (tools.go) and its log, followed live. The
// selection is a server's name: it stays on that server when rows are
// added or removed around it. Main goroutine only.
type serversScreen struct {
	core    Core
	onError func(error)        // shows a failed SetEnabled, Restart or Remove to the person
	now     func() time.Time   // the clock uptimes are measured with
	win     func() fyne.Window // the window the form and confirmations open over

	servers  []control.ServerStatus // the rows shown, in order
	selected string                 // the server whose log is shown; "" for none
	added    string                 // a server just added: selected when its row comes

	list    *widget.List
	title   *widget.Label
	add     *widget.Button
	edit    *widget.Button
	remove  *widget.Button
	restart *widget.Button
	signIn  *widget.Button // shown while the selected server waits in needs-sign-in
	form    *serverForm    // the form open, if any
	errText *widget.Label  // the selected server's whole last error, wrapped; hidden when it has none
	detail  *fyne.Container
	tabs    *container.AppTabs // the selected server's Tools and Log
	tools   *toolsPane
	log     *logPane
	root    fyne.CanvasObject
}

// newServersScreen builds the tab; onError is called (on the main
// goroutine) with a short message when a toggle, restart or removal fails.
func newServersScreen(c Core, now func() time.Time, win func() fyne.Window, onError func(error)) *serversScreen {
	s := &serversScreen{core: c, onError: onError, now: now, win: win}
	s.list = widget.NewList(
		func() int { return len(s.servers) },
		newServerRow,
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(s.servers) {
				s.updateRow(o.(*fyne.Container), s.servers[id])
			}
		})
	s.list.OnSelected = func(id widget.ListItemID) {
		if id < len(s.servers) {
			s.show(s.servers[id].Name)
		}
	}
	header := container.New(serverColumns,
		widget.NewLabel(""),
		boldLabel("Server"), boldLabel("State"), boldLabel("PID"), boldLabel("Uptime"),
		boldLabel("Tools"), boldLabel("Restarts"), boldLabel("Last error"))

	s.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.title.Truncation = fyne.TextTruncateEllipsis
	s.restart = widget.NewButtonWithIcon("Restart", theme.ViewRefreshIcon(), s.restartSelected)
	s.restart.Disable()
	s.signIn = widget.NewButtonWithIcon("Sign in…", theme.LoginIcon(), s.signInSelected)
	s.signIn.Importance = widget.HighImportance
	s.signIn.Hide()
	s.add = widget.NewButtonWithIcon("Add server…", theme.ContentAddIcon(), func() { s.showForm(nil) })
	s.edit = widget.NewButtonWithIcon("Edit", theme.DocumentCreateIcon(), s.editSelected)
	s.edit.Disable()
	s.remove = widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), s.confirmRemove)
	s.remove.Disable()
	s.errText = widget.NewLabel("")
	s.errText.Wrapping = fyne.TextWrapWord
	s.errText.Importance = widget.DangerImportance
	s.errText.Selectable = true // to copy it
	s.errText.Hide()
	s.log = newLogPane(c)
	s.tools = newToolsPane(c, onError)
	s.tabs = container.NewAppTabs(container.NewTabItem("Tools", s.tools.root), container.NewTabItem("Log", s.log.root))
	s.detail = container.NewBorder(
		container.NewVBox(container.NewBorder(nil, nil, nil, container.NewHBox(s.signIn, s.edit, s.remove, s.restart), s.title), s.errText),
		nil, nil, nil, s.tabs)

	split := container.NewVSplit(container.NewBorder(container.NewVBox(container.NewHBox(s.add), header), nil, nil, nil, s.list), s.detail)
	split.Offset = 0.45
	s.root = split
	return s
}

func boldLabel(text string) *widget.Label {
	return widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

func newServerRow() fyne.CanvasObject {
	name := widget.NewLabel("")
	name.Truncation = fyne.TextTruncateEllipsis
	errText := widget.NewLabel("")
	errText.Truncation = fyne.TextTruncateEllipsis
	errText.Importance = widget.DangerImportance
	return container.New(serverColumns,
		widget.NewCheck("", nil), name, newStateBadge(),
		widget.NewLabel(""), widget.NewLabel(""), widget.NewLabel(""), widget.NewLabel(""),
		errText)
}

func (s *serversScreen) updateRow(row *fyne.Container, st control.ServerStatus) {
	check := row.Objects[colEnabled].(*widget.Check)
	check.OnChanged = nil // SetChecked would call it: this is no tap
	check.SetChecked(st.Enabled)
	name := st.Name
	check.OnChanged = func(on bool) { s.setEnabled(name, on) }

	row.Objects[colName].(*widget.Label).SetText(st.Name)
	row.Objects[colState].(*stateBadge).SetState(st.State)
	pid, up, tools := "", "", ""
	if st.PID > 0 {
		pid = strconv.Itoa(st.PID)
	}
	if st.State == control.StateReady && !st.Since.IsZero() {
		up = uptime(s.now().Sub(st.Since))
	}
	if st.State == control.StateReady || st.Tools > 0 {
		tools = strconv.Itoa(st.Tools)
	}
	row.Objects[colPID].(*widget.Label).SetText(pid)
	row.Objects[colUptime].(*widget.Label).SetText(up)
	row.Objects[colTools].(*widget.Label).SetText(tools)
	row.Objects[colRestarts].(*widget.Label).SetText(strconv.Itoa(st.Restarts))
	firstLine, _, _ := strings.Cut(st.Error, "\n")
	row.Objects[colError].(*widget.Label).SetText(firstLine)
}

// uptime renders d the short way: "45s", "12m", "3h 12m", "2d 4h".
func uptime(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
	}
}

// setEnabled is a tap on a server's check.
func (s *serversScreen) setEnabled(name string, on bool) {
	err := s.core.SetEnabled(name, on)
	if err == nil {
		return // the new state comes back through the subscription
	}
	verb := "off"
	if on {
		verb = "on"
	}
	s.list.Refresh() // put the check back to what the core says
	s.onError(fmt.Errorf("turning %s %s: %w", name, verb, err))
}

// restartSelected is a tap on Restart.
func (s *serversScreen) restartSelected() {
	if s.selected == "" {
		return
	}
	if err := s.core.Restart(s.selected); err != nil {
		s.onError(fmt.Errorf("restarting %s: %w", s.selected, err))
	}
}

// signInSelected is a tap on Sign in…: the inbox asks (its popup's yes
// opens the browser).
func (s *serversScreen) signInSelected() {
	if s.selected == "" {
		return
	}
	if err := s.core.AskSignIn(s.selected); err != nil {
		s.onError(fmt.Errorf("signing in to %s: %w", s.selected, err))
	}
}

// show selects server name: its title, Restart, its last error and its
// log.
func (s *serversScreen) show(name string) {
	if name == s.selected {
		return
	}
	s.selected = name
	s.title.SetText(name)
	s.restart.Enable()
	s.edit.Enable()
	s.remove.Enable()
	s.showError()
	s.tools.show(name)
	s.log.follow(name)
}

// showError shows the selected server's whole last error above its log,
// and the stderr lines of a failed start (stderrTail) under it.
func (s *serversScreen) showError() {
	text := ""
	signIn := false
	if i := s.index(s.selected); i >= 0 {
		signIn = s.servers[i].State == control.StateNeedsSignIn
		text = strings.TrimSpace(s.servers[i].Error)
		if tail := s.servers[i].StderrTail; text != "" && len(tail) > 0 {
			text += "\n\nIts last words on stderr:\n" + strings.Join(tail, "\n")
		}
	}
	if signIn != s.signIn.Visible() {
		if signIn {
			s.signIn.Show()
		} else {
			s.signIn.Hide()
		}
	}
	if text == s.errText.Text && s.errText.Visible() == (text != "") {
		return
	}
	s.errText.SetText(text)
	if text == "" {
		s.errText.Hide()
	} else {
		s.errText.Show()
	}
	s.detail.Refresh() // lay the log out again under the error's new height
}

// index is the row of server name; -1 if none shows it.
func (s *serversScreen) index(name string) int {
	for i, st := range s.servers {
		if st.Name == name {
			return i
		}
	}
	return -1
}

// setServers replaces the rows. The selection follows the selected
// server to its new row; the first server is selected when none is, or
// when the selected one is gone.
func (s *serversScreen) setServers(servers []control.ServerStatus) {
	s.servers = servers
	i := s.index(s.selected)
	if j := s.index(s.added); s.added != "" && j >= 0 {
		i, s.added = j, ""
	}
	switch {
	case i >= 0:
		s.list.Select(i) // nothing when it is the row selected already
	case len(servers) > 0:
		s.list.UnselectAll()
		s.list.Select(0)
	default:
		s.clearSelection()
	}
	s.list.Refresh()
	s.showError()
	if s.selected != "" {
		s.tools.reload() // its tools may have changed with it
	}
}

// clearSelection selects nothing: there is no server.
func (s *serversScreen) clearSelection() {
	s.list.UnselectAll()
	if s.selected == "" {
		return
	}
	s.selected = ""
	s.title.SetText("")
	s.restart.Disable()
	s.edit.Disable()
	s.remove.Disable()
	s.tools.show("")
	s.log.stop()
	s.log.clear()
}

// tick refreshes what changes with time alone (uptimes).
func (s *serversScreen) tick() { s.list.Refresh() }

// close stops following the log.
func (s *serversScreen) close() { s.log.stop() }

// showForm opens the Add server… form (e nil) or the Edit form of e.
func (s *serversScreen) showForm(e *config.Entry) {
	var (
		f *serverForm
		d *dialog.CustomDialog
	)
	submit := func() {
		if s.save(f) {
			d.Hide()
		}
	}
	f = newServerForm(e, submit)
	title, saveText := "Add a server", "Add"
	if e != nil {
		title, saveText = "Edit "+e.Name, "Save"
	}
	d = dialog.NewCustomWithoutButtons(title, container.NewVScroll(f.root), s.win())
	save := widget.NewButtonWithIcon(saveText, theme.ConfirmIcon(), submit)
	save.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), d.Hide), save})
	d.SetOnClosed(func() {
		f.clearSecrets() // nothing typed outlives the form
		if s.form == f {
			s.form = nil
		}
	})
	d.Resize(fyne.NewSize(780, 580))
	s.form = f
	d.Show()
	if e == nil {
		s.win().Canvas().Focus(f.name)
	}
}

// save writes the form's entry through the core; false, with the reason
// under its field, when it is refused (nothing is written then).
func (s *serversScreen) save(f *serverForm) bool {
	e, err := f.entry()
	if err == nil {
		_, err = s.core.AddServer(e, f.editing)
	}
	if err != nil {
		f.showError(err)
		return false
	}
	f.clearErrors()
	f.clearSecrets()
	if !f.editing {
		s.added = e.Name // selected once the watcher has started it
	}
	return true
}

// editSelected opens the Edit form of the selected server, filled from
// its entry as written in mcp.json.
func (s *serversScreen) editSelected() {
	if s.selected == "" {
		return
	}
	e, err := s.core.ServerEntry(s.selected)
	if err != nil {
		s.onError(fmt.Errorf("editing %s: %w", s.selected, err))
		return
	}
	s.showForm(&e)
}

// confirmRemove asks before taking the selected server's entry out.
func (s *serversScreen) confirmRemove() {
	name := s.selected
	if name == "" {
		return
	}
	d := dialog.NewConfirm("Remove "+name+"?", "Its entry is taken out of mcp.json and the server stops.", func(ok bool) {
		if ok {
			s.removeServer(name)
		}
	}, s.win())
	d.SetConfirmText("Remove")
	d.Show()
}

// removeServer takes name's entry out, and says which secrets it used:
// they stay in the keyring.
func (s *serversScreen) removeServer(name string) {
	secrets, err := s.core.RemoveServer(name)
	if err != nil {
		s.onError(fmt.Errorf("removing %s: %w", name, err))
		return
	}
	if len(secrets) == 0 {
		return
	}
	refs := make([]string, len(secrets))
	for i, n := range secrets {
		refs[i] = "${keyring:" + n + "}"
	}
	msg := widget.NewLabel(fmt.Sprintf("It used %s, which stays in the keyring: another entry may use it. Settings → Secrets removes it.", strings.Join(refs, ", ")))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom(name+" removed", "OK", msg, s.win())
	d.Resize(fyne.NewSize(460, 180))
	d.Show()
}
