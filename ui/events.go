package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/events"
)

// eventsShown is how many of the newest events the Events tab lists.
const eventsShown = 200

// eventsList is what the Events tab shows: the newest events and how many
// are unread. Read by the events follower off the main goroutine, applied
// on it.
type eventsList struct {
	events []events.Event // newest first
	unread int
	err    error
}

// loadEvents reads the newest events and the unread count from the core.
func loadEvents(c Core) eventsList {
	evs, err := c.Events(events.Filter{All: true, Newest: true, Limit: eventsShown})
	if err != nil {
		return eventsList{err: err}
	}
	for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
		evs[i], evs[j] = evs[j], evs[i]
	}
	n, err := c.UnackedEvents()
	return eventsList{events: evs, unread: n, err: err}
}

// eventsScreen is the Events tab: the servers' events, newest first, the
// unread ones marked, each with Mark read, and Mark all read; the selected
// event's params below. Main goroutine only.
type eventsScreen struct {
	core    Core
	onError func(error)
	now     func() time.Time // the clock; its location is the one shown

	list     eventsList
	selected int64 // the event whose params are shown; 0 for none
	rows     *widget.List
	count    *widget.Label
	allRead  *widget.Button
	detail   *widget.Label
	problem  *widget.Label
	root     fyne.CanvasObject
}

// Positions of the widgets in an event row.
const (
	evColMark = iota
	evColTime
	evColServer
	evColTitle
	evColRead
)

var eventColumns = columns{28, 90, 120, 500}

func newEventsScreen(c Core, now func() time.Time, onError func(error)) *eventsScreen {
	s := &eventsScreen{core: c, onError: onError, now: now}
	s.rows = widget.NewList(
		func() int { return len(s.list.events) },
		func() fyne.CanvasObject {
			title := widget.NewLabel("")
			title.Truncation = fyne.TextTruncateEllipsis
			read := widget.NewButtonWithIcon("", theme.ConfirmIcon(), nil)
			read.Importance = widget.LowImportance
			return container.New(eventColumns, widget.NewIcon(nil), widget.NewLabel(""), widget.NewLabel(""), title,
				container.NewHBox(read))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(s.list.events) {
				s.updateRow(o.(*fyne.Container), s.list.events[id])
			}
		})
	s.rows.OnSelected = func(id widget.ListItemID) {
		if id < len(s.list.events) {
			s.selected = s.list.events[id].ID
			s.showDetail()
		}
	}
	s.count = widget.NewLabel("")
	s.allRead = widget.NewButtonWithIcon("Mark all read", theme.ConfirmIcon(), func() {
		s.ack(events.AckRequest{All: true}, "marking every event read")
	})
	s.problem = widget.NewLabel("")
	s.problem.Importance = widget.DangerImportance
	s.problem.Wrapping = fyne.TextWrapWord
	s.problem.Hide()
	s.detail = widget.NewLabelWithStyle("Select an event to see what the server sent.", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	s.detail.Wrapping = fyne.TextWrapBreak

	top := container.NewVBox(container.NewBorder(nil, nil, nil, s.allRead, s.count), s.problem)
	split := container.NewVSplit(s.rows, container.NewVScroll(s.detail))
	split.Offset = 0.65
	s.root = container.NewBorder(top, nil, nil, nil, split)
	return s
}

func (s *eventsScreen) updateRow(row *fyne.Container, ev events.Event) {
	unread := ev.Acked == nil
	mark := row.Objects[evColMark].(*widget.Icon)
	if unread {
		mark.SetResource(theme.NewPrimaryThemedResource(theme.RadioButtonCheckedIcon()))
	} else {
		mark.SetResource(nil)
	}
	style := fyne.TextStyle{Bold: unread}
	setLabel := func(col int, text string) {
		l := row.Objects[col].(*widget.Label)
		l.TextStyle = style
		l.SetText(text)
	}
	setLabel(evColTime, eventTime(ev.Received, s.now()))
	setLabel(evColServer, ev.Server)
	title, _ := ev.Summary()
	if title != ev.Method {
		title += "  ·  " + ev.Method
	}
	setLabel(evColTitle, title)
	read := row.Objects[evColRead].(*fyne.Container).Objects[0].(*widget.Button)
	id := ev.ID
	read.OnTapped = func() { s.ack(events.AckRequest{IDs: []int64{id}}, "marking the event read") }
	if unread {
		read.Show()
	} else {
		read.Hide()
	}
}

// eventTime is when an event came, short: the time on the day of now,
// else the date, in now's time zone.
func eventTime(t, now time.Time) string {
	t = t.In(now.Location())
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04:05")
	}
	return t.Format("Jan 2 15:04")
}

// set shows what the core has.
func (s *eventsScreen) set(l eventsList) {
	s.list = l
	if l.err != nil {
		s.problem.SetText("Reading the events: " + l.err.Error())
		s.problem.Show()
	} else {
		s.problem.Hide()
	}
	switch {
	case len(l.events) == 0:
		s.count.SetText("No events yet. Servers send them for new mail, calendar changes and the like.")
	case l.unread == 0:
		s.count.SetText("Every event is read.")
	case l.unread == 1:
		s.count.SetText("1 unread event.")
	default:
		s.count.SetText(fmt.Sprintf("%d unread events.", l.unread))
	}
	if l.unread == 0 {
		s.allRead.Disable()
	} else {
		s.allRead.Enable()
	}
	s.rows.Refresh()
	s.showDetail()
}

// showDetail shows the selected event's params.
func (s *eventsScreen) showDetail() {
	for _, ev := range s.list.events {
		if ev.ID != s.selected {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s  %s  %s\n", ev.Received.In(s.now().Location()).Format(time.DateTime), ev.Server, ev.Method)
		var pretty any
		if json.Unmarshal(ev.Params, &pretty) == nil {
			p, _ := json.MarshalIndent(pretty, "", "  ")
			b.Write(p)
		} else {
			b.Write(ev.Params)
		}
		s.detail.SetText(b.String())
		return
	}
}

// ack acknowledges events; the new list comes back through the
// subscription.
func (s *eventsScreen) ack(req events.AckRequest, doing string) {
	if _, err := s.core.AckEvents(req); err != nil {
		s.onError(fmt.Errorf("%s: %w", doing, err))
	}
}
