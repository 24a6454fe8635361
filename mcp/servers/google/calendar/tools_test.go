package calendar

import (
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	gcal "google.golang.org/api/calendar/v3"
)

// TestEveryToolIsDescribed: the exact tool names, each with its hints
// set and an output schema.
func TestEveryToolIsDescribed(t *testing.T) {
	e := newEnv(t)
	res, err := e.client.ListTools(t.Context(), nil)
	must(t, err)
	want := map[string]bool{"list_calendars": true, "list_events": true, "get_event": true, "create_event": false,
		"update_event": false, "delete_event": false, "respond_to_event": false, "find_free_time": true, "current_time": true}
	if len(res.Tools) != len(want) {
		t.Errorf("%d tools, want %d", len(res.Tools), len(want))
	}
	for _, tool := range res.Tools {
		ro, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.ReadOnlyHint != ro {
			t.Errorf("%s: annotations %+v, want readOnly %v and destructive set", tool.Name, a, ro)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
	}
}

func TestListCalendars(t *testing.T) {
	e := newEnv(t)
	e.accounts.signIn(bob)
	e.fake.AddCalendar(ada, googletest.Calendar{ID: "team@group.calendar.google.com", Summary: "Team", TimeZone: "America/New_York", Selected: true})
	var out listCalendarsOut
	txt := e.call("list_calendars", nil, &out)
	if len(out.Calendars) != 2 || !out.Calendars[0].Primary || out.Calendars[1].TimeZone != "America/New_York" || out.Calendars[0].Account != ada {
		t.Errorf("ada's calendars: %+v", out.Calendars)
	}
	if !strings.Contains(txt, "Team [team@group.calendar.google.com]") {
		t.Errorf("text mirror: %s", txt)
	}
	e.call("list_calendars", map[string]any{"account": "all"}, &out)
	if len(out.Calendars) != 3 || out.Calendars[2].Account != bob {
		t.Errorf("all accounts: %+v", out.Calendars)
	}
	e.callErr("list_calendars", map[string]any{"account": "eve@example.com"}, "no Google account eve@example.com", ada, bob)
	e.callErr("create_event", map[string]any{"account": "all", "summary": "x", "start": "2026-12-03"}, `account "all" is only for the reading tools`)
}

func TestListEventsFollowsEveryPage(t *testing.T) {
	e := newEnv(t)
	e.fake.AddCalendar(ada, googletest.Calendar{ID: "team", Summary: "Team", TimeZone: "Europe/Berlin", Selected: true})
	e.fake.AddCalendar(ada, googletest.Calendar{ID: "hidden", Summary: "Hidden", TimeZone: "Europe/Berlin", Selected: false})
	start := time.Now().Add(time.Hour).Truncate(time.Minute)
	for i := range 300 {
		e.add(ada, "primary", timed("Focus", start.Add(time.Duration(i)*10*time.Minute), 5*time.Minute, ""))
	}
	e.add(ada, "team", timed("Team sync", start.Add(25*time.Minute), time.Hour, ""))
	e.add(ada, "hidden", timed("Not shown", start, time.Hour, ""))
	e.add(ada, "primary", timed("Next month", start.AddDate(0, 1, 0), time.Hour, ""))
	var out listEventsOut
	txt := e.call("list_events", nil, &out)
	if !strings.Contains(txt, "… and 251 more") || strings.Count(txt, "\n") != 51 {
		t.Errorf("the text mirror is not short: %d lines", strings.Count(txt, "\n"))
	}
	if len(out.Events) != 301 || out.Truncated {
		t.Fatalf("%d events (truncated %v), want 300 + 1 from the selected calendars", len(out.Events), out.Truncated)
	}
	if out.Events[3].Summary != "Team sync" || out.Events[3].CalendarID != "team" {
		t.Errorf("events are not merged by start: %+v", out.Events[:4])
	}
	if n := e.fake.CalendarRequests("GET /calendar/v3/calendars/primary/events") + e.fake.CalendarRequests("GET /calendar/v3/calendars/"+ada+"/events"); n < 2 {
		t.Errorf("%d list requests on the primary calendar: paging not followed", n)
	}
	e.call("list_events", map[string]any{"calendar_id": "team", "query": "sync"}, &out)
	if len(out.Events) != 1 || out.Events[0].Summary != "Team sync" {
		t.Errorf("query: %+v", out.Events)
	}
	e.call("list_events", map[string]any{"max_results": 10}, &out)
	if len(out.Events) != 10 || !out.Truncated {
		t.Errorf("max_results 10: %d events, truncated %v", len(out.Events), out.Truncated)
	}
	e.callErr("list_events", map[string]any{"calendar_id": "nope"}, `no calendar "nope"`, "list_calendars")
	e.callErr("list_events", map[string]any{"time_min": "2026-12-03T09:00"}, "time_min", "no UTC offset")
	e.callErr("list_events", map[string]any{"time_min": "2026-12-05T00:00:00Z", "time_max": "2026-12-04T00:00:00Z"}, "time_max", "after time_min")
}

func TestCreateEventTimesAndZones(t *testing.T) {
	e := newEnv(t)
	var out createEventOut
	// A local time with time_zone: stored at that wall time, with the offset and zone.
	e.call("create_event", map[string]any{"summary": "Call", "start": "2026-07-01T09:00", "end": "2026-07-01T09:30", "time_zone": "America/New_York"}, &out)
	if out.Event.Start.DateTime != "2026-07-01T09:00:00-04:00" || out.Event.Start.TimeZone != "America/New_York" || out.Event.AllDay {
		t.Errorf("local time with time_zone: %+v", out.Event.Start)
	}
	// RFC 3339 without time_zone: the calendar's zone (Europe/Berlin), same instant.
	e.call("create_event", map[string]any{"summary": "Lunch", "start": "2026-07-01T10:00:00Z", "end": "2026-07-01T11:00:00Z"}, &out)
	if out.Event.Start.DateTime != "2026-07-01T12:00:00+02:00" || out.Event.Start.TimeZone != "Europe/Berlin" {
		t.Errorf("RFC 3339 in the calendar's zone: %+v", out.Event.Start)
	}
	stored, _ := e.fake.Event(ada, "primary", out.Event.ID)
	if stored.Start.DateTime != out.Event.Start.DateTime {
		t.Errorf("the result is not what Google stored: %+v vs %+v", out.Event.Start, stored.Start)
	}
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-07-01T09:00", "end": "2026-07-01T10:00:00Z"}, "start", "no UTC offset", "time_zone")
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-07-01T09:00:00Z", "end": "2026-07-01T10:00"}, "end", "no UTC offset")
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-07-01T09:00", "end": "2026-07-01T10:00", "time_zone": "Mars/Base"}, "time_zone", "Mars/Base", "IANA")
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-07-01T10:00:00Z", "end": "2026-07-01T09:00:00Z"}, "end", "not after start")
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-07-01", "end": "2026-07-01T09:00:00Z"}, "both be dates")
	e.callErr("create_event", map[string]any{"summary": "x", "start": "tomorrow at 9"}, "start", "not a time")
	e.callErr("create_event", map[string]any{"start": "2026-07-01"}, "summary", "required")
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-07-01T09:00:00Z"}, "end is required")
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-07-01", "calendar_id": "nope"}, `no calendar "nope"`)
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-07-01", "attendees": []string{"bob"}}, "attendees", "not an email")
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-07-01", "send_updates": "everyone"}, "send_updates")
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-07-01", "recurrence": []string{"FREQ=DAILY"}}, "recurrence", "RRULE:")
}

// TestAllDayEventsStayDates: all-day events are dates in and out, in a
// zone behind UTC and one ahead of it — never shifted a day.
func TestAllDayEventsStayDates(t *testing.T) {
	e := newEnv(t)
	e.fake.AddCalendar(ada, googletest.Calendar{ID: "la", Summary: "LA", TimeZone: "America/Los_Angeles", Selected: true})
	e.fake.AddCalendar(ada, googletest.Calendar{ID: "tokyo", Summary: "Tokyo", TimeZone: "Asia/Tokyo", Selected: true})
	for _, cal := range []string{"primary", "la", "tokyo"} {
		var out createEventOut
		e.call("create_event", map[string]any{"calendar_id": cal, "summary": "Holiday " + cal, "start": "2026-12-24"}, &out)
		ev := out.Event
		if !ev.AllDay || ev.Start.Date != "2026-12-24" || ev.End.Date != "2026-12-25" || ev.LastDay != "2026-12-24" || ev.Start.DateTime != "" {
			t.Errorf("%s: one day: %+v %+v last %s", cal, ev.Start, ev.End, ev.LastDay)
		}
		e.call("create_event", map[string]any{"calendar_id": cal, "summary": "Trip " + cal, "start": "2026-12-27", "end": "2026-12-30"}, &out)
		if out.Event.Start.Date != "2026-12-27" || out.Event.End.Date != "2026-12-30" || out.Event.LastDay != "2026-12-29" {
			t.Errorf("%s: several days: %+v", cal, out.Event)
		}
		var got eventOut
		e.call("get_event", map[string]any{"calendar_id": cal, "event_id": out.Event.ID}, &got)
		if got.Event.Start.Date != "2026-12-27" || got.Event.End.Date != "2026-12-30" {
			t.Errorf("%s: get_event shifted it: %+v", cal, got.Event)
		}
		var list listEventsOut
		e.call("list_events", map[string]any{"calendar_id": cal, "time_min": "2026-12-24", "time_max": "2026-12-25"}, &list)
		if len(list.Events) != 1 || list.Events[0].Start.Date != "2026-12-24" {
			t.Errorf("%s: the day's list: %+v", cal, list.Events)
		}
	}
	e.callErr("create_event", map[string]any{"summary": "x", "start": "2026-12-24", "end": "2026-12-20"}, "not after start")
}

func TestCreateEventWithEverything(t *testing.T) {
	e := newEnv(t)
	loc := berlin(t)
	at := tomorrowAt(loc, 10, 0)
	other := e.add(ada, "primary", timed("Dentist", at.Add(30*time.Minute), time.Hour, "Europe/Berlin"))
	e.add(ada, "primary", timed("Later", at.Add(3*time.Hour), time.Hour, "Europe/Berlin"))
	var out createEventOut
	txt := e.call("create_event", map[string]any{"summary": "Planning", "start": at.Format(time.RFC3339), "end": at.Add(time.Hour).Format(time.RFC3339),
		"location": "Room 1", "description": "Q1", "attendees": []string{bob}, "add_meet_link": true, "reminders": []int{5, 30},
		"send_updates": "all", "recurrence": []string{"RRULE:FREQ=WEEKLY;COUNT=4"}}, &out)
	ev := out.Event
	if !strings.HasPrefix(ev.MeetLink, "https://meet.google.com/") || !strings.Contains(txt, ev.MeetLink) {
		t.Errorf("meet link %q (text %s)", ev.MeetLink, txt)
	}
	if len(ev.Attendees) != 1 || ev.Attendees[0].Email != bob || ev.Attendees[0].ResponseStatus != "needsAction" {
		t.Errorf("attendees %+v", ev.Attendees)
	}
	if len(ev.Reminders) != 2 || ev.Reminders[1] != 30 || ev.Location != "Room 1" || ev.Recurrence[0] != "RRULE:FREQ=WEEKLY;COUNT=4" || ev.Organizer != ada {
		t.Errorf("stored %+v", ev)
	}
	if e.fake.SentUpdates(ev.ID) != "all" {
		t.Errorf("sendUpdates %q", e.fake.SentUpdates(ev.ID))
	}
	if len(out.Overlapping) != 1 || out.Overlapping[0].ID != other.Id || !strings.Contains(txt, "overlaps") {
		t.Errorf("overlapping %+v", out.Overlapping)
	}
}

func TestGetEvent(t *testing.T) {
	e := newEnv(t)
	ev := e.add(ada, "primary", timed("Standup", tomorrowAt(berlin(t), 9, 0), 15*time.Minute, "Europe/Berlin"))
	var out eventOut
	txt := e.call("get_event", map[string]any{"event_id": ev.Id}, &out)
	if out.Event.Summary != "Standup" || out.Event.HTMLLink == "" || !strings.Contains(txt, "Standup") {
		t.Errorf("get_event: %+v %s", out.Event, txt)
	}
	e.callErr("get_event", map[string]any{"event_id": "nosuchevent"}, `no event "nosuchevent"`, "list_events")
	e.callErr("get_event", nil, "event_id is required")
	e.callErr("get_event", map[string]any{"event_id": ev.Id, "calendar_id": "nope"}, `no event`)
}

func TestUpdateEventPatches(t *testing.T) {
	e := newEnv(t)
	loc := berlin(t)
	at := tomorrowAt(loc, 9, 0)
	ev := e.add(ada, "primary", &gcal.Event{Summary: "Review", Location: "Room 2", Description: "notes",
		Start:     &gcal.EventDateTime{DateTime: at.Format(time.RFC3339), TimeZone: "Europe/Berlin"},
		End:       &gcal.EventDateTime{DateTime: at.Add(45 * time.Minute).Format(time.RFC3339), TimeZone: "Europe/Berlin"},
		Attendees: []*gcal.EventAttendee{{Email: bob, ResponseStatus: "accepted"}}})
	var out updateEventOut
	e.call("update_event", map[string]any{"event_id": ev.Id, "summary": "Design review"}, &out)
	if out.Event.Summary != "Design review" || out.Event.Location != "Room 2" || out.Event.Description != "notes" || out.Event.Start.DateTime != ev.Start.DateTime {
		t.Errorf("only summary should change: %+v", out.Event)
	}
	later := at.Add(2 * time.Hour)
	e.call("update_event", map[string]any{"event_id": ev.Id, "start": later.Format(time.RFC3339), "description": "", "attendees": []string{bob, "cy@example.com"}}, &out)
	end, _ := time.Parse(time.RFC3339, out.Event.End.DateTime)
	if !end.Equal(later.Add(45*time.Minute)) || out.Event.Description != "" {
		t.Errorf("moving the start keeps the length; empty description removes it: %+v", out.Event)
	}
	if len(out.Event.Attendees) != 2 || out.Event.Attendees[0].ResponseStatus != "accepted" {
		t.Errorf("a staying guest keeps the answer: %+v", out.Event.Attendees)
	}
	e.call("update_event", map[string]any{"event_id": ev.Id, "start": "2026-12-24"}, &out)
	if !out.Event.AllDay || out.Event.Start.Date != "2026-12-24" || out.Event.End.Date != "2026-12-25" {
		t.Errorf("to all-day: %+v", out.Event)
	}
	e.callErr("update_event", map[string]any{"event_id": ev.Id, "end": "2026-12-20"}, "end", "not after start")
	e.callErr("update_event", map[string]any{"event_id": ev.Id, "start": "2026-12-24T09:00"}, "start", "no UTC offset")
	e.callErr("update_event", map[string]any{"event_id": "missing1"}, `no event "missing1"`)
	e.callErr("update_event", map[string]any{"event_id": ev.Id, "scope": "some"}, "scope", "this, following or all")
}

func TestRespondToEvent(t *testing.T) {
	e := newEnv(t)
	inv := &gcal.Event{Summary: "Offsite", Organizer: &gcal.EventOrganizer{Email: bob},
		Attendees: []*gcal.EventAttendee{{Email: bob, ResponseStatus: "accepted"}, {Email: ada}}}
	at := tomorrowAt(berlin(t), 14, 0)
	inv.Start, inv.End = timed("", at, time.Hour, "").Start, timed("", at, time.Hour, "").End
	ev := e.add(ada, "primary", inv)
	var out eventOut
	e.call("respond_to_event", map[string]any{"event_id": ev.Id, "response": "tentative", "comment": "may be late"}, &out)
	if out.Event.MyResponse != "tentative" {
		t.Errorf("my response %q: %+v", out.Event.MyResponse, out.Event.Attendees)
	}
	stored, _ := e.fake.Event(ada, "primary", ev.Id)
	if stored.Attendees[1].Comment != "may be late" || stored.Attendees[0].ResponseStatus != "accepted" || e.fake.SentUpdates(ev.Id) != "all" {
		t.Errorf("stored %+v %+v", stored.Attendees[0], stored.Attendees[1])
	}
	e.callErr("respond_to_event", map[string]any{"event_id": ev.Id, "response": "maybe"}, "response", "accepted, declined or tentative")
	own := e.add(ada, "primary", timed("Mine", at, time.Hour, ""))
	e.callErr("respond_to_event", map[string]any{"event_id": own.Id, "response": "accepted"}, "organizes")
}

func TestFindFreeTime(t *testing.T) {
	e := newEnv(t)
	e.fake.AddCalendar(ada, googletest.Calendar{ID: "team", Summary: "Team", TimeZone: "Europe/Berlin", Selected: true})
	day := "2026-12-07" // a Monday
	loc := berlin(t)
	d, _ := time.ParseInLocation(dateLayout, day, loc)
	e.add(ada, "primary", timed("A", d.Add(9*time.Hour), 90*time.Minute, ""))
	e.add(ada, "team", timed("B", d.Add(10*time.Hour), 2*time.Hour, ""))
	e.add(ada, "primary", timed("C", d.Add(13*time.Hour), 4*time.Hour, ""))
	free := e.add(ada, "primary", timed("Tentative lunch", d.Add(12*time.Hour), time.Hour, ""))
	e.fake.ChangeEvent(ada, "primary", free.Id, func(ev *gcal.Event) { ev.Transparency = "transparent" })
	var out findFreeTimeOut
	e.call("find_free_time", map[string]any{"time_min": day, "time_max": "2026-12-08", "duration_minutes": 45}, &out)
	if len(out.Busy) != 3 || out.TimeZone != "Europe/Berlin" {
		t.Errorf("busy %+v", out.Busy)
	}
	if len(out.Free) != 1 || out.Free[0].Start != "2026-12-07T12:00:00+01:00" || out.Free[0].End != "2026-12-07T13:00:00+01:00" || out.Free[0].Minutes != 60 {
		t.Errorf("free %+v", out.Free)
	}
	e.call("find_free_time", map[string]any{"time_min": "2026-12-05", "time_max": "2026-12-07", "duration_minutes": 60}, &out)
	if len(out.Free) != 0 {
		t.Errorf("a weekend is not working time: %+v", out.Free)
	}
	e.call("find_free_time", map[string]any{"time_min": "2026-12-05", "time_max": "2026-12-06", "include_weekends": true, "working_hours_start": "10:00", "working_hours_end": "12:00"}, &out)
	if len(out.Free) != 1 || out.Free[0].Minutes != 120 {
		t.Errorf("a Saturday with weekends: %+v", out.Free)
	}
	e.callErr("find_free_time", map[string]any{"working_hours_start": "9am"}, "working_hours_start", "HH:MM")
	e.callErr("find_free_time", map[string]any{"duration_minutes": -5}, "duration_minutes")
	e.callErr("find_free_time", map[string]any{"calendar_ids": []string{"nope"}}, `calendar "nope"`, "notFound")
}

func TestCurrentTime(t *testing.T) {
	e := newEnv(t)
	var out currentTimeOut
	e.call("current_time", nil, &out)
	now, err := time.Parse(time.RFC3339, out.Now)
	must(t, err)
	if out.TimeZone != "Europe/Berlin" || time.Since(now) > time.Minute || now.Format("-07:00") != time.Now().In(berlin(t)).Format("-07:00") {
		t.Errorf("current_time %+v", out)
	}
	e.call("current_time", map[string]any{"time_zone": "Asia/Tokyo"}, &out)
	if out.TimeZone != "Asia/Tokyo" || !strings.HasSuffix(out.Now, "+09:00") {
		t.Errorf("in Tokyo: %+v", out)
	}
	e.callErr("current_time", map[string]any{"time_zone": "Nowhere/City"}, "time_zone", "IANA")
}
