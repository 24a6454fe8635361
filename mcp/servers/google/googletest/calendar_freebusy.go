package googletest

import (
	"encoding/json"
	"net/http"
	"sort"
	"time"

	"google.golang.org/api/calendar/v3"
)

// freeBusy answers freeBusy.query: the busy intervals of each asked
// calendar (not cancelled, not transparent, not declined by the account),
// merged, or a notFound error for a calendar the account lacks.
func (c *calendarFake) freeBusy(w http.ResponseWriter, r *http.Request, a *calAccount) {
	var req calendar.FreeBusyRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		badRequest(w, "Invalid JSON payload received. "+err.Error())
		return
	}
	if req.TimeMin == "" {
		apiError(w, http.StatusBadRequest, "Missing timeMin parameter.", "required", "INVALID_ARGUMENT")
		return
	}
	if req.TimeMax == "" {
		apiError(w, http.StatusBadRequest, "Missing timeMax parameter.", "required", "INVALID_ARGUMENT")
		return
	}
	from, err1 := time.Parse(time.RFC3339, req.TimeMin)
	to, err2 := time.Parse(time.RFC3339, req.TimeMax)
	if err1 != nil || err2 != nil {
		apiError(w, http.StatusBadRequest, "Bad Request", "badRequest", "INVALID_ARGUMENT")
		return
	}
	if !to.After(from) {
		apiError(w, http.StatusBadRequest, "The specified time range is empty.", "timeRangeEmpty", "INVALID_ARGUMENT")
		return
	}
	loc := time.UTC
	if req.TimeZone != "" {
		l, err := time.LoadLocation(req.TimeZone)
		if err != nil {
			badRequest(w, "Invalid time zone.")
			return
		}
		loc = l
	}
	out := &calendar.FreeBusyResponse{Kind: "calendar#freeBusy", TimeMin: req.TimeMin, TimeMax: req.TimeMax,
		Calendars: map[string]calendar.FreeBusyCalendar{}}
	for _, item := range req.Items {
		cal := a.calendar(item.Id)
		if cal == nil {
			out.Calendars[item.Id] = calendar.FreeBusyCalendar{Busy: []*calendar.TimePeriod{},
				Errors: []*calendar.Error{{Domain: "global", Reason: "notFound"}}}
			continue
		}
		type span struct{ s, e time.Time }
		var spans []span
		for _, id := range cal.sortedIDs() {
			ce := cal.events[id]
			var evs []*calendar.Event
			switch {
			case ce.ev.RecurringEventId != "":
				continue // with its series
			case len(ce.ev.Recurrence) > 0:
				evs = c.expand(cal, ce, from, to, false)
			case overlaps(ce.ev, cal, from, to):
				evs = []*calendar.Event{ce.ev}
			}
			for _, ev := range evs {
				if ev.Status == "cancelled" || ev.Transparency == "transparent" || declinedBy(ev, a.email) {
					continue
				}
				s, _ := resolve(ev.Start, cal.TimeZone, "start")
				e, _ := resolve(ev.End, cal.TimeZone, "end")
				spans = append(spans, span{maxTime(s.t, from), minTime(e.t, to)})
			}
		}
		sort.Slice(spans, func(i, j int) bool { return spans[i].s.Before(spans[j].s) })
		busy := []*calendar.TimePeriod{}
		for i := 0; i < len(spans); {
			cur := spans[i]
			for i++; i < len(spans) && !spans[i].s.After(cur.e); i++ {
				cur.e = maxTime(cur.e, spans[i].e)
			}
			busy = append(busy, &calendar.TimePeriod{Start: cur.s.In(loc).Format(time.RFC3339), End: cur.e.In(loc).Format(time.RFC3339)})
		}
		out.Calendars[item.Id] = calendar.FreeBusyCalendar{Busy: busy, ForceSendFields: []string{"Busy"}}
	}
	writeJSON(w, out)
}

func declinedBy(ev *calendar.Event, email string) bool {
	for _, at := range ev.Attendees {
		if at.Email == email {
			return at.ResponseStatus == "declined"
		}
	}
	return false
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
