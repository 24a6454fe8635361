package googletest

import (
	"fmt"
	"strings"

	"google.golang.org/api/calendar/v3"
)

// What tests do to the Calendar part of the fake "from another device",
// and what they read back.

// AddCalendar adds a calendar to email's account, or replaces the one
// with its id (the primary calendar included).
func (s *Server) AddCalendar(email string, cal Calendar) {
	c := s.cal
	c.mu.Lock()
	defer c.mu.Unlock()
	if cal.AccessRole == "" {
		cal.AccessRole = "owner"
	}
	a := c.account(email)
	for _, old := range a.cals {
		if old.ID == cal.ID {
			old.Calendar = cal
			old.updated = s.now()
			return
		}
	}
	a.cals = append(a.cals, &fakeCalendar{Calendar: cal, updated: s.now(), events: map[string]*calEvent{}})
}

// AddEvent stores an event in email's calendar calID as if made on
// another device (or sent as an invitation, with an organizer of its
// own), checked as the insert method checks it. It returns what Google
// stored.
func (s *Server) AddEvent(email, calID string, ev *calendar.Event) (*calendar.Event, error) {
	c := s.cal
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.account(email)
	cal := a.calendar(calID)
	if cal == nil {
		return nil, fmt.Errorf("no calendar %s in %s", calID, email)
	}
	ce, _, msg, _ := c.store(a, cal, clone(ev), nil)
	if ce == nil {
		return nil, fmt.Errorf("adding event: %s", msg)
	}
	return c.view(a, cal, ce.ev), nil
}

// ChangeEvent changes a stored event (or an instance, which becomes an
// exception) as another device would.
func (s *Server) ChangeEvent(email, calID, id string, change func(*calendar.Event)) error {
	c := s.cal
	c.mu.Lock()
	defer c.mu.Unlock()
	cal := c.account(email).calendar(calID)
	if cal == nil {
		return fmt.Errorf("no calendar %s in %s", calID, email)
	}
	ce, _ := c.lookup(cal, id)
	if ce == nil {
		return fmt.Errorf("no event %s", id)
	}
	ev := clone(ce.ev)
	change(ev)
	if msg, _ := validate(ev, cal); msg != "" {
		return fmt.Errorf("changing event: %s", msg)
	}
	ce = &calEvent{ev: ev}
	cal.events[id] = ce
	c.bump(cal, ce)
	return nil
}

// CancelEvent deletes an event (or one instance) as another device would.
func (s *Server) CancelEvent(email, calID, id string) error {
	c := s.cal
	c.mu.Lock()
	defer c.mu.Unlock()
	cal := c.account(email).calendar(calID)
	if cal == nil {
		return fmt.Errorf("no calendar %s in %s", calID, email)
	}
	return c.cancel(cal, id)
}

// Event returns a stored event (or instance) as email sees it.
func (s *Server) Event(email, calID, id string) (*calendar.Event, bool) {
	c := s.cal
	c.mu.Lock()
	defer c.mu.Unlock()
	a := c.account(email)
	cal := a.calendar(calID)
	if cal == nil {
		return nil, false
	}
	ce, _ := c.lookup(cal, id)
	if ce == nil {
		return nil, false
	}
	return c.view(a, cal, ce.ev), true
}

// SentUpdates is the sendUpdates value of the last request that changed
// event id ("" when none was sent).
func (s *Server) SentUpdates(id string) string {
	s.cal.mu.Lock()
	defer s.cal.mu.Unlock()
	return s.cal.sentUpd[id]
}

// ExpireSyncTokens makes every sync token issued to email's account
// invalid: the next list with one gets 410 fullSyncRequired.
func (s *Server) ExpireSyncTokens(email string) {
	c := s.cal
	c.mu.Lock()
	defer c.mu.Unlock()
	for tok, cur := range c.syncTokens {
		if cur.email == email {
			cur.expired = true
			c.syncTokens[tok] = cur
		}
	}
}

// OmitSyncTokens makes event lists of email's account answer without
// nextSyncToken (off: with it again).
func (s *Server) OmitSyncTokens(email string, on bool) {
	s.cal.mu.Lock()
	defer s.cal.mu.Unlock()
	s.cal.noSync[email] = on
}

// CalendarRequests counts the Calendar requests answered (or refused) so
// far that match key: a route pattern ("GET
// /calendar/v3/calendars/{calendarId}/events") or a method and path
// ("GET /calendar/v3/calendars/primary/events").
func (s *Server) CalendarRequests(key string) int {
	return s.cal.reqs.count(key)
}

// RecordedCalendarRequests returns every Calendar request so far.
func (s *Server) RecordedCalendarRequests() []Request {
	return s.cal.reqs.all()
}

// CalendarEventCount is how many stored events (series counted once) of
// email's calendar calID are not cancelled.
func (s *Server) CalendarEventCount(email, calID string) int {
	c := s.cal
	c.mu.Lock()
	defer c.mu.Unlock()
	cal := c.account(email).calendar(calID)
	if cal == nil {
		return 0
	}
	n := 0
	for _, ce := range cal.events {
		if !strings.EqualFold(ce.ev.Status, "cancelled") {
			n++
		}
	}
	return n
}
