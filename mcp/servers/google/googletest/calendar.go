package googletest

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/api/calendar/v3"
)

// Calendar scopes the fake accepts: full access, events only, and the
// read-only ones (for GET requests and freeBusy).
const (
	CalendarScope         = "https://www.googleapis.com/auth/calendar"
	CalendarEventsScope   = "https://www.googleapis.com/auth/calendar.events"
	CalendarReadonlyScope = "https://www.googleapis.com/auth/calendar.readonly"
)

// DefaultCalendarTimeZone is the zone of an account's primary calendar
// the fake makes when the account first calls the API.
const DefaultCalendarTimeZone = "Europe/Berlin"

// calendarFake is the Calendar API's state: every account's calendars and
// events, sync and page cursors.
type calendarFake struct {
	s    *Server
	reqs requestLog // the Calendar requests, counted and recorded

	mu         sync.Mutex             // guards everything below
	accounts   map[string]*calAccount // email → account
	seq        int64                  // change sequence, bumped on every change
	syncTokens map[string]syncCursor  // nextSyncToken → where it stands
	pageTokens map[string]pageCursor  // nextPageToken → the next page
	noSync     map[string]bool        // email → lists answer without nextSyncToken
	meetSeq    int                    // meet links made
	sentUpd    map[string]string      // event id → last sendUpdates
	lastChange time.Time              // the latest modification time given
}

type calAccount struct {
	email string
	cals  []*fakeCalendar // calendarList order
}

type fakeCalendar struct {
	Calendar
	updated time.Time
	events  map[string]*calEvent
}

// calEvent is a stored event: a single event, a recurring series or an
// exception of one (an instance id with RecurringEventId set).
type calEvent struct {
	ev  *calendar.Event
	seq int64 // s.seq at its last change
}

type syncCursor struct {
	email, cal string
	seq        int64
	expired    bool
}

type pageCursor struct {
	offset int
	snap   int64 // s.seq when the first page was made
}

// Calendar describes one calendar of an account (AddCalendar).
type Calendar struct {
	ID, Summary, TimeZone string
	Primary, Selected     bool
	AccessRole            string // default "owner"
}

func newCalendarFake(s *Server) *calendarFake {
	c := &calendarFake{s: s, accounts: map[string]*calAccount{}, syncTokens: map[string]syncCursor{},
		pageTokens: map[string]pageCursor{}, noSync: map[string]bool{}, sentUpd: map[string]string{}}
	const base = "/calendar/v3/"
	routes := map[string]calHandler{
		"GET " + base + "users/me/calendarList":                             c.listCalendars,
		"GET " + base + "users/me/calendarList/{calendarId}":                c.getCalendarListEntry,
		"GET " + base + "calendars/{calendarId}":                            c.getCalendar,
		"GET " + base + "calendars/{calendarId}/events":                     c.listEvents,
		"POST " + base + "calendars/{calendarId}/events":                    c.insertEvent,
		"GET " + base + "calendars/{calendarId}/events/{eventId}":           c.getEvent,
		"PATCH " + base + "calendars/{calendarId}/events/{eventId}":         c.patchEvent,
		"PUT " + base + "calendars/{calendarId}/events/{eventId}":           c.updateEvent,
		"DELETE " + base + "calendars/{calendarId}/events/{eventId}":        c.deleteEvent,
		"GET " + base + "calendars/{calendarId}/events/{eventId}/instances": c.instances,
		"POST " + base + "freeBusy":                                         c.freeBusy,
	}
	for pattern, h := range routes {
		s.handle(pattern, c.serve(h))
	}
	return c
}

// calHandler answers one Calendar request of an account, c.mu held.
type calHandler func(w http.ResponseWriter, r *http.Request, a *calAccount)

// serve wraps h: it admits the request (recorded, rate limits, bearer
// token), checks the calendar scope, holds c.mu, and cuts the answer to
// the fields asked for.
func (c *calendarFake) serve(h calHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		email, scopes, ok := c.s.admit(w, r, APICalendar, &c.reqs)
		if !ok {
			return
		}
		if !calendarScopeAllows(scopes, r) {
			apiError(w, http.StatusForbidden, "Request had insufficient authentication scopes.", "insufficientPermissions", "PERMISSION_DENIED")
			return
		}
		withFields(w, r, func(w http.ResponseWriter) {
			c.mu.Lock()
			defer c.mu.Unlock()
			h(w, r, c.account(email))
		})
	}
}

func calendarScopeAllows(scopes []string, r *http.Request) bool {
	read := r.Method == http.MethodGet || strings.HasSuffix(r.URL.Path, "/freeBusy")
	for _, sc := range scopes {
		switch sc {
		case CalendarScope:
			return true
		case CalendarEventsScope:
			if strings.Contains(r.URL.Path, "/events") || read {
				return true
			}
		case CalendarReadonlyScope:
			if read {
				return true
			}
		}
	}
	return false
}

// account returns email's account, made with a primary calendar on first
// use. c.mu held.
func (c *calendarFake) account(email string) *calAccount {
	a := c.accounts[email]
	if a == nil {
		a = &calAccount{email: email}
		a.cals = []*fakeCalendar{{Calendar: Calendar{ID: email, Summary: email, TimeZone: DefaultCalendarTimeZone,
			Primary: true, Selected: true, AccessRole: "owner"}, updated: c.s.now(), events: map[string]*calEvent{}}}
		c.accounts[email] = a
	}
	return a
}

// calendar finds an account's calendar by id ("primary" included). c.mu held.
func (a *calAccount) calendar(id string) *fakeCalendar {
	for _, cal := range a.cals {
		if cal.ID == id || (id == "primary" && cal.Primary) {
			return cal
		}
	}
	return nil
}

// calendarOf answers 404 and returns nil when the path's calendar is unknown.
func (a *calAccount) calendarOf(w http.ResponseWriter, r *http.Request) *fakeCalendar {
	cal := a.calendar(r.PathValue("calendarId"))
	if cal == nil {
		apiError(w, http.StatusNotFound, "Not Found", "notFound", "NOT_FOUND")
	}
	return cal
}

func (c *calendarFake) listEntry(cal *fakeCalendar) *calendar.CalendarListEntry {
	e := &calendar.CalendarListEntry{Kind: "calendar#calendarListEntry", Etag: etag(cal.updated.UnixNano()), Id: cal.ID,
		Summary: cal.Summary, TimeZone: cal.TimeZone, AccessRole: cal.AccessRole, Primary: cal.Primary, Selected: cal.Selected,
		BackgroundColor: "#9fe1e7", DefaultReminders: []*calendar.EventReminder{{Method: "popup", Minutes: 10}}}
	e.ForceSendFields = []string{"Selected"}
	return e
}

func (c *calendarFake) listCalendars(w http.ResponseWriter, r *http.Request, a *calAccount) {
	q := r.URL.Query()
	max, err := intParam(q, "maxResults", 100, 1, 250)
	if err != nil {
		badRequest(w, err.Error())
		return
	}
	offset, ok := c.page(w, q)
	if !ok {
		return
	}
	list := &calendar.CalendarList{Kind: "calendar#calendarList", Etag: etag(c.seq)}
	for _, cal := range a.cals {
		list.Items = append(list.Items, c.listEntry(cal))
	}
	list.Items, list.NextPageToken = pageOf(c, list.Items, offset, max, 0)
	if list.NextPageToken == "" {
		list.NextSyncToken = "calendarList-" + randomHex(8)
	}
	writeJSON(w, list)
}

func (c *calendarFake) getCalendarListEntry(w http.ResponseWriter, r *http.Request, a *calAccount) {
	if cal := a.calendarOf(w, r); cal != nil {
		writeJSON(w, c.listEntry(cal))
	}
}

func (c *calendarFake) getCalendar(w http.ResponseWriter, r *http.Request, a *calAccount) {
	if cal := a.calendarOf(w, r); cal != nil {
		writeJSON(w, &calendar.Calendar{Kind: "calendar#calendar", Etag: etag(cal.updated.UnixNano()), Id: cal.ID,
			Summary: cal.Summary, TimeZone: cal.TimeZone})
	}
}

// page reads pageToken: the offset it stands for, or 400 (false) for an
// unknown token.
func (c *calendarFake) page(w http.ResponseWriter, q url.Values) (int, bool) {
	tok := q.Get("pageToken")
	if tok == "" {
		return 0, true
	}
	pc, ok := c.pageTokens[tok]
	if !ok {
		badRequest(w, "Invalid page token value.")
		return 0, false
	}
	return pc.offset, true
}

// pageOf cuts items at offset, at most max; it returns the next page
// token ("" on the last page). snap is kept in the token.
func pageOf[T any](c *calendarFake, items []T, offset, max int, snap int64) ([]T, string) {
	if offset > len(items) {
		offset = len(items)
	}
	items = items[offset:]
	if len(items) <= max {
		return items, ""
	}
	tok := "page-" + randomHex(8)
	c.pageTokens[tok] = pageCursor{offset: offset + max, snap: snap}
	return items[:max], tok
}

func intParam(q url.Values, name string, def, min, max int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		return 0, &paramError{"Invalid value '" + v + "'. Values must match the following regular expression: '[0-9]+'"}
	}
	if n > max {
		n = max
	}
	return n, nil
}

type paramError struct{ msg string }

func (e *paramError) Error() string { return e.msg }

func badRequest(w http.ResponseWriter, msg string) {
	apiError(w, http.StatusBadRequest, msg, "invalid", "INVALID_ARGUMENT")
}

func etag(n int64) string { return `"` + strconv.FormatInt(n, 10) + `"` }

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func (c *calendarFake) htmlLink(calID, eventID string) string {
	eid := base64.RawURLEncoding.EncodeToString([]byte(eventID + " " + calID))
	return c.s.URL + "/calendar/event?eid=" + eid
}

// sortedIDs returns a calendar's stored event ids in a stable order.
func (cal *fakeCalendar) sortedIDs() []string {
	ids := make([]string, 0, len(cal.events))
	for id := range cal.events {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
