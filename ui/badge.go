package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/control"
)

// stateBadge shows a server's state as its name on a rounded patch of the
// state's colour, left-aligned and vertically centred in its space. With
// colors set it shows another word so (a tool's hints: tools.go).
type stateBadge struct {
	widget.BaseWidget
	State  string
	colors func(string) (bg, fg fyne.ThemeColorName) // nil: stateColors
}

func newStateBadge() *stateBadge {
	b := &stateBadge{}
	b.ExtendBaseWidget(b)
	return b
}

// SetState shows state.
func (b *stateBadge) SetState(state string) {
	if b.State == state {
		return
	}
	b.State = state
	b.Refresh()
}

func (b *stateBadge) CreateRenderer() fyne.WidgetRenderer {
	r := &badgeRenderer{b: b, bg: canvas.NewRectangle(nil), text: canvas.NewText("", nil)}
	r.bg.CornerRadius = 6
	r.text.TextSize = theme.CaptionTextSize()
	r.text.TextStyle.Bold = true
	r.Refresh()
	return r
}

type badgeRenderer struct {
	b    *stateBadge
	bg   *canvas.Rectangle
	text *canvas.Text
}

const badgePad = 6

func (r *badgeRenderer) Layout(size fyne.Size) {
	ts := r.text.MinSize()
	w := min(ts.Width+2*badgePad, size.Width)
	h := min(ts.Height+badgePad, size.Height)
	y := (size.Height - h) / 2
	r.bg.Move(fyne.NewPos(0, y))
	r.bg.Resize(fyne.NewSize(w, h))
	r.text.Move(fyne.NewPos(badgePad, y+(h-ts.Height)/2))
	r.text.Resize(ts)
}

func (r *badgeRenderer) MinSize() fyne.Size {
	ts := r.text.MinSize()
	return fyne.NewSize(ts.Width+2*badgePad, ts.Height+badgePad)
}

func (r *badgeRenderer) Refresh() {
	colors := r.b.colors
	if colors == nil {
		colors = stateColors
	}
	bg, fg := colors(r.b.State)
	r.bg.FillColor = theme.Color(bg)
	r.text.Color = theme.Color(fg)
	r.text.Text = r.b.State
	r.bg.Hidden = r.b.State == ""
	r.Layout(r.b.Size())
	r.bg.Refresh()
	r.text.Refresh()
}

func (r *badgeRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.bg, r.text} }
func (r *badgeRenderer) Destroy()                     {}

// stateColors are a state's badge colours: background and text.
func stateColors(state string) (bg, fg fyne.ThemeColorName) {
	switch state {
	case control.StateReady:
		return theme.ColorNameSuccess, theme.ColorNameForegroundOnSuccess
	case control.StateError, control.StateCrashLoop:
		return theme.ColorNameError, theme.ColorNameForegroundOnError
	case control.StateWaitingInput, control.StateNeedsApproval, control.StateNeedsSignIn:
		return theme.ColorNamePrimary, theme.ColorNameForegroundOnPrimary
	case control.StateStarting, control.StateRestarting, control.StateStopping:
		return theme.ColorNameWarning, theme.ColorNameForegroundOnWarning
	default: // disabled, stopped
		return theme.ColorNameDisabledButton, theme.ColorNameForeground
	}
}
