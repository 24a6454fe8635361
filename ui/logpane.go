package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// maxLogLines is how many of a log's last lines the pane keeps.
const maxLogLines = 2000

// wholeLines is how many wrapped lines of a clicked log line show at once
// under the log (more scroll).
const wholeLines = 4

// logPane shows one server's log, following it as it grows: a goroutine
// runs Core.FollowLog into a channel, and follow applies what arrives on
// the main goroutine. A line too long for the pane is cut with "…"; a
// click on it shows it whole, wrapped (and selectable, to copy it), under
// the log in a box of wholeLines lines that scrolls, until closed. The fields are the main goroutine's.
type logPane struct {
	core    Core
	lines   []string // the last maxLogLines complete lines, oldest first
	partial string   // the last line, while it has no newline yet
	list    *widget.List
	whole   *widget.Label   // the line clicked, whole
	wholeBx *fyne.Container // whole and its close button; hidden when no line was clicked
	end     func()          // stops the current follower; nil when none runs
	root    fyne.CanvasObject
}

func newLogPane(c Core) *logPane {
	p := &logPane{core: c}
	p.list = widget.NewList(
		func() int { return p.count() },
		func() fyne.CanvasObject {
			l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(p.line(id))
		})
	p.list.OnSelected = func(id widget.ListItemID) {
		p.showWhole(p.line(id))
		p.list.Unselect(id) // the rows move as the log grows: keep no row selected
	}
	p.whole = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	p.whole.Wrapping = fyne.TextWrapBreak
	p.whole.Selectable = true
	closeWhole := widget.NewButtonWithIcon("", theme.CancelIcon(), func() { p.showWhole("") })
	closeWhole.Importance = widget.LowImportance
	scroll := container.NewVScroll(p.whole) // a line can be long: it scrolls in wholeLines lines
	lineH := fyne.MeasureText("X", theme.TextSize(), fyne.TextStyle{Monospace: true}).Height + theme.LineSpacing()
	scroll.SetMinSize(fyne.NewSize(0, wholeLines*lineH+2*theme.InnerPadding()))
	p.wholeBx = container.NewBorder(widget.NewSeparator(), nil, nil, container.NewVBox(closeWhole), scroll)
	p.wholeBx.Hide()
	p.root = container.NewBorder(nil, p.wholeBx, nil, nil, p.list)
	return p
}

// showWhole shows line whole under the log; "" hides it.
func (p *logPane) showWhole(line string) {
	p.whole.SetText(line)
	if line == "" {
		p.wholeBx.Hide()
	} else {
		p.wholeBx.Show()
	}
	p.root.Refresh() // lay the list out again over the line's height
}

// clear empties the pane.
func (p *logPane) clear() {
	p.lines, p.partial = nil, ""
	p.showWhole("")
	p.list.Refresh()
}

func (p *logPane) count() int {
	if p.partial != "" {
		return len(p.lines) + 1
	}
	return len(p.lines)
}

func (p *logPane) line(id int) string {
	if id < len(p.lines) {
		return p.lines[id]
	}
	if id == len(p.lines) {
		return p.partial
	}
	return ""
}

// follow shows server name's log from its start (the last maxLogLines
// lines), then every new line, until follow is called again or stop.
func (p *logPane) follow(name string) {
	p.stop()
	p.clear()

	ctx, cancel := context.WithCancel(context.Background())
	chunks := make(chan string, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := p.core.FollowLog(ctx, name, chanWriter{ctx, chunks})
		if err != nil && ctx.Err() == nil {
			select {
			case chunks <- "\n[mcptray] " + err.Error() + "\n":
			case <-ctx.Done():
			}
		}
	}()
	stopApply := follow(chunks, p.append)
	p.end = func() {
		cancel()
		<-done
		stopApply()
	}
}

// stop ends the current follower, if any, and waits for it.
func (p *logPane) stop() {
	if p.end != nil {
		p.end()
		p.end = nil
	}
}

// append adds text from the log and scrolls to the end.
func (p *logPane) append(text string) {
	parts := strings.Split(p.partial+text, "\n")
	p.partial = parts[len(parts)-1]
	for _, l := range parts[:len(parts)-1] {
		p.lines = append(p.lines, strings.TrimSuffix(l, "\r"))
	}
	if over := len(p.lines) - maxLogLines; over > 0 {
		p.lines = append(p.lines[:0:0], p.lines[over:]...)
	}
	p.list.Refresh()
	p.list.ScrollToBottom()
}

// text is what the pane shows, one line per line (for tests).
func (p *logPane) text() string {
	t := strings.Join(p.lines, "\n")
	if p.partial != "" {
		t += "\n" + p.partial
	}
	return t
}

// chanWriter sends what is written to it on ch, until ctx ends.
type chanWriter struct {
	ctx context.Context
	ch  chan<- string
}

func (w chanWriter) Write(b []byte) (int, error) {
	select {
	case w.ch <- string(b):
		return len(b), nil
	case <-w.ctx.Done():
		return 0, w.ctx.Err()
	}
}
