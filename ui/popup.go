package ui

import (
	"fmt"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/inbox"
)

// popup is the small window that asks the person at once: it shows the
// oldest waiting request (titled with its server's name), brought to the
// front with its first field focused; Enter accepts, Escape cancels. The
// requests queue in it, oldest first; when the last is answered —
// here, in the Inbox tab, by the CLI or by the deadline — it closes.
// Closing it by hand leaves the requests in the Inbox tab. Main goroutine
// only.
type popup struct {
	app    fyne.App
	now    func() time.Time
	answer func(id string, a inbox.Answer) error
	done   func(id string) // a request was answered here
	// onEmpty, when set, runs when the last request has left (the
	// popup's own process then ends); onShow when a request shows.
	onEmpty, onShow func()

	win   fyne.Window     // nil until the first request
	queue []inbox.Request // waiting, oldest first
	view  *requestView    // shows queue[0]; nil when the queue is empty
	more  *widget.Label   // how many more wait behind it
}

func newPopup(a fyne.App, now func() time.Time, answer func(string, inbox.Answer) error, done func(string)) *popup {
	return &popup{app: a, now: now, answer: answer, done: done}
}

// add queues req and shows the popup.
func (p *popup) add(req inbox.Request) {
	if slices.ContainsFunc(p.queue, func(r inbox.Request) bool { return r.ID == req.ID }) {
		return
	}
	p.queue = append(p.queue, req)
	slices.SortStableFunc(p.queue, func(a, b inbox.Request) int { return a.Created.Compare(b.Created) })
	if p.view == nil || p.view.req.ID != p.queue[0].ID {
		p.showFirst()
		return
	}
	p.setMore()
	showWindow(p.win) // closed by hand before: a new request opens it again
	p.win.RequestFocus()
}

// remove drops request id (answered or gone); the next one shows, or the
// popup closes.
func (p *popup) remove(id string) {
	i := slices.IndexFunc(p.queue, func(r inbox.Request) bool { return r.ID == id })
	if i < 0 {
		return
	}
	p.queue = slices.Delete(p.queue, i, i+1)
	if i == 0 {
		p.showFirst()
		return
	}
	p.setMore()
}

// showFirst shows queue[0] in the window, in front, or hides the window
// when nothing waits.
func (p *popup) showFirst() {
	if p.view != nil && p.view.form != nil {
		p.view.form.clear()
	}
	if len(p.queue) == 0 {
		p.view = nil
		if p.win != nil {
			p.win.SetContent(widget.NewLabel(""))
			hideWindow(p.win)
		}
		if p.onEmpty != nil {
			p.onEmpty()
		}
		return
	}
	if p.win == nil {
		p.win = p.app.NewWindow("")
		p.win.SetCloseIntercept(func() { hideWindow(p.win) })
		p.win.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
			if p.view == nil {
				return
			}
			switch k.Name {
			case fyne.KeyEscape:
				p.view.send(inbox.ActionCancel)
			case fyne.KeyReturn, fyne.KeyEnter:
				p.view.send(inbox.ActionAccept)
			}
		})
		p.more = widget.NewLabel("")
		p.more.Importance = widget.LowImportance
	}
	req := p.queue[0]
	p.view = newRequestView(req, p.now, p.answer, p.done)
	p.setMore()
	p.win.SetTitle(req.Server)
	p.win.SetContent(container.NewBorder(nil, p.more, nil, nil, container.NewVScroll(p.view.root)))
	p.win.Resize(fyne.NewSize(480, min(p.view.root.MinSize().Height+80, 640)))
	showWindow(p.win)
	p.win.RequestFocus()
	p.win.Canvas().Focus(p.view.first())
	if p.onShow != nil {
		p.onShow()
	}
}

// raise brings the popup to the front, when it shows a request.
func (p *popup) raise() {
	if p.view == nil {
		return
	}
	showWindow(p.win)
	p.win.RequestFocus()
}

func (p *popup) setMore() {
	switch n := len(p.queue) - 1; {
	case n <= 0:
		p.more.SetText("")
		p.more.Hide()
	case n == 1:
		p.more.SetText("1 more request waits after this one.")
		p.more.Show()
	default:
		p.more.SetText(fmt.Sprintf("%d more requests wait after this one.", n))
		p.more.Show()
	}
}

// tick updates the countdown.
func (p *popup) tick() {
	if p.view != nil {
		p.view.tick()
	}
}
