package ui

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/events"
)

// threeEvents are stored events, oldest first (as Core.Events returns
// them): one read, two unread.
func threeEvents() []events.Event {
	read := testNow.Add(-time.Hour)
	return []events.Event{
		{ID: 1, Server: "gcal", Method: "event/new_calendar_event", Params: json.RawMessage(`{"summary":"Standup","start":"2026-07-03T09:00:00Z"}`),
			Received: testNow.Add(-2 * time.Hour), Acked: &read},
		{ID: 2, Server: "gmail", Method: "event/new_email", Params: json.RawMessage(`{"subject":"Invoice 4471","from":"billing@example.com"}`),
			Received: testNow.Add(-10 * time.Minute)},
		{ID: 3, Server: "feeds", Method: "event/ping", Params: json.RawMessage(`{}`), Received: testNow.Add(-time.Minute)},
	}
}

// eventsCore is a fake core holding events.
func eventsCore(evs []events.Event, acks *[]events.AckRequest) *fakeCore {
	return &fakeCore{
		events: func(f events.Filter) ([]events.Event, error) {
			if !f.All || !f.Newest || f.Limit != eventsShown {
				return nil, errors.New("unexpected filter")
			}
			return append([]events.Event(nil), evs...), nil
		},
		unacked: func() (int, error) {
			n := 0
			for _, e := range evs {
				if e.Acked == nil {
					n++
				}
			}
			return n, nil
		},
		ackEvents: func(r events.AckRequest) (int, error) {
			*acks = append(*acks, r)
			return 1, nil
		},
	}
}

// eventRows are the laid-out rows of the Events tab, top to bottom.
func eventRows(w fyne.Window) []*fyne.Container {
	var rows []*fyne.Container
	for _, o := range test.LaidOutObjects(w.Canvas().Content()) {
		if c, ok := o.(*fyne.Container); ok && len(c.Objects) == evColRead+1 {
			if _, ok := c.Objects[evColMark].(*widget.Icon); ok {
				rows = append(rows, c)
			}
		}
	}
	return rows
}

func TestEventsNewestFirstUnreadMarked(t *testing.T) {
	var acks []events.AckRequest
	c := eventsCore(threeEvents(), &acks)
	d, host := testDesktop(t, c)
	d.applyEvents(loadEvents(c))
	d.open(tabEvents)
	rows := eventRows(d.win)
	if len(rows) != 3 {
		t.Fatalf("%d event rows, want 3", len(rows))
	}
	var got []string
	for _, r := range rows {
		title := r.Objects[evColTitle].(*widget.Label)
		unread := r.Objects[evColMark].(*widget.Icon).Resource != nil
		if unread != title.TextStyle.Bold {
			t.Errorf("row %q: marker %v but bold %v", title.Text, unread, title.TextStyle.Bold)
		}
		mark := ""
		if unread {
			mark = "* "
		}
		got = append(got, mark+r.Objects[evColTime].(*widget.Label).Text+" "+r.Objects[evColServer].(*widget.Label).Text+" "+title.Text)
	}
	want := []string{
		"* 11:59:00 feeds event/ping",
		"* 11:50:00 gmail Invoice 4471  ·  event/new_email",
		"10:00:00 gcal Standup  ·  event/new_calendar_event",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := d.screen().events.count.Text; got != "2 unread events." {
		t.Errorf("count %q", got)
	}
	if !strings.Contains(menuText(host.last()), "Events (2 new)…") {
		t.Errorf("tray menu:\n%s", menuText(host.last()))
	}

	// Mark read on the gmail row, then Mark all read.
	test.Tap(rows[1].Objects[evColRead].(*fyne.Container).Objects[0].(*widget.Button))
	test.Tap(d.screen().events.allRead)
	want2 := []events.AckRequest{{IDs: []int64{2}}, {All: true}}
	if !reflect.DeepEqual(acks, want2) {
		t.Errorf("AckEvents calls %+v, want %+v", acks, want2)
	}
	if rows[2].Objects[evColRead].(*fyne.Container).Objects[0].(*widget.Button).Visible() {
		t.Error("a read event offers Mark read")
	}
}

func TestEventsDetailShowsParams(t *testing.T) {
	var acks []events.AckRequest
	c := eventsCore(threeEvents(), &acks)
	d, _ := testDesktop(t, c)
	d.applyEvents(loadEvents(c))
	d.screen().events.rows.Select(1)
	want := "2026-07-03 11:50:00  gmail  event/new_email\n{\n  \"from\": \"billing@example.com\",\n  \"subject\": \"Invoice 4471\"\n}"
	if got := d.screen().events.detail.Text; got != want {
		t.Errorf("detail:\n%s\nwant:\n%s", got, want)
	}
}

func TestEventsAllReadAndEmpty(t *testing.T) {
	d, host := testDesktop(t, &fakeCore{})
	d.applyEvents(eventsList{})
	s := d.screen().events
	if !strings.HasPrefix(s.count.Text, "No events yet.") || !s.allRead.Disabled() {
		t.Errorf("empty: count %q, Mark all read disabled %v", s.count.Text, s.allRead.Disabled())
	}
	evs := threeEvents()
	for i := range evs {
		evs[i].Acked = &testNow
	}
	d.applyEvents(eventsList{events: evs})
	if s.count.Text != "Every event is read." || !s.allRead.Disabled() {
		t.Errorf("all read: count %q, Mark all read disabled %v", s.count.Text, s.allRead.Disabled())
	}
	if !strings.Contains(menuText(host.last()), "\nEvents…\n") {
		t.Errorf("tray menu with nothing unread:\n%s", menuText(host.last()))
	}
}

func TestEventsErrors(t *testing.T) {
	c := &fakeCore{
		events:    func(events.Filter) ([]events.Event, error) { return nil, errors.New("database is locked") },
		ackEvents: func(events.AckRequest) (int, error) { return 0, errors.New("database is locked") },
	}
	m, _, rec := showMain(t, c, twoServers())
	s := m.events
	s.set(loadEvents(c))
	if !s.problem.Visible() || s.problem.Text != "Reading the events: database is locked" {
		t.Errorf("problem %q", s.problem.Text)
	}
	s.set(eventsList{events: threeEvents(), unread: 2})
	test.Tap(s.allRead)
	if len(rec.errors) != 1 || rec.errors[0] != "marking every event read: database is locked" {
		t.Errorf("errors shown %q", rec.errors)
	}
}

func TestFollowLoadCoalescesAndStops(t *testing.T) {
	changes := make(chan int, 10)
	loads := make(chan int, 10)
	applied := make(chan int, 10)
	n := 0
	block := make(chan struct{})
	stop := followLoad(changes, func() int {
		<-block
		n++
		loads <- n
		return n
	}, func(v int) { applied <- v })
	changes <- 1
	changes <- 2
	changes <- 3
	close(block) // the first load may take 1 or all three
	select {
	case <-applied:
	case <-time.After(10 * time.Second):
		t.Fatal("nothing applied within 10s")
	}
	stop()
	stop()
	if len(loads) > 2 {
		t.Errorf("%d loads for 3 queued changes, want them coalesced", len(loads)+1)
	}
}

func TestNotifierNeverBlocks(t *testing.T) {
	n := NewNotifier()
	for i := 0; i < 100; i++ {
		n.Notify(events.Notification{Server: "gmail", Title: "gmail: Invoice"})
	}
	if len(n.ch) != cap(n.ch) {
		t.Errorf("%d queued of %d", len(n.ch), cap(n.ch))
	}
}
