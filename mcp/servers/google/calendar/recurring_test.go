package calendar

import (
	"strings"
	"testing"
	"time"

	gcal "google.golang.org/api/calendar/v3"
)

// series adds a daily standup at 09:00 Berlin, five times from
// tomorrow, and returns it with its occurrences as list_events shows them.
func series(e *env) (*gcal.Event, []Event) {
	e.t.Helper()
	at := tomorrowAt(berlin(e.t), 9, 0)
	ev := timed("Standup", at, 15*time.Minute, "Europe/Berlin")
	ev.Recurrence = []string{"RRULE:FREQ=DAILY;COUNT=5"}
	m := e.add(ada, "primary", ev)
	return m, occurrences(e, m.Id)
}

func occurrences(e *env, seriesID string) []Event {
	e.t.Helper()
	var out listEventsOut
	e.call("list_events", map[string]any{"time_max": time.Now().AddDate(0, 0, 14).Format(time.RFC3339)}, &out)
	var list []Event
	for _, ev := range out.Events {
		if ev.RecurringEventID == seriesID || strings.HasPrefix(ev.RecurringEventID, seriesID) {
			list = append(list, ev)
		}
	}
	return list
}

func summaries(evs []Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.Summary)
	}
	return strings.Join(s, ",")
}

func TestRecurringScopes(t *testing.T) {
	e := newEnv(t)
	m, occ := series(e)
	if len(occ) != 5 || occ[0].Start.DateTime[11:16] != "09:00" {
		t.Fatalf("occurrences %+v", occ)
	}
	var out updateEventOut
	e.call("update_event", map[string]any{"event_id": occ[1].ID, "summary": "Standup (moved)", "start": occ[1].Start.DateTime[:11] + "10:00:00" + occ[1].Start.DateTime[19:]}, &out)
	if out.Event.ID != occ[1].ID || out.Event.RecurringEventID != m.Id {
		t.Errorf("scope this changed %+v", out.Event)
	}
	got := occurrences(e, m.Id)
	if summaries(got) != "Standup,Standup (moved),Standup,Standup,Standup" || got[1].Start.DateTime[11:16] != "10:00" || got[2].Start.DateTime[11:16] != "09:00" {
		t.Errorf("after scope this: %s %+v", summaries(got), got[1].Start)
	}

	// following, from the fourth: the series ends after the third; a new one holds the rest.
	e.call("update_event", map[string]any{"event_id": occ[3].ID, "scope": "following", "summary": "Daily"}, &out)
	if !strings.Contains(out.Note, "new series") || out.Event.ID == m.Id || out.Event.Recurrence[0] != "RRULE:FREQ=DAILY;COUNT=2" {
		t.Errorf("scope following: %+v", out)
	}
	var all listEventsOut
	e.call("list_events", map[string]any{"time_max": time.Now().AddDate(0, 0, 14).Format(time.RFC3339)}, &all)
	if summaries(all.Events) != "Standup,Standup (moved),Standup,Daily,Daily" {
		t.Errorf("after scope following: %s", summaries(all.Events))
	}
	newSeries := out.Event.ID

	// all, from an occurrence: the whole (old) series.
	e.call("update_event", map[string]any{"event_id": occ[0].ID, "scope": "all", "location": "Room 3"}, &out)
	if out.Event.ID != m.Id || out.Event.Location != "Room 3" {
		t.Errorf("scope all: %+v", out.Event)
	}

	// delete this, then following.
	e.call("delete_event", map[string]any{"event_id": occ[2].ID}, nil)
	if got := occurrences(e, m.Id); summaries(got) != "Standup,Standup (moved)" {
		t.Errorf("after deleting one: %s", summaries(got))
	}
	d := occurrences(e, newSeries)
	e.call("delete_event", map[string]any{"event_id": d[1].ID, "scope": "following"}, nil)
	if got := occurrences(e, newSeries); len(got) != 1 {
		t.Errorf("after deleting following: %+v", got)
	}
	var del deleteEventOut
	e.call("delete_event", map[string]any{"event_id": occ[0].ID, "scope": "all"}, &del)
	if del.Deleted != m.Id {
		t.Errorf("delete all deleted %s", del.Deleted)
	}
	if got := occurrences(e, m.Id); len(got) != 0 {
		t.Errorf("after deleting all: %+v", got)
	}

	e.callErr("update_event", map[string]any{"event_id": newSeries, "summary": "x"}, "whole recurring series", `scope "all"`)
	e.callErr("delete_event", map[string]any{"event_id": newSeries}, "whole recurring series")
	e.callErr("delete_event", map[string]any{"event_id": m.Id, "scope": "all"}, "already deleted")
}

// TestRecurringAllDaySeries: a weekly all-day series keeps its dates in
// every occurrence.
func TestRecurringAllDaySeries(t *testing.T) {
	e := newEnv(t)
	var out createEventOut
	e.call("create_event", map[string]any{"summary": "Bins", "start": "2026-12-01", "recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=3"}}, &out)
	var list listEventsOut
	e.call("list_events", map[string]any{"time_min": "2026-11-30", "time_max": "2026-12-31"}, &list)
	var dates []string
	for _, ev := range list.Events {
		dates = append(dates, ev.Start.Date+"/"+ev.End.Date)
	}
	if strings.Join(dates, " ") != "2026-12-01/2026-12-02 2026-12-08/2026-12-09 2026-12-15/2026-12-16" {
		t.Errorf("occurrences %v", dates)
	}
	e.call("delete_event", map[string]any{"event_id": list.Events[1].ID, "scope": "following"}, nil)
	e.call("list_events", map[string]any{"time_min": "2026-11-30", "time_max": "2026-12-31"}, &list)
	if len(list.Events) != 1 || list.Events[0].Start.Date != "2026-12-01" {
		t.Errorf("after deleting following: %+v", list.Events)
	}
}

// TestRecurringAcrossDST: a daily 09:00 in Berlin stays 09:00 local
// across the spring change (its UTC offset moves from +01:00 to +02:00).
func TestRecurringAcrossDST(t *testing.T) {
	e := newEnv(t)
	var out createEventOut
	e.call("create_event", map[string]any{"summary": "Walk", "start": "2027-03-26T09:00", "end": "2027-03-26T09:30",
		"time_zone": "Europe/Berlin", "recurrence": []string{"RRULE:FREQ=DAILY;COUNT=4"}}, &out)
	var list listEventsOut
	e.call("list_events", map[string]any{"time_min": "2027-03-25T00:00:00Z", "time_max": "2027-04-01T00:00:00Z"}, &list)
	var starts []string
	for _, ev := range list.Events {
		starts = append(starts, ev.Start.DateTime)
	}
	if strings.Join(starts, " ") != "2027-03-26T09:00:00+01:00 2027-03-27T09:00:00+01:00 2027-03-28T09:00:00+02:00 2027-03-29T09:00:00+02:00" {
		t.Errorf("occurrences %v", starts)
	}
}

// TestListEventsOfAllAccounts: account "all" merges every account's
// events, each saying whose it is.
func TestListEventsOfAllAccounts(t *testing.T) {
	e := newEnv(t)
	e.accounts.signIn(bob)
	at := tomorrowAt(berlin(t), 9, 0)
	e.add(ada, "primary", timed("Ada's", at.Add(time.Hour), time.Hour, ""))
	e.add(bob, "primary", timed("Bob's", at, time.Hour, ""))
	var out listEventsOut
	e.call("list_events", map[string]any{"account": "all"}, &out)
	if len(out.Events) != 2 || out.Events[0].Account != bob || out.Events[1].Account != ada {
		t.Errorf("all accounts: %+v", out.Events)
	}
	e.call("list_events", map[string]any{"account": bob}, &out)
	if len(out.Events) != 1 || out.Events[0].Summary != "Bob's" {
		t.Errorf("bob's: %+v", out.Events)
	}
}
