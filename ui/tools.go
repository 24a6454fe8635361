package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/control"
)

// toolColumns are the widths of a tool row's columns: the on/off check,
// the name, the hint badges; the description takes the rest.
var toolColumns = columns{44, 170, 330}

// Positions of the widgets in a tool row (a *fyne.Container).
const (
	toolColOn = iota
	toolColName
	toolColHints
	toolColDesc
)

// Hints a tool row shows as badges: its annotations, then whether its
// calls ask first and whether it is held back.
const (
	hintReadOnly    = "read-only"
	hintDestructive = "destructive"
	hintIdempotent  = "idempotent"
	hintOpenWorld   = "open-world"
	hintAsks        = "asks first"
	hintHeld        = "held back"
)

const maxHints = 6

// toolsPane lists the selected server's tools (Core.Tools): a check that
// turns each on or off (Core.SetToolEnabled, which writes the entry's
// disabledTools), its name, badges for its hints, and the first line of
// its description. Main goroutine only.
type toolsPane struct {
	core    Core
	onError func(error)

	server string
	tools  []control.ToolInfo

	note *widget.Label // why the list is what it is: the server is not ready, no tools
	list *widget.List
	root fyne.CanvasObject
}

func newToolsPane(c Core, onError func(error)) *toolsPane {
	p := &toolsPane{core: c, onError: onError}
	p.list = widget.NewList(
		func() int { return len(p.tools) },
		newToolRow,
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(p.tools) {
				p.updateRow(o.(*fyne.Container), p.tools[id])
			}
		})
	p.note = widget.NewLabel("")
	p.note.Importance = widget.LowImportance
	p.note.Wrapping = fyne.TextWrapWord
	p.note.Hide()
	p.root = container.NewBorder(p.note, nil, nil, nil, p.list)
	return p
}

func newToolRow() fyne.CanvasObject {
	name := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	name.Truncation = fyne.TextTruncateEllipsis
	desc := widget.NewLabel("")
	desc.Truncation = fyne.TextTruncateEllipsis
	hints := container.NewHBox()
	for range maxHints {
		b := newStateBadge()
		b.colors = hintColors
		b.Hide()
		hints.Add(b)
	}
	return container.New(toolColumns, widget.NewCheck("", nil), name, hints, desc)
}

func (p *toolsPane) updateRow(row *fyne.Container, t control.ToolInfo) {
	check := row.Objects[toolColOn].(*widget.Check)
	check.OnChanged = nil // SetChecked would call it: this is no tap
	check.SetChecked(t.Enabled)
	server, name := p.server, t.Name
	check.OnChanged = func(on bool) { p.setEnabled(server, name, on) }
	row.Objects[toolColName].(*widget.Label).SetText(t.Name)
	desc := t.Description
	if t.Title != "" && t.Title != t.Name {
		desc = t.Title + " — " + desc
	}
	row.Objects[toolColDesc].(*widget.Label).SetText(desc)
	hints := toolHints(t)
	for i, o := range row.Objects[toolColHints].(*fyne.Container).Objects {
		b := o.(*stateBadge)
		if i < len(hints) {
			b.SetState(hints[i])
			b.Show()
		} else {
			b.Hide()
		}
	}
}

// toolHints are the badges of a tool, in order.
func toolHints(t control.ToolInfo) []string {
	var h []string
	for _, x := range []struct {
		on   bool
		hint string
	}{{t.Held != "", hintHeld}, {t.Approval && t.Enabled, hintAsks}, {t.ReadOnly, hintReadOnly}, {t.Destructive, hintDestructive}, {t.Idempotent, hintIdempotent}, {t.OpenWorld, hintOpenWorld}} {
		if x.on {
			h = append(h, x.hint)
		}
	}
	return h
}

// hintColors are a hint badge's colours.
func hintColors(hint string) (bg, fg fyne.ThemeColorName) {
	switch hint {
	case hintReadOnly:
		return theme.ColorNameSuccess, theme.ColorNameForegroundOnSuccess
	case hintDestructive, hintHeld:
		return theme.ColorNameError, theme.ColorNameForegroundOnError
	case hintAsks:
		return theme.ColorNameWarning, theme.ColorNameForegroundOnWarning
	default:
		return theme.ColorNameDisabledButton, theme.ColorNameForeground
	}
}

// show lists the tools of server ("" clears the list).
func (p *toolsPane) show(server string) {
	p.server = server
	p.reload()
}

// reload reads the server's tools again.
func (p *toolsPane) reload() {
	note := ""
	p.tools = nil
	if p.server != "" {
		l, err := p.core.Tools(p.server)
		switch {
		case err != nil:
			note = err.Error()
		case len(l.Tools) == 0 && l.Cached:
			note = fmt.Sprintf("%s is %s, and mcptray has not seen its tools yet.", p.server, l.State)
		case len(l.Tools) == 0:
			note = p.server + " has no tools."
		case l.Cached:
			note = fmt.Sprintf("%s is %s: its tools as last seen.", p.server, l.State)
		}
		p.tools = l.Tools
	}
	if note != p.note.Text || p.note.Visible() != (note != "") {
		p.note.SetText(note)
		if note == "" {
			p.note.Hide()
		} else {
			p.note.Show()
		}
	}
	p.list.Refresh()
}

// setEnabled is a tap on a tool's check.
func (p *toolsPane) setEnabled(server, tool string, on bool) {
	err := p.core.SetToolEnabled(server, tool, on)
	if err == nil {
		return // the change comes back with the next status
	}
	verb := "off"
	if on {
		verb = "on"
	}
	p.reload() // put the check back to what the core says
	p.onError(fmt.Errorf("turning %s of %s %s: %w", tool, server, verb, err))
}
