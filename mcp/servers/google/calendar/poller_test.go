package calendar

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	gcal "google.golang.org/api/calendar/v3"
)

const eventsList = "GET /calendar/v3/calendars/{calendarId}/events"

// poll runs one poll of a poller that lives as long as the test (a
// restart is a new poller on the same data dir).
func (e *env) poll(p *poller) []note {
	e.t.Helper()
	p.once(context.Background())
	return e.notes.take()
}

func methods(ns []note) string {
	var s []string
	for _, n := range ns {
		s = append(s, strings.TrimPrefix(n.Method, "event/")+":"+n.Notice.Summary)
	}
	return strings.Join(s, " ")
}

func TestPollerAnnouncesChanges(t *testing.T) {
	e := newEnv(t)
	e.fake.AddCalendar(ada, googletest.Calendar{ID: "team", Summary: "Team", TimeZone: "Europe/Berlin", Selected: true})
	e.fake.AddCalendar(ada, googletest.Calendar{ID: "hidden", Summary: "Hidden", TimeZone: "Europe/Berlin"})
	at := tomorrowAt(berlin(t), 11, 0)
	old := e.add(ada, "primary", timed("Old", at, time.Hour, "Europe/Berlin"))
	p := e.srv.newPoller()
	if got := e.poll(p); len(got) != 0 {
		t.Fatalf("the first sync announced %s", methods(got))
	}

	inv := timed("Offsite", at.Add(2*time.Hour), time.Hour, "Europe/Berlin")
	inv.Organizer = &gcal.EventOrganizer{Email: bob}
	inv.Attendees = []*gcal.EventAttendee{{Email: bob}, {Email: ada}}
	invited := e.add(ada, "team", inv)
	e.add(ada, "hidden", timed("Hidden one", at, time.Hour, ""))
	must(t, e.fake.ChangeEvent(ada, "primary", old.Id, func(ev *gcal.Event) { ev.Summary = "Old (moved)" }))
	got := e.poll(p)
	if methods(got) != "calendar_event_updated:Old (moved) new_calendar_event:Offsite" {
		t.Fatalf("after a change and an invitation: %s", methods(got))
	}
	n := got[1].Notice
	if n.Account != ada || n.CalendarID != "team" || n.EventID != invited.Id || n.Organizer != bob || n.HTMLLink == "" ||
		n.Start != invited.Start.DateTime || n.End != invited.End.DateTime || !strings.HasPrefix(n.Title, "New event: Offsite, ") {
		t.Errorf("notice %+v", n)
	}

	must(t, e.fake.CancelEvent(ada, "team", invited.Id))
	if got := e.poll(p); methods(got) != "calendar_event_cancelled:Offsite" || !strings.HasPrefix(got[0].Notice.Title, "Cancelled: Offsite") {
		t.Errorf("after a cancellation: %s", methods(got))
	}
	if got := e.poll(p); len(got) != 0 {
		t.Errorf("nothing changed, yet: %s", methods(got))
	}

	// What the assistant did through the tools is not announced back.
	var out createEventOut
	e.call("create_event", map[string]any{"summary": "Mine", "start": "2026-12-24"}, &out)
	if got := e.poll(p); len(got) != 0 {
		t.Errorf("a tool's own event was announced: %s", methods(got))
	}
}

// TestPollerOneListPerCalendar: with nothing changed, a poll is one
// events.list per selected calendar.
func TestPollerOneListPerCalendar(t *testing.T) {
	e := newEnv(t)
	e.fake.AddCalendar(ada, googletest.Calendar{ID: "team", Summary: "Team", TimeZone: "Europe/Berlin", Selected: true})
	e.add(ada, "primary", timed("Something", tomorrowAt(berlin(t), 9, 0), time.Hour, ""))
	p := e.srv.newPoller()
	e.poll(p)
	before := e.fake.CalendarRequests(eventsList)
	for range 3 {
		e.poll(p)
	}
	if n := e.fake.CalendarRequests(eventsList) - before; n != 3*2 {
		t.Errorf("%d events.list in 3 polls of 2 calendars, want 6", n)
	}
}

func TestPollerResyncsQuietlyAfter410(t *testing.T) {
	e := newEnv(t)
	p := e.srv.newPoller()
	e.add(ada, "primary", timed("Before", tomorrowAt(berlin(t), 9, 0), time.Hour, ""))
	e.poll(p)
	e.fake.ExpireSyncTokens(ada)
	if got := e.poll(p); len(got) != 0 {
		t.Errorf("a 410 resync announced %s", methods(got))
	}
	e.add(ada, "primary", timed("After", tomorrowAt(berlin(t), 10, 0), time.Hour, ""))
	if got := e.poll(p); methods(got) != "new_calendar_event:After" {
		t.Errorf("after the resync: %s", methods(got))
	}
}

func TestPollerFallsBackToUpdatedMin(t *testing.T) {
	e := newEnv(t)
	e.fake.OmitSyncTokens(ada, true)
	p := e.srv.newPoller()
	ev := e.add(ada, "primary", timed("One", tomorrowAt(berlin(t), 9, 0), time.Hour, ""))
	e.poll(p)
	e.add(ada, "primary", timed("Two", tomorrowAt(berlin(t), 10, 0), time.Hour, ""))
	must(t, e.fake.ChangeEvent(ada, "primary", ev.Id, func(ev *gcal.Event) { ev.Location = "Room 9" }))
	if got := e.poll(p); methods(got) != "calendar_event_updated:One new_calendar_event:Two" && methods(got) != "new_calendar_event:Two calendar_event_updated:One" {
		t.Errorf("with updatedMin: %s", methods(got))
	}
	if got := e.poll(p); len(got) != 0 {
		t.Errorf("updatedMin repeated: %s", methods(got))
	}
	found := false
	for _, r := range e.fake.RecordedCalendarRequests() {
		if r.Query.Get("updatedMin") != "" && r.Query.Get("showDeleted") == "true" {
			found = true
		}
	}
	if !found {
		t.Error("no list with updatedMin was sent")
	}
}

// TestPollerRestartNeitherMissesNorRepeats: the cursors are in the data
// dir; a new poller (a restart) announces exactly what changed while it
// was down.
func TestPollerRestartNeitherMissesNorRepeats(t *testing.T) {
	e := newEnv(t)
	e.add(ada, "primary", timed("Before", tomorrowAt(berlin(t), 9, 0), time.Hour, ""))
	e.poll(e.srv.newPoller())
	e.add(ada, "primary", timed("Seen", tomorrowAt(berlin(t), 10, 0), time.Hour, ""))
	if got := e.poll(e.srv.newPoller()); methods(got) != "new_calendar_event:Seen" {
		t.Fatalf("first restart: %s", methods(got))
	}
	e.add(ada, "primary", timed("While down", tomorrowAt(berlin(t), 11, 0), time.Hour, ""))
	if got := e.poll(e.srv.newPoller()); methods(got) != "new_calendar_event:While down" {
		t.Errorf("second restart: %s", methods(got))
	}
	if got := e.poll(e.srv.newPoller()); len(got) != 0 {
		t.Errorf("third restart repeated: %s", methods(got))
	}
	b, err := os.ReadFile(filepath.Join(e.dataDir, CursorsFile))
	must(t, err)
	var st cursorState
	must(t, json.Unmarshal(b, &st))
	if cur := st.Calendars[cursorKey(ada, ada)]; cur == nil || !strings.HasPrefix(cur.SyncToken, "sync-") {
		t.Errorf("cursor file %s", b)
	}
	if strings.Contains(string(b), "ya29.") {
		t.Error("an access token is in the cursor file")
	}
}

func TestPollerReminders(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Reminder = 10 * time.Minute })
	soon := time.Now().Add(5 * time.Minute).Truncate(time.Second)
	e.add(ada, "primary", timed("Standup", soon, 15*time.Minute, "Europe/Berlin"))
	declined := timed("Declined", soon, time.Hour, "")
	declined.Organizer = &gcal.EventOrganizer{Email: bob}
	declined.Attendees = []*gcal.EventAttendee{{Email: ada, ResponseStatus: "declined"}}
	e.add(ada, "primary", declined)
	e.add(ada, "primary", timed("Later", time.Now().Add(3*time.Hour), time.Hour, ""))
	p := e.srv.newPoller()
	got := e.poll(p)
	if methods(got) != "calendar_reminder:Standup" || got[0].Notice.Title != "Standup in 5 min" {
		t.Fatalf("reminders %s %+v", methods(got), got)
	}
	if got := e.poll(p); len(got) != 0 {
		t.Errorf("a reminder came twice: %s", methods(got))
	}
	if got := e.poll(e.srv.newPoller()); len(got) != 0 {
		t.Errorf("a restart repeated a reminder: %s", methods(got))
	}
	// An invitation accepted later gets its reminder once known.
	inv := timed("Interview", time.Now().Add(8*time.Minute), 30*time.Minute, "")
	inv.Organizer = &gcal.EventOrganizer{Email: bob}
	inv.Attendees = []*gcal.EventAttendee{{Email: ada, ResponseStatus: "accepted"}}
	e.add(ada, "primary", inv)
	if got := e.poll(p); methods(got) != "new_calendar_event:Interview calendar_reminder:Interview" {
		t.Errorf("after an accepted invitation: %s", methods(got))
	}
}

// TestPollRuns: Poll syncs on its own every Options.Poll until its
// context ends.
func TestPollRuns(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Poll = time.Millisecond })
	if e.srv.opts.Poll != MinPoll {
		t.Errorf("poll %v, want the minimum %v", e.srv.opts.Poll, MinPoll)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.srv.Poll(ctx); close(done) }()
	testkit.WaitFor(t, "the first sync", func() bool {
		return e.fake.CalendarRequests(eventsList) > 0 && len(e.fake.RecordedCalendarRequests()) > 0
	})
	e.add(ada, "primary", timed("Pushed", tomorrowAt(berlin(t), 9, 0), time.Hour, ""))
	var got []note
	testkit.WaitFor(t, "the new event's announcement", func() bool { got = e.notes.take(); return len(got) > 0 })
	if methods(got) != "new_calendar_event:Pushed" {
		t.Errorf("got %s", methods(got))
	}
	cancel()
	<-done
}

// TestPollerLogsAFailureOnce: an account that must sign in again is
// logged once, not on every poll, and again when it works.
func TestPollerLogsAFailureOnce(t *testing.T) {
	e := newEnv(t)
	e.accounts.needSignIn[ada] = true
	p := e.srv.newPoller()
	for range 3 {
		e.poll(p)
	}
	if n := strings.Count(e.logs.String(), "needs to sign in again"); n != 1 {
		t.Errorf("logged %d times:\n%s", n, e.logs.String())
	}
	e.accounts.signIn(ada)
	e.poll(p)
	if !strings.Contains(e.logs.String(), "calendar poll works again") {
		t.Errorf("the recovery is not logged:\n%s", e.logs.String())
	}
}
