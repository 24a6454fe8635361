package calendar

import (
	"context"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// BenchmarkPollNothingChanged: a poll of three selected calendars where
// nothing changed. It reports the events.list requests per calendar per
// poll (the target is 1).
func BenchmarkPollNothingChanged(b *testing.B) {
	fake := googletest.New()
	defer fake.Close()
	b.Setenv("MCPTRAY_GOOGLE_API_URL", fake.URL)
	acc := &fakeTokenAccounts{fake: fake, emails: []string{ada}, needSignIn: map[string]bool{}, tokens: map[string]string{}}
	for _, id := range []string{"team", "family"} {
		fake.AddCalendar(ada, googletest.Calendar{ID: id, Summary: id, TimeZone: "Europe/Berlin", Selected: true})
	}
	for i := range 50 {
		fake.AddEvent(ada, "primary", timed("e", time.Now().Add(time.Duration(i)*time.Hour), time.Hour, ""))
	}
	s := New(Options{Accounts: acc, DataDir: b.TempDir(), Notify: func(string, any) error { return nil }})
	p := s.newPoller()
	ctx := context.Background()
	p.once(ctx)
	before := fake.CalendarRequests(eventsList)
	b.ResetTimer()
	for b.Loop() {
		p.once(ctx)
	}
	b.StopTimer()
	b.ReportMetric(float64(fake.CalendarRequests(eventsList)-before)/float64(b.N)/3, "events.list/calendar/poll")
}
