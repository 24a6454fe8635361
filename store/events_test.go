package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func ev(server, method, params string, at time.Time) Event {
	return Event{Server: server, Method: method, Params: json.RawMessage(params), Received: at}
}

func ids(evs []Event) string {
	var b strings.Builder
	for i, e := range evs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, e.ID)
	}
	return b.String()
}

func TestEventsAddListAck(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC)
	batch := []Event{
		ev("gmail", "event/new_email", `{"subject":"hi","n":1}`, t0),
		ev("gcal", "event/new_calendar_event", `{"title":"standup"}`, t0.Add(time.Second)),
		ev("gmail", "event/new_email", ` { "subject" : "spaced" } `, t0.Add(2*time.Second)),
	}
	if err := s.AddEvents(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if got := ids(batch); got != "1,2,3" {
		t.Fatalf("ids after AddEvents = %s", got)
	}
	all, err := s.Events(ctx, EventFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if ids(all) != "1,2,3" || string(all[2].Params) != ` { "subject" : "spaced" } ` || !all[1].Received.Equal(t0.Add(time.Second)) || !all[0].Acked.IsZero() {
		t.Fatalf("Events = %+v", all)
	}
	for name, c := range map[string]struct {
		f    EventFilter
		want string
	}{
		"server":  {EventFilter{Server: "gmail"}, "1,3"},
		"since":   {EventFilter{SinceID: 1}, "2,3"},
		"limit":   {EventFilter{Limit: 2}, "1,2"},
		"newest":  {EventFilter{Limit: 2, Newest: true}, "2,3"},
		"nothing": {EventFilter{Server: "nobody"}, ""},
	} {
		got, err := s.Events(ctx, c.f)
		if err != nil || ids(got) != c.want {
			t.Errorf("%s: Events(%+v) = %s, %v; want %s", name, c.f, ids(got), err, c.want)
		}
		c.f.Limit = 0
		all, _ := s.Events(ctx, c.f)
		if n, err := s.CountEvents(ctx, c.f); err != nil || n != len(all) {
			t.Errorf("%s: CountEvents(%+v) = %d, %v; want %d", name, c.f, n, err, len(all))
		}
	}

	n, err := s.AckEvents(ctx, []int64{1, 3}, t0.Add(time.Minute))
	if err != nil || n != 2 {
		t.Fatalf("AckEvents = %d, %v", n, err)
	}
	if n, err := s.AckEvents(ctx, []int64{1}, t0.Add(time.Hour)); err != nil || n != 0 {
		t.Errorf("acking again = %d, %v; want 0 (already acked)", n, err)
	}
	if got, _ := s.Events(ctx, EventFilter{}); ids(got) != "2" {
		t.Errorf("unacked after ack = %s", ids(got))
	}
	got, _ := s.Events(ctx, EventFilter{All: true})
	if ids(got) != "1,2,3" || !got[0].Acked.Equal(t0.Add(time.Minute)) || !got[1].Acked.IsZero() {
		t.Errorf("all after ack = %+v", got)
	}
	if c, err := s.UnackedEvents(ctx); c != 1 || err != nil {
		t.Errorf("UnackedEvents = %d, %v", c, err)
	}

	_, err = s.AckEvents(ctx, []int64{2, 99, 98, 99}, t0)
	if !errors.Is(err, ErrNoEvent) || err.Error() != "no such event: no events have ids 99, 98" {
		t.Errorf("acking unknown ids: %v", err)
	}
	_, err = s.AckEvents(ctx, []int64{42}, t0)
	if err == nil || err.Error() != "no such event: no event has id 42" {
		t.Errorf("acking an unknown id: %v", err)
	}
	if got, _ := s.Events(ctx, EventFilter{}); ids(got) != "2" {
		t.Errorf("a failed ack changed something: unacked = %s", ids(got))
	}

	s.AddEvents(ctx, []Event{ev("gmail", "event/x", `{}`, t0), ev("gcal", "event/y", `{}`, t0)})
	if n, err := s.AckAllEvents(ctx, "gcal", t0); n != 2 || err != nil {
		t.Errorf("AckAllEvents(gcal) = %d, %v; want 2", n, err)
	}
	if n, err := s.AckAllEvents(ctx, "", t0); n != 1 || err != nil {
		t.Errorf("AckAllEvents() = %d, %v; want 1", n, err)
	}
}

func TestAddEventsRefusesBadEvents(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	good := ev("a", "event/ok", `{}`, now)
	for _, c := range []struct {
		e    Event
		want string
	}{
		{ev("", "event/x", `{}`, now), "storing events: an event has no server name"},
		{ev("a", "", `{}`, now), "storing events: an event of a has no method"},
		{ev("a", "event/x", `{}`, time.Time{}), "storing events: event event/x of a has no receive time"},
		{ev("a", "event/x", `[1,2]`, now), "storing events: event event/x of a: params must be a JSON object"},
		{ev("a", "event/x", ``, now), "storing events: event event/x of a: params must be a JSON object"},
	} {
		err := s.AddEvents(ctx, []Event{good, c.e})
		if err == nil || err.Error() != c.want {
			t.Errorf("AddEvents(%+v) = %v; want %q", c.e, err, c.want)
		}
	}
	if got, _ := s.Events(ctx, EventFilter{All: true}); len(got) != 0 {
		t.Errorf("a refused batch stored %d events", len(got))
	}
}

func TestDeleteAckedEvents(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	old := time.Now().Add(-40 * 24 * time.Hour)
	recent := time.Now().Add(-time.Hour)
	s.AddEvents(ctx, []Event{
		ev("a", "event/old-acked", `{}`, old),
		ev("a", "event/old-unacked", `{}`, old),
		ev("a", "event/recent-acked", `{}`, recent),
	})
	s.AckEvents(ctx, []int64{1, 3}, time.Now())
	n, err := s.DeleteAckedEvents(ctx, time.Now().Add(-30*24*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("DeleteAckedEvents = %d, %v; want 1", n, err)
	}
	got, _ := s.Events(ctx, EventFilter{All: true})
	if ids(got) != "2,3" {
		t.Errorf("left = %s, want 2,3", ids(got))
	}
	// Ids are never reused, even after the newest event is deleted.
	s.AckEvents(ctx, []int64{2, 3}, time.Now())
	s.DeleteAckedEvents(ctx, time.Now().Add(time.Hour))
	e := []Event{ev("a", "event/new", `{}`, time.Now())}
	s.AddEvents(ctx, e)
	if e[0].ID != 4 {
		t.Errorf("new event after deleting the newest got id %d, want 4", e[0].ID)
	}
}

// TestEventsSurviveReopen checks that committed events are on disk.
func TestEventsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	batch := make([]Event, 1000)
	for i := range batch {
		batch[i] = ev("a", "event/n", fmt.Sprintf(`{"n":%d}`, i), time.Now())
	}
	if err := s.AddEvents(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Events(context.Background(), EventFilter{})
	if err != nil || len(got) != 1000 || string(got[999].Params) != `{"n":999}` {
		t.Fatalf("after reopen: %d events, %v", len(got), err)
	}
}

func BenchmarkAddEvents(b *testing.B) {
	s, _ := openTemp(b)
	benchBatches(b, 256, "events/s", func() Event {
		return ev("bench", "event/bench", `{"title":"a benchmark event","n":12345}`, time.Now())
	}, s.AddEvents)
}
