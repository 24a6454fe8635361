package googletest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"google.golang.org/api/calendar/v3"
)

// clone deep-copies an event through its JSON.
func clone(ev *calendar.Event) *calendar.Event {
	b, _ := json.Marshal(ev)
	out := new(calendar.Event)
	json.Unmarshal(b, out)
	return out
}

// view is what an account sees of a stored event: kind, link and the
// self flags of its organizer and attendees.
func (c *calendarFake) view(a *calAccount, cal *fakeCalendar, ev *calendar.Event) *calendar.Event {
	out := clone(ev)
	out.Kind = "calendar#event"
	out.HtmlLink = c.htmlLink(cal.ID, out.Id)
	if out.Organizer != nil && out.Organizer.Email == a.email {
		out.Organizer.Self = true
	}
	if out.Creator != nil && out.Creator.Email == a.email {
		out.Creator.Self = true
	}
	for _, at := range out.Attendees {
		if at.Email == a.email {
			at.Self = true
		}
	}
	return out
}

// bump records a change. c.mu held.
func (c *calendarFake) bump(cal *fakeCalendar, ce *calEvent) {
	c.seq++
	ce.seq = c.seq
	ce.ev.Etag = etag(c.seq)
	// Modification times strictly increase, a millisecond apart at least,
	// as Google's order changes.
	now := c.s.now().UTC().Truncate(time.Millisecond)
	if !now.After(c.lastChange) {
		now = c.lastChange.Add(time.Millisecond)
	}
	c.lastChange = now
	ce.ev.Updated = stamp(now)
	cal.updated = now
}

var eventIDPattern = regexp.MustCompile(`^[a-v0-9]{5,}$`)

// validate checks an event as Google does before storing it, and writes
// its times back normalised. It returns a message and a reason.
func validate(ev *calendar.Event, cal *fakeCalendar) (msg, reason string) {
	if ev.Start == nil || (ev.Start.Date == "" && ev.Start.DateTime == "") {
		return "Missing start time.", "required"
	}
	if ev.End == nil || (ev.End.Date == "" && ev.End.DateTime == "") {
		return "Missing end time.", "required"
	}
	start, err := resolve(ev.Start, cal.TimeZone, "start")
	if err != nil {
		return err.Error(), "invalid"
	}
	end, err := resolve(ev.End, cal.TimeZone, "end")
	if err != nil {
		return err.Error(), "invalid"
	}
	if start.allDay != end.allDay {
		return "Start and end times must either both be date or both be dateTime.", "invalid"
	}
	if !end.t.After(start.t) {
		return "The specified time range is empty.", "timeRangeEmpty"
	}
	if len(ev.Recurrence) > 0 {
		if !start.allDay && ev.Start.TimeZone == "" {
			return "Missing time zone definition for start time.", "required"
		}
		if _, err := parseRecurrence(ev.Recurrence); err != nil {
			return err.Error(), "invalid"
		}
	}
	for _, at := range ev.Attendees {
		if at.Email == "" {
			return "Missing attendee email.", "required"
		}
		if !strings.Contains(at.Email, "@") {
			return "Invalid attendee email.", "invalid"
		}
		switch at.ResponseStatus {
		case "":
			at.ResponseStatus = "needsAction"
		case "needsAction", "declined", "tentative", "accepted":
		default:
			return "Invalid attendee response status.", "invalid"
		}
	}
	if r := ev.Reminders; r != nil {
		if r.UseDefault && len(r.Overrides) > 0 {
			return "Cannot specify both default reminders and overrides at the same time.", "cannotUseDefaultRemindersAndSpecifyOverride"
		}
		for _, o := range r.Overrides {
			if (o.Method != "email" && o.Method != "popup") || o.Minutes < 0 || o.Minutes > 40320 {
				return "Invalid reminder.", "invalid"
			}
		}
	}
	if ev.Status != "" && ev.Status != "confirmed" && ev.Status != "tentative" && ev.Status != "cancelled" {
		return "Invalid event status.", "invalid"
	}
	ev.Start = start.format(ev.Start.TimeZone)
	ev.End = end.format(ev.End.TimeZone)
	return "", ""
}

func sendUpdatesOK(w http.ResponseWriter, q url.Values) bool {
	switch q.Get("sendUpdates") {
	case "", "all", "externalOnly", "none":
		return true
	}
	badRequest(w, "Invalid value for sendUpdates: "+q.Get("sendUpdates"))
	return false
}

// conference makes a Meet link when the request asks for one with
// conferenceDataVersion=1; without it, conferenceData is dropped as
// Google drops it.
func (c *calendarFake) conference(ev *calendar.Event, q url.Values, old *calendar.ConferenceData) {
	if q.Get("conferenceDataVersion") != "1" {
		ev.ConferenceData = old
		return
	}
	if ev.ConferenceData == nil || ev.ConferenceData.CreateRequest == nil || ev.ConferenceData.EntryPoints != nil {
		return
	}
	c.meetSeq++
	code := fmt.Sprintf("abc-%04d-xyz", c.meetSeq)
	req := ev.ConferenceData.CreateRequest
	req.Status = &calendar.ConferenceRequestStatus{StatusCode: "success"}
	ev.ConferenceData = &calendar.ConferenceData{
		ConferenceId:       code,
		CreateRequest:      req,
		ConferenceSolution: &calendar.ConferenceSolution{Key: &calendar.ConferenceSolutionKey{Type: "hangoutsMeet"}, Name: "Google Meet"},
		EntryPoints:        []*calendar.EntryPoint{{EntryPointType: "video", Uri: "https://meet.google.com/" + code, Label: "meet.google.com/" + code}},
	}
	ev.HangoutLink = "https://meet.google.com/" + code
}

// store validates and stores a new event of account a in cal (the
// insert method, and the test's AddEvent). It returns the stored event,
// or an HTTP code, message and reason.
func (c *calendarFake) store(a *calAccount, cal *fakeCalendar, ev *calendar.Event, q url.Values) (*calEvent, int, string, string) {
	if msg, reason := validate(ev, cal); msg != "" {
		return nil, http.StatusBadRequest, msg, reason
	}
	if ev.Id == "" {
		ev.Id = randomHex(13)
	} else if !eventIDPattern.MatchString(ev.Id) {
		return nil, http.StatusBadRequest, "Invalid resource id value.", "invalid"
	} else if _, dup := cal.events[ev.Id]; dup {
		return nil, http.StatusConflict, "The requested identifier already exists.", "duplicate"
	}
	if ev.Status == "" {
		ev.Status = "confirmed"
	}
	if ev.Organizer == nil {
		ev.Organizer = &calendar.EventOrganizer{Email: a.email}
	}
	if ev.Creator == nil {
		ev.Creator = &calendar.EventCreator{Email: a.email}
	}
	for _, at := range ev.Attendees {
		if at.Email == ev.Organizer.Email {
			at.Organizer = true
			if at.ResponseStatus == "needsAction" {
				at.ResponseStatus = "accepted"
			}
		}
	}
	if ev.Reminders == nil {
		ev.Reminders = &calendar.EventReminders{UseDefault: true}
	}
	ev.ICalUID = ev.Id + "@google.com"
	ev.EventType = "default"
	ev.Kind = "calendar#event"
	c.conference(ev, q, nil)
	ce := &calEvent{ev: ev}
	cal.events[ev.Id] = ce
	c.bump(cal, ce)
	ev.Created = ev.Updated
	return ce, 0, "", ""
}

func (c *calendarFake) insertEvent(w http.ResponseWriter, r *http.Request, a *calAccount) {
	cal := a.calendarOf(w, r)
	if cal == nil || !sendUpdatesOK(w, r.URL.Query()) {
		return
	}
	ev := new(calendar.Event)
	if err := json.NewDecoder(r.Body).Decode(ev); err != nil {
		badRequest(w, "Invalid JSON payload received. "+err.Error())
		return
	}
	ce, code, msg, reason := c.store(a, cal, ev, r.URL.Query())
	if ce == nil {
		apiError(w, code, msg, reason, "INVALID_ARGUMENT")
		return
	}
	c.sentUpd[ev.Id] = r.URL.Query().Get("sendUpdates")
	writeJSON(w, c.view(a, cal, ce.ev))
}

// lookup finds an event by id: a stored one, or an instance of a stored
// series (materialised, not stored). ok false means not found.
func (c *calendarFake) lookup(cal *fakeCalendar, id string) (ce *calEvent, stored bool) {
	if ce := cal.events[id]; ce != nil {
		return ce, true
	}
	base, _, found := strings.Cut(id, "_")
	master := cal.events[base]
	if !found || master == nil || len(master.ev.Recurrence) == 0 {
		return nil, false
	}
	for _, inst := range c.expand(cal, master, time.Time{}, time.Time{}, true) {
		if inst.Id == id {
			return &calEvent{ev: inst, seq: master.seq}, false
		}
	}
	return nil, false
}

func (c *calendarFake) getEvent(w http.ResponseWriter, r *http.Request, a *calAccount) {
	cal := a.calendarOf(w, r)
	if cal == nil {
		return
	}
	ce, _ := c.lookup(cal, r.PathValue("eventId"))
	if ce == nil {
		apiError(w, http.StatusNotFound, "Not Found", "notFound", "NOT_FOUND")
		return
	}
	writeJSON(w, c.view(a, cal, ce.ev))
}

// change applies a patch (merge) or an update (replace) to an event.
func (c *calendarFake) change(w http.ResponseWriter, r *http.Request, a *calAccount, merge bool) {
	cal := a.calendarOf(w, r)
	if cal == nil || !sendUpdatesOK(w, r.URL.Query()) {
		return
	}
	id := r.PathValue("eventId")
	ce, stored := c.lookup(cal, id)
	if ce == nil {
		apiError(w, http.StatusNotFound, "Not Found", "notFound", "NOT_FOUND")
		return
	}
	if ce.ev.Status == "cancelled" && stored {
		apiError(w, http.StatusGone, "Resource has been deleted", "deleted", "NOT_FOUND")
		return
	}
	var body map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		badRequest(w, "Invalid JSON payload received. "+err.Error())
		return
	}
	old := ce.ev
	doc := map[string]json.RawMessage{}
	if merge {
		b, _ := json.Marshal(old)
		json.Unmarshal(b, &doc)
	}
	for k, v := range body {
		doc[k] = v
	}
	// What the client cannot change.
	keep := map[string]any{"id": old.Id, "created": old.Created, "iCalUID": old.ICalUID, "organizer": old.Organizer,
		"creator": old.Creator, "recurringEventId": old.RecurringEventId, "originalStartTime": old.OriginalStartTime,
		"eventType": old.EventType, "kind": old.Kind}
	for k, v := range keep {
		b, _ := json.Marshal(v)
		doc[k] = b
	}
	b, _ := json.Marshal(doc)
	ev := new(calendar.Event)
	if err := json.Unmarshal(b, ev); err != nil {
		badRequest(w, "Invalid JSON payload received. "+err.Error())
		return
	}
	if ev.Status == "" {
		ev.Status = "confirmed"
	}
	if msg, reason := validate(ev, cal); msg != "" {
		apiError(w, http.StatusBadRequest, msg, reason, "INVALID_ARGUMENT")
		return
	}
	if ev.RecurringEventId != "" && len(ev.Recurrence) > 0 {
		badRequest(w, "An instance cannot have a recurrence.")
		return
	}
	if ev.Start.DateTime != old.Start.DateTime || ev.Start.Date != old.Start.Date || ev.End.DateTime != old.End.DateTime || ev.End.Date != old.End.Date {
		ev.Sequence = old.Sequence + 1
	}
	c.conference(ev, r.URL.Query(), old.ConferenceData)
	ce = &calEvent{ev: ev}
	cal.events[id] = ce
	c.bump(cal, ce)
	c.sentUpd[id] = r.URL.Query().Get("sendUpdates")
	writeJSON(w, c.view(a, cal, ev))
}

func (c *calendarFake) patchEvent(w http.ResponseWriter, r *http.Request, a *calAccount) {
	c.change(w, r, a, true)
}

func (c *calendarFake) updateEvent(w http.ResponseWriter, r *http.Request, a *calAccount) {
	c.change(w, r, a, false)
}

func (c *calendarFake) deleteEvent(w http.ResponseWriter, r *http.Request, a *calAccount) {
	cal := a.calendarOf(w, r)
	if cal == nil || !sendUpdatesOK(w, r.URL.Query()) {
		return
	}
	id := r.PathValue("eventId")
	if err := c.cancel(cal, id); err != nil {
		code := http.StatusNotFound
		if errors.Is(err, errDeleted) {
			code = http.StatusGone
		}
		apiError(w, code, err.Error(), map[int]string{404: "notFound", 410: "deleted"}[code], "NOT_FOUND")
		return
	}
	c.sentUpd[id] = r.URL.Query().Get("sendUpdates")
	w.WriteHeader(http.StatusNoContent)
}

var (
	errNotFound = googleMsg("Not Found")
	errDeleted  = googleMsg("Resource has been deleted")
)

// cancel deletes an event as Google does: it stays, cancelled, for sync;
// an instance becomes a cancelled exception of its series. c.mu held.
func (c *calendarFake) cancel(cal *fakeCalendar, id string) error {
	ce, _ := c.lookup(cal, id)
	if ce == nil {
		return errNotFound
	}
	if ce.ev.Status == "cancelled" {
		return errDeleted
	}
	ev := clone(ce.ev)
	ev.Status = "cancelled"
	ce = &calEvent{ev: ev}
	cal.events[id] = ce
	c.bump(cal, ce)
	return nil
}

// expand lists the instances of a series overlapping [from, to) (zero:
// unbounded), its exceptions in place of the instances they change.
// Cancelled instances only with showDeleted. c.mu held.
func (c *calendarFake) expand(cal *fakeCalendar, master *calEvent, from, to time.Time, showDeleted bool) []*calendar.Event {
	m := master.ev
	start, err1 := resolve(m.Start, cal.TimeZone, "start")
	end, err2 := resolve(m.End, cal.TimeZone, "end")
	r, err3 := parseRecurrence(m.Recurrence)
	if err1 != nil || err2 != nil || err3 != nil || r == nil {
		return nil
	}
	length := end.t.Sub(start.t)
	var out []*calendar.Event
	for _, t := range r.occurrences(start, to) {
		id := instanceID(m.Id, t, start.allDay)
		var inst *calendar.Event
		if ex := cal.events[id]; ex != nil {
			inst = clone(ex.ev)
		} else {
			inst = clone(m)
			inst.Id = id
			inst.Recurrence = nil
			inst.RecurringEventId = m.Id
			inst.Start = when{t: t, allDay: start.allDay, loc: start.loc}.format(m.Start.TimeZone)
			endT := t.Add(length)
			if start.allDay {
				endT = t.AddDate(0, 0, int(length.Hours()/24+0.5))
			}
			inst.End = when{t: endT, allDay: start.allDay, loc: end.loc}.format(m.End.TimeZone)
			inst.OriginalStartTime = inst.Start
		}
		if m.Status == "cancelled" {
			inst.Status = "cancelled"
		}
		if inst.Status == "cancelled" && !showDeleted {
			continue
		}
		if overlaps(inst, cal, from, to) {
			out = append(out, inst)
		}
	}
	return out
}

// overlaps says whether ev's time overlaps [from, to) (zero: unbounded).
func overlaps(ev *calendar.Event, cal *fakeCalendar, from, to time.Time) bool {
	s, err1 := resolve(ev.Start, cal.TimeZone, "start")
	e, err2 := resolve(ev.End, cal.TimeZone, "end")
	if err1 != nil || err2 != nil {
		return false
	}
	return (from.IsZero() || e.t.After(from)) && (to.IsZero() || s.t.Before(to))
}

func startOf(ev *calendar.Event, cal *fakeCalendar) time.Time {
	s, _ := resolve(ev.Start, cal.TimeZone, "start")
	return s.t
}

func timeParam(w http.ResponseWriter, q url.Values, name string) (time.Time, bool) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		apiError(w, http.StatusBadRequest, "Bad Request", "badRequest", "INVALID_ARGUMENT")
		return time.Time{}, false
	}
	return t, true
}

func boolParam(q url.Values, name string) bool { return q.Get(name) == "true" }

func (c *calendarFake) listEvents(w http.ResponseWriter, r *http.Request, a *calAccount) {
	cal := a.calendarOf(w, r)
	if cal == nil {
		return
	}
	q := r.URL.Query()
	max, err := intParam(q, "maxResults", 250, 1, 2500)
	if err != nil {
		badRequest(w, err.Error())
		return
	}
	from, ok1 := timeParam(w, q, "timeMin")
	if !ok1 {
		return
	}
	to, ok2 := timeParam(w, q, "timeMax")
	if !ok2 {
		return
	}
	updatedMin, ok3 := timeParam(w, q, "updatedMin")
	if !ok3 {
		return
	}
	if !from.IsZero() && !to.IsZero() && !to.After(from) {
		apiError(w, http.StatusBadRequest, "The specified time range is empty.", "timeRangeEmpty", "INVALID_ARGUMENT")
		return
	}
	single, showDeleted := boolParam(q, "singleEvents"), boolParam(q, "showDeleted")
	orderBy := q.Get("orderBy")
	switch {
	case orderBy != "" && orderBy != "startTime" && orderBy != "updated":
		badRequest(w, "Invalid value for orderBy: "+orderBy)
		return
	case orderBy == "startTime" && !single:
		badRequest(w, "The requested ordering is not available for the particular query.")
		return
	}
	snap := c.seq
	if tok := q.Get("pageToken"); tok != "" {
		pc, ok := c.pageTokens[tok]
		if !ok {
			badRequest(w, "Invalid page token value.")
			return
		}
		snap = pc.snap
	}
	offset, ok := c.page(w, q)
	if !ok {
		return
	}
	var items []*calendar.Event
	if st := q.Get("syncToken"); st != "" {
		for _, p := range []string{"timeMin", "timeMax", "q", "updatedMin", "orderBy", "iCalUID", "privateExtendedProperty", "sharedExtendedProperty"} {
			if q.Has(p) {
				badRequest(w, "Sync token cannot be used with other request restrictions: "+p)
				return
			}
		}
		cur, known := c.syncTokens[st]
		if !known || cur.expired || cur.email != a.email || cur.cal != cal.ID {
			apiError(w, http.StatusGone, "Sync token is no longer valid, a full sync is required.", "fullSyncRequired", "FAILED_PRECONDITION")
			return
		}
		for _, id := range cal.sortedIDs() {
			if ce := cal.events[id]; ce.seq > cur.seq && ce.seq <= snap {
				items = append(items, c.view(a, cal, ce.ev))
			}
		}
	} else {
		text := strings.ToLower(q.Get("q"))
		for _, id := range cal.sortedIDs() {
			ce := cal.events[id]
			ev := ce.ev
			if ce.seq > snap {
				continue
			}
			if !updatedMin.IsZero() {
				if u, _ := time.Parse(time.RFC3339, ev.Updated); u.Before(updatedMin) {
					continue
				}
			}
			deletedOK := showDeleted || !updatedMin.IsZero()
			var cands []*calendar.Event
			switch {
			case single && ev.RecurringEventId != "":
				continue // exceptions come with their series' instances
			case single && len(ev.Recurrence) > 0:
				if ev.Status == "cancelled" && !deletedOK {
					continue
				}
				horizon := to
				if horizon.IsZero() {
					horizon = c.s.now().AddDate(1, 0, 0)
				}
				cands = c.expand(cal, ce, from, horizon, deletedOK)
			case len(ev.Recurrence) > 0:
				if (ev.Status != "cancelled" || deletedOK) && len(c.expand(cal, ce, from, to, true)) > 0 {
					cands = []*calendar.Event{ev}
				}
			default:
				if (ev.Status != "cancelled" || deletedOK) && overlaps(ev, cal, from, to) {
					cands = []*calendar.Event{ev}
				}
			}
			for _, e := range cands {
				if text != "" && !strings.Contains(searchText(e), text) {
					continue
				}
				items = append(items, c.view(a, cal, e))
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if orderBy == "updated" {
			return items[i].Updated < items[j].Updated
		}
		si, sj := startOf(items[i], cal), startOf(items[j], cal)
		if !si.Equal(sj) {
			return si.Before(sj)
		}
		return items[i].Id < items[j].Id
	})
	page := &calendar.Events{Kind: "calendar#events", Etag: etag(snap), Summary: cal.Summary, TimeZone: cal.TimeZone,
		Updated: stamp(cal.updated), AccessRole: cal.AccessRole, DefaultReminders: []*calendar.EventReminder{{Method: "popup", Minutes: 10}}}
	page.Items, page.NextPageToken = pageOf(c, items, offset, max, snap)
	if page.Items == nil {
		page.Items = []*calendar.Event{}
	}
	if page.NextPageToken == "" && !c.noSync[a.email] {
		tok := "sync-" + randomHex(12)
		c.syncTokens[tok] = syncCursor{email: a.email, cal: cal.ID, seq: snap}
		page.NextSyncToken = tok
	}
	page.ForceSendFields = []string{"Items"}
	writeJSON(w, page)
}

func (c *calendarFake) instances(w http.ResponseWriter, r *http.Request, a *calAccount) {
	cal := a.calendarOf(w, r)
	if cal == nil {
		return
	}
	q := r.URL.Query()
	ce := cal.events[r.PathValue("eventId")]
	if ce == nil || ce.ev.RecurringEventId != "" {
		apiError(w, http.StatusNotFound, "Not Found", "notFound", "NOT_FOUND")
		return
	}
	max, err := intParam(q, "maxResults", 250, 1, 2500)
	if err != nil {
		badRequest(w, err.Error())
		return
	}
	from, ok1 := timeParam(w, q, "timeMin")
	to, ok2 := timeParam(w, q, "timeMax")
	offset, ok3 := c.page(w, q)
	if !ok1 || !ok2 || !ok3 {
		return
	}
	var items []*calendar.Event
	if len(ce.ev.Recurrence) == 0 {
		if overlaps(ce.ev, cal, from, to) {
			items = []*calendar.Event{c.view(a, cal, ce.ev)}
		}
	} else {
		horizon := to
		if horizon.IsZero() {
			horizon = c.s.now().AddDate(1, 0, 0)
		}
		for _, inst := range c.expand(cal, ce, from, horizon, boolParam(q, "showDeleted")) {
			if o := q.Get("originalStart"); o != "" && (inst.OriginalStartTime == nil || inst.OriginalStartTime.DateTime != o && inst.OriginalStartTime.Date != o) {
				continue
			}
			items = append(items, c.view(a, cal, inst))
		}
	}
	page := &calendar.Events{Kind: "calendar#events", Etag: etag(c.seq), Summary: cal.Summary, TimeZone: cal.TimeZone,
		Updated: stamp(cal.updated), AccessRole: cal.AccessRole}
	page.Items, page.NextPageToken = pageOf(c, items, offset, max, c.seq)
	if page.Items == nil {
		page.Items = []*calendar.Event{}
	}
	page.ForceSendFields = []string{"Items"}
	writeJSON(w, page)
}

// searchText is what q searches in an event: summary, description,
// location, and the organizer's and attendees' addresses and names.
func searchText(e *calendar.Event) string {
	parts := []string{e.Summary, e.Description, e.Location}
	if e.Organizer != nil {
		parts = append(parts, e.Organizer.Email, e.Organizer.DisplayName)
	}
	for _, a := range e.Attendees {
		parts = append(parts, a.Email, a.DisplayName)
	}
	return strings.ToLower(strings.Join(parts, "\n"))
}
