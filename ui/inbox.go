package ui

import (
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/inbox"
)

// maxOutcomes is how many closed requests the Inbox tab lists.
const maxOutcomes = 50

// outcome is a closed request as the Inbox tab lists it: never a value.
type outcome struct {
	req     inbox.Request
	outcome string // accept, decline, cancel, timeout; "completed" for a finished URL
	by      string // ui, cli, deadline, server, complete, …
	at      time.Time
}

// inboxScreen is the Inbox tab: the waiting requests, each with the same
// form as the popup, then the recent outcomes (who answered what, never a
// value). Main goroutine only.
type inboxScreen struct {
	now    func() time.Time
	answer func(id string, a inbox.Answer) error
	done   func(id string)

	views    []*requestView // the waiting requests, oldest first
	outcomes []outcome      // newest first
	pending  *fyne.Container
	empty    *widget.Label
	recent   *widget.List
	root     fyne.CanvasObject
}

func newInboxScreen(now func() time.Time, answer func(string, inbox.Answer) error, done func(string)) *inboxScreen {
	s := &inboxScreen{now: now, answer: answer, done: done, pending: container.NewVBox()}
	s.empty = widget.NewLabel("Nothing waits for you. When a server asks for a password or a choice, it shows here and in a popup.")
	s.empty.Wrapping = fyne.TextWrapWord
	s.empty.Importance = widget.LowImportance
	s.recent = widget.NewList(
		func() int { return len(s.outcomes) },
		func() fyne.CanvasObject {
			msg := widget.NewLabel("")
			msg.Truncation = fyne.TextTruncateEllipsis
			return container.New(columns{70, 120, 150}, widget.NewLabel(""), widget.NewLabel(""), widget.NewLabel(""), msg)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(s.outcomes) {
				return
			}
			oc := s.outcomes[id]
			row := o.(*fyne.Container).Objects
			row[0].(*widget.Label).SetText(oc.at.Format("15:04"))
			row[1].(*widget.Label).SetText(oc.req.Server)
			out := row[2].(*widget.Label)
			out.SetText(outcomeText(oc))
			out.Importance = outcomeImportance(oc.outcome)
			out.Refresh()
			row[3].(*widget.Label).SetText(oc.req.Message)
		})
	s.recent.OnSelected = func(id widget.ListItemID) { s.recent.Unselect(id) }
	waiting := container.NewVBox(
		widget.NewLabelWithStyle("Waiting for you", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		s.empty, s.pending)
	recent := widget.NewLabelWithStyle("Recent answers (never the values)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	split := container.NewVSplit(container.NewVScroll(waiting), container.NewBorder(recent, nil, nil, nil, s.recent))
	split.Offset = 0.6
	s.root = split
	return s
}

// add shows a waiting request.
func (s *inboxScreen) add(req inbox.Request) {
	if slices.ContainsFunc(s.views, func(v *requestView) bool { return v.req.ID == req.ID }) {
		return
	}
	s.views = append(s.views, newRequestView(req, s.now, s.answer, s.done))
	slices.SortStableFunc(s.views, func(a, b *requestView) int { return a.req.Created.Compare(b.req.Created) })
	s.layout()
}

// remove takes request id off the screen.
func (s *inboxScreen) remove(id string) {
	i := slices.IndexFunc(s.views, func(v *requestView) bool { return v.req.ID == id })
	if i < 0 {
		return
	}
	if f := s.views[i].form; f != nil {
		f.clear()
	}
	s.views = slices.Delete(s.views, i, i+1)
	s.layout()
}

func (s *inboxScreen) layout() {
	s.pending.RemoveAll()
	for _, v := range s.views {
		s.pending.Add(widget.NewCard("", "", v.root))
	}
	if len(s.views) == 0 {
		s.empty.Show()
	} else {
		s.empty.Hide()
	}
}

// closed records a request's outcome.
func (s *inboxScreen) closed(oc outcome) {
	s.outcomes = slices.Insert(s.outcomes, 0, oc)
	if len(s.outcomes) > maxOutcomes {
		s.outcomes = s.outcomes[:maxOutcomes]
	}
	s.recent.Refresh()
}

// tick updates the countdowns.
func (s *inboxScreen) tick() {
	for _, v := range s.views {
		v.tick()
	}
}

func outcomeText(oc outcome) string {
	var what string
	switch oc.outcome {
	case inbox.ActionAccept:
		what = "answered"
	case inbox.ActionDecline:
		what = "declined"
	case inbox.ActionCancel:
		what = "cancelled"
	case "timeout":
		return "timed out"
	case "completed":
		return "completed"
	default:
		what = oc.outcome
	}
	switch oc.by {
	case "", "ui":
		return what
	case inbox.ClosedByServer:
		return "withdrawn"
	case inbox.ClosedByComplete:
		return "completed"
	}
	return what + " (" + oc.by + ")"
}

func outcomeImportance(o string) widget.Importance {
	switch o {
	case inbox.ActionAccept, "completed":
		return widget.SuccessImportance
	case "timeout":
		return widget.WarningImportance
	}
	return widget.MediumImportance
}
