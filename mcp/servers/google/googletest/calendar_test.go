package googletest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/calendar/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

type calBearer string

func (t calBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(t))
	return http.DefaultTransport.RoundTrip(r)
}

// calService is the real calendar/v3 client of email on the fake, with
// an access token for scopes.
func calService(t *testing.T, s *Server, email string, scopes ...string) *calendar.Service {
	t.Helper()
	tok := s.IssueAccessToken(email, scopes, time.Hour)
	svc, err := calendar.NewService(context.Background(), option.WithHTTPClient(&http.Client{Transport: calBearer(tok)}),
		option.WithEndpoint(s.URL+"/calendar/v3/"))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func wantAPIError(t *testing.T, err error, code int, text string) {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != code || !strings.Contains(ge.Error(), text) {
		t.Errorf("got %v, want %d %q", err, code, text)
	}
}

func ev(summary, start, end string) *calendar.Event {
	return &calendar.Event{Summary: summary, Start: &calendar.EventDateTime{DateTime: start}, End: &calendar.EventDateTime{DateTime: end}}
}

func TestCalendarEnforcesAuth(t *testing.T) {
	s := New()
	defer s.Close()
	noScope := calService(t, s, "ada@example.com", "openid")
	_, err := noScope.CalendarList.List().Do()
	wantAPIError(t, err, 403, "insufficient authentication scopes")
	ro := calService(t, s, "ada@example.com", CalendarReadonlyScope)
	if _, err := ro.CalendarList.List().Do(); err != nil {
		t.Errorf("read-only scope reads: %v", err)
	}
	_, err = ro.Events.Insert("primary", ev("x", "2026-12-03T09:00:00Z", "2026-12-03T10:00:00Z")).Do()
	wantAPIError(t, err, 403, "insufficient")
	bad, _ := calendar.NewService(context.Background(), option.WithHTTPClient(&http.Client{Transport: calBearer("ya29.unknown")}),
		option.WithEndpoint(s.URL+"/calendar/v3/"))
	_, err = bad.CalendarList.List().Do()
	wantAPIError(t, err, 401, "invalid authentication")
}

func TestCalendarValidatesEvents(t *testing.T) {
	s := New()
	defer s.Close()
	svc := calService(t, s, "ada@example.com", CalendarScope)
	for _, c := range []struct {
		ev   *calendar.Event
		want string
	}{
		{&calendar.Event{Summary: "x", Start: &calendar.EventDateTime{DateTime: "2026-12-03T09:00:00Z"}}, "Missing end time."},
		{ev("x", "2026-12-03T10:00:00Z", "2026-12-03T09:00:00Z"), "The specified time range is empty."},
		{ev("x", "2026-12-03T09:00:00", "2026-12-03T10:00:00"), "Missing time zone definition for start time."},
		{&calendar.Event{Start: &calendar.EventDateTime{Date: "2026-12-03"}, End: &calendar.EventDateTime{DateTime: "2026-12-03T10:00:00Z"}}, "both be date or both be dateTime"},
		{&calendar.Event{Start: &calendar.EventDateTime{DateTime: "2026-12-03T09:00:00", TimeZone: "Mars/Base"}, End: &calendar.EventDateTime{DateTime: "2026-12-03T10:00:00Z"}}, "Invalid time zone"},
		{&calendar.Event{Start: &calendar.EventDateTime{DateTime: "2026-12-03T09:00:00Z"}, End: &calendar.EventDateTime{DateTime: "2026-12-03T10:00:00Z"}, Recurrence: []string{"RRULE:FREQ=DAILY"}}, "Missing time zone definition"},
		{&calendar.Event{Start: &calendar.EventDateTime{Date: "2026-12-03"}, End: &calendar.EventDateTime{Date: "2026-12-04"}, Reminders: &calendar.EventReminders{UseDefault: true, Overrides: []*calendar.EventReminder{{Method: "popup", Minutes: 5}}}}, "Cannot specify both"},
	} {
		_, err := svc.Events.Insert("primary", c.ev).Do()
		wantAPIError(t, err, 400, c.want)
	}
	_, err := svc.Events.Insert("nope", ev("x", "2026-12-03T09:00:00Z", "2026-12-03T10:00:00Z")).Do()
	wantAPIError(t, err, 404, "Not Found")
	// A local dateTime with its zone is stored with the zone's offset.
	got, err := svc.Events.Insert("primary", &calendar.Event{Start: &calendar.EventDateTime{DateTime: "2026-07-01T09:00:00", TimeZone: "America/New_York"},
		End: &calendar.EventDateTime{DateTime: "2026-07-01T10:00:00", TimeZone: "America/New_York"}}).Do()
	if err != nil || got.Start.DateTime != "2026-07-01T09:00:00-04:00" || got.Kind != "calendar#event" || got.Etag == "" || got.HtmlLink == "" || !got.Organizer.Self {
		t.Errorf("stored %+v, %v", got, err)
	}
	// conferenceData without conferenceDataVersion=1 is dropped.
	e := ev("meet", "2026-12-03T09:00:00Z", "2026-12-03T10:00:00Z")
	e.ConferenceData = &calendar.ConferenceData{CreateRequest: &calendar.CreateConferenceRequest{RequestId: "r1"}}
	got, _ = svc.Events.Insert("primary", e).Do()
	if got.HangoutLink != "" {
		t.Errorf("a meet link without conferenceDataVersion: %s", got.HangoutLink)
	}
	got, _ = svc.Events.Insert("primary", e).ConferenceDataVersion(1).Do()
	if !strings.HasPrefix(got.HangoutLink, "https://meet.google.com/") {
		t.Errorf("no meet link with conferenceDataVersion=1: %+v", got.ConferenceData)
	}
}

func TestCalendarSyncPagingAndExpiry(t *testing.T) {
	s := New()
	defer s.Close()
	svc := calService(t, s, "ada@example.com", CalendarScope)
	for i := range 7 {
		start := time.Date(2026, 12, 3, 9+i, 0, 0, 0, time.UTC)
		if _, err := svc.Events.Insert("primary", ev("e", start.Format(time.RFC3339), start.Add(time.Hour).Format(time.RFC3339))).Do(); err != nil {
			t.Fatal(err)
		}
	}
	var n, pages int
	var syncToken string
	err := svc.Events.List("primary").MaxResults(3).Pages(context.Background(), func(p *calendar.Events) error {
		n += len(p.Items)
		pages++
		if p.NextPageToken == "" {
			syncToken = p.NextSyncToken
		} else if p.NextSyncToken != "" {
			t.Error("a sync token before the last page")
		}
		return nil
	})
	if err != nil || n != 7 || pages != 3 || syncToken == "" {
		t.Fatalf("%d events in %d pages, sync token %q, %v", n, pages, syncToken, err)
	}
	list, err := svc.Events.List("primary").SyncToken(syncToken).Do()
	if err != nil || len(list.Items) != 0 {
		t.Fatalf("nothing changed: %v %v", list, err)
	}
	_, err = svc.Events.List("primary").SyncToken(syncToken).TimeMin("2026-12-01T00:00:00Z").Do()
	wantAPIError(t, err, 400, "Sync token cannot be used")
	_, err = svc.Events.List("primary").OrderBy("startTime").Do()
	wantAPIError(t, err, 400, "ordering is not available")
	s.ExpireSyncTokens("ada@example.com")
	_, err = svc.Events.List("primary").SyncToken(list.NextSyncToken).Do()
	wantAPIError(t, err, 410, "full sync is required")
	var ge *googleapi.Error
	if errors.As(err, &ge) && (len(ge.Errors) == 0 || ge.Errors[0].Reason != "fullSyncRequired") {
		t.Errorf("410 reason %+v", ge.Errors)
	}
}

func TestCalendarInstancesAndFreeBusy(t *testing.T) {
	s := New()
	defer s.Close()
	svc := calService(t, s, "ada@example.com", CalendarScope)
	e := &calendar.Event{Summary: "Standup", Recurrence: []string{"RRULE:FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20261217T235959Z"},
		Start: &calendar.EventDateTime{DateTime: "2026-12-07T09:00:00", TimeZone: "Europe/Berlin"},
		End:   &calendar.EventDateTime{DateTime: "2026-12-07T09:15:00", TimeZone: "Europe/Berlin"}}
	m, err := svc.Events.Insert("primary", e).Do()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := svc.Events.Instances("primary", m.Id).Do()
	if err != nil {
		t.Fatal(err)
	}
	var starts []string
	for _, i := range inst.Items {
		starts = append(starts, i.Start.DateTime)
	}
	if strings.Join(starts, " ") != "2026-12-07T09:00:00+01:00 2026-12-09T09:00:00+01:00 2026-12-14T09:00:00+01:00 2026-12-16T09:00:00+01:00" {
		t.Errorf("instances %v", starts)
	}
	if err := svc.Events.Delete("primary", inst.Items[1].Id).Do(); err != nil {
		t.Fatal(err)
	}
	fb, err := svc.Freebusy.Query(&calendar.FreeBusyRequest{TimeMin: "2026-12-07T00:00:00Z", TimeMax: "2026-12-10T00:00:00Z",
		Items: []*calendar.FreeBusyRequestItem{{Id: "primary"}, {Id: "nope"}}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if busy := fb.Calendars["primary"].Busy; len(busy) != 1 || busy[0].Start != "2026-12-07T08:00:00Z" {
		t.Errorf("busy %+v", busy)
	}
	if errs := fb.Calendars["nope"].Errors; len(errs) != 1 || errs[0].Reason != "notFound" {
		t.Errorf("unknown calendar %+v", fb.Calendars["nope"])
	}
	s.InjectRateLimits(RateLimit{Code: 429, RetryAfter: "7"})
	_, err = svc.CalendarList.List().Do()
	var ge *googleapi.Error
	if !errors.As(err, &ge) || ge.Code != 429 || ge.Header.Get("Retry-After") != "7" {
		t.Errorf("injected rate limit: %v", err)
	}
	if n := s.CalendarRequests("GET /calendar/v3/users/me/calendarList"); n != 1 {
		t.Errorf("counted %d calendar list requests", n)
	}
}
