package ui

import (
	"fmt"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app"
)

// serverColumns are the widths of a server row's columns: the enabled check,
// name, state, pid, tools; the error takes the rest.
var serverColumns = columns{44, 160, 100, 70, 60}

// Positions of the widgets in a server row (a *fyne.Container).
const (
	colEnabled = iota
	colName
	colState
	colPID
	colTools
	colError
)

// serversScreen lists the servers: a check per server that turns it on or off
// through Core.SetEnabled, then its name, state, pid, tool count and error.
// Main goroutine only.
type serversScreen struct {
	core    Core
	onError func(error)        // shows a failed SetEnabled to the person
	servers []app.ServerStatus // the rows shown, in order
	list    *widget.List
	root    fyne.CanvasObject
}

// newServersScreen builds the list; onError is called (on the main goroutine)
// with a short message when turning a server on or off fails.
func newServersScreen(c Core, onError func(error)) *serversScreen {
	s := &serversScreen{core: c, onError: onError}
	s.list = widget.NewList(
		func() int { return len(s.servers) },
		newServerRow,
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(s.servers) {
				s.updateRow(o.(*fyne.Container), s.servers[id])
			}
		})
	s.list.OnSelected = func(id widget.ListItemID) { s.list.Unselect(id) }
	header := container.New(serverColumns,
		widget.NewLabel(""),
		boldLabel("Server"), boldLabel("State"), boldLabel("PID"),
		boldLabel("Tools"), boldLabel("Error"))
	s.root = container.NewBorder(header, nil, nil, nil, s.list)
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
		widget.NewCheck("", nil), name, widget.NewLabel(""),
		widget.NewLabel(""), widget.NewLabel(""), errText)
}

func (s *serversScreen) updateRow(row *fyne.Container, st app.ServerStatus) {
	check := row.Objects[colEnabled].(*widget.Check)
	check.OnChanged = nil // SetChecked would call it: this is no tap
	check.SetChecked(st.Enabled)
	name := st.Name
	check.OnChanged = func(on bool) { s.setEnabled(name, on) }

	row.Objects[colName].(*widget.Label).SetText(st.Name)
	state := row.Objects[colState].(*widget.Label)
	state.Importance = stateImportance(st.State)
	state.SetText(st.State)
	pid := ""
	if st.PID > 0 {
		pid = strconv.Itoa(st.PID)
	}
	row.Objects[colPID].(*widget.Label).SetText(pid)
	tools := ""
	if st.State == app.StateReady || st.Tools > 0 {
		tools = strconv.Itoa(st.Tools)
	}
	row.Objects[colTools].(*widget.Label).SetText(tools)
	row.Objects[colError].(*widget.Label).SetText(st.Error)
}

func stateImportance(state string) widget.Importance {
	switch state {
	case app.StateReady:
		return widget.SuccessImportance
	case app.StateError, app.StateCrashLoop:
		return widget.DangerImportance
	case app.StateStarting, app.StateRestarting, app.StateStopping:
		return widget.WarningImportance
	default: // disabled, stopped
		return widget.LowImportance
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

// setServers replaces the rows.
func (s *serversScreen) setServers(servers []app.ServerStatus) {
	s.servers = servers
	s.list.Refresh()
}
