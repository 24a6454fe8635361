package calendar

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	gcal "google.golang.org/api/calendar/v3"
)

// TestContractWithDiscovery: every path and query parameter the server
// sends (its tools and its poller, through the real calendar/v3 client,
// recorded by the fake) is a method and parameter of Google's discovery
// document.
func TestContractWithDiscovery(t *testing.T) {
	doc, err := googletest.LoadDiscovery("calendar/v3/calendar-api.json")
	must(t, err)

	e := newEnv(t)
	exerciseEverything(e)

	reqs := e.fake.RecordedCalendarRequests()
	for _, p := range doc.CheckRequests(reqs) {
		t.Error(p)
	}
	used := map[string]bool{}
	for _, r := range reqs {
		if m, _ := doc.Match(r.Method, r.Path); m != nil {
			used[m.ID] = true
		}
	}
	var ids []string
	for id := range used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	want := "calendar.calendarList.get calendar.calendarList.list calendar.events.delete calendar.events.get calendar.events.insert " +
		"calendar.events.instances calendar.events.list calendar.events.patch calendar.freebusy.query"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("methods used:\n%s\nwant (the test must exercise every call the code makes):\n%s", got, want)
	}
}

// exerciseEverything calls every tool, every scope and every kind of sync.
func exerciseEverything(e *env) {
	at := tomorrowAt(berlin(e.t), 9, 0)
	p := e.srv.newPoller()
	e.poll(p)
	var c createEventOut
	e.call("create_event", map[string]any{"summary": "Sync", "start": at.Format(time.RFC3339), "end": at.Add(time.Hour).Format(time.RFC3339),
		"add_meet_link": true, "send_updates": "all", "attendees": []string{bob}, "reminders": []int{10},
		"recurrence": []string{"RRULE:FREQ=DAILY;COUNT=4"}}, &c)
	e.call("list_calendars", nil, nil)
	var l listEventsOut
	e.call("list_events", map[string]any{"query": "Sync", "max_results": 100}, &l)
	e.call("get_event", map[string]any{"event_id": l.Events[0].ID}, nil)
	e.call("update_event", map[string]any{"event_id": l.Events[1].ID, "summary": "x", "send_updates": "none", "add_meet_link": true}, nil)
	e.call("update_event", map[string]any{"event_id": l.Events[2].ID, "scope": "following", "location": "y"}, nil)
	e.call("delete_event", map[string]any{"event_id": l.Events[0].ID, "send_updates": "none"}, nil)
	e.call("delete_event", map[string]any{"event_id": l.Events[1].ID, "scope": "following"}, nil)
	inv := timed("Invite", at, time.Hour, "")
	inv.Organizer = &gcal.EventOrganizer{Email: bob}
	inv.Attendees = []*gcal.EventAttendee{{Email: ada}}
	ev := e.add(ada, "primary", inv)
	e.call("respond_to_event", map[string]any{"event_id": ev.Id, "response": "accepted"}, nil)
	e.call("find_free_time", nil, nil)
	e.call("current_time", nil, nil)
	e.call("create_event", map[string]any{"summary": c.Event.Summary + "day", "start": "2026-12-24"}, nil)
	e.poll(p)
	e.fake.ExpireSyncTokens(ada)
	e.poll(p)
	e.fake.OmitSyncTokens(ada, true)
	e.poll(e.srv.newPoller())
	e.add(ada, "primary", timed("Later", at, time.Hour, ""))
	e.poll(p)
}

// TestNoTokenLeaks: after every tool, every kind of sync and a few
// failures (rate limits, an expired access token), the access token is
// in no tool result, log line, notification or cursor file.
func TestNoTokenLeaks(t *testing.T) {
	e := newEnv(t)
	exerciseEverything(e)
	limits := make([]googletest.RateLimit, 5)
	for i := range limits {
		limits[i] = googletest.RateLimit{Code: http.StatusTooManyRequests}
	}
	e.fake.InjectRateLimits(limits...)
	e.callErr("list_events", nil, "rate-limited")
	e.fake.InjectRateLimits(limits...)
	e.poll(e.srv.newPoller())
	e.callErr("get_event", map[string]any{"event_id": "nosuchevent"})
	e.accounts.mu.Lock()
	token := e.accounts.tokens[ada]
	e.accounts.tokens[ada] = "ya29.expired-or-unknown"
	e.accounts.mu.Unlock()
	e.callErr("list_calendars", nil, "invalid authentication credentials")
	e.poll(e.srv.newPoller())
	if token == "" {
		t.Fatal("no token was issued")
	}
	cursors, _ := os.ReadFile(filepath.Join(e.dataDir, CursorsFile))
	notices, _ := json.Marshal(e.notes.take())
	for what, s := range map[string]string{"tool results": e.results.String(), "the log": e.logs.String(),
		"the cursor file": string(cursors), "notifications": string(notices)} {
		if strings.Contains(s, token) || strings.Contains(s, "ya29.") {
			t.Errorf("an access token is in %s", what)
		}
	}
	if !strings.Contains(e.logs.String(), "calendar poll") {
		t.Errorf("the failing polls were not logged: %s", e.logs.String())
	}
}
