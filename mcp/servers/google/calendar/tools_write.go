package calendar

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gcal "google.golang.org/api/calendar/v3"
)

type createEventIn struct {
	Account     string   `json:"account,omitempty" jsonschema:"the Google account (email); default the server's account"`
	CalendarID  string   `json:"calendar_id,omitempty" jsonschema:"default primary"`
	Summary     string   `json:"summary,omitempty" jsonschema:"the title (required)"`
	Start       string   `json:"start,omitempty" jsonschema:"required: RFC 3339 (2026-12-03T09:00:00+01:00), a local time with time_zone (2026-12-03T09:00), or a date (2026-12-03) for an all-day event"`
	End         string   `json:"end,omitempty" jsonschema:"as start; for all-day events the day after the last day (omit for one day)"`
	TimeZone    string   `json:"time_zone,omitempty" jsonschema:"IANA zone of the event (and of local start/end); default the calendar's"`
	Location    string   `json:"location,omitempty"`
	Description string   `json:"description,omitempty"`
	Attendees   []string `json:"attendees,omitempty" jsonschema:"guests' email addresses"`
	Recurrence  []string `json:"recurrence,omitempty" jsonschema:"RRULE lines, e.g. RRULE:FREQ=WEEKLY;COUNT=10"`
	AddMeetLink bool     `json:"add_meet_link,omitempty" jsonschema:"add a Google Meet link"`
	Reminders   []int64  `json:"reminders,omitempty" jsonschema:"popup reminders, minutes before (default the calendar's)"`
	SendUpdates string   `json:"send_updates,omitempty" jsonschema:"all, externalOnly or none (default none): who gets invitation emails"`
}

type createEventOut struct {
	Event       Event   `json:"event"`
	Overlapping []Event `json:"overlapping" jsonschema:"events of the same calendar at the same time"`
}

// span reads start and end for an event: both dates or both times, end
// after start. An all-day end may be omitted (one day) or equal start.
func span(startIn, endIn, tz string, endRequired bool, loc *time.Location) (moment, moment, error) {
	if startIn == "" {
		return moment{}, moment{}, errors.New("start is required: RFC 3339 (2026-12-03T09:00:00+01:00), a local time with time_zone, or a date for an all-day event")
	}
	start, err := parseMoment("start", startIn, tz, true, loc)
	if err != nil {
		return moment{}, moment{}, err
	}
	if endIn == "" {
		if start.allDay() || !endRequired {
			return start, moment{}, nil
		}
		return moment{}, moment{}, errors.New("end is required for a timed event (RFC 3339, or a local time with time_zone)")
	}
	end, err := parseMoment("end", endIn, tz, true, loc)
	if err != nil {
		return moment{}, moment{}, err
	}
	if start.allDay() != end.allDay() {
		return moment{}, moment{}, fmt.Errorf("start %q and end %q must both be dates (an all-day event) or both be times", startIn, endIn)
	}
	if start.allDay() && end.date == start.date {
		end = oneDayAfter(start)
	}
	if !end.t.After(start.t) {
		return moment{}, moment{}, fmt.Errorf("end %q is not after start %q", endIn, startIn)
	}
	return start, end, nil
}

func oneDayAfter(m moment) moment {
	d, _ := time.Parse(dateLayout, m.date)
	return moment{date: d.AddDate(0, 0, 1).Format(dateLayout), t: m.t.AddDate(0, 0, 1)}
}

func checkSendUpdates(v string) error {
	switch v {
	case "", "all", "externalOnly", "none":
		return nil
	}
	return fmt.Errorf("send_updates %q must be all, externalOnly or none", v)
}

// calendarZone is a calendar's time zone (for the event's default zone
// and for dates), read from the calendar list.
func (s *Server) calendarZone(ctx context.Context, req *sdk.CallToolRequest, email *string, calID string) (string, error) {
	var entry *gcal.CalendarListEntry
	err := s.api(ctx, req, email, func(svc *gcal.Service) (err error) {
		entry, err = svc.CalendarList.Get(calID).Context(ctx).Do()
		return err
	})
	if err != nil {
		return "", explainCalendar(err, *email, calID, "reading the calendar")
	}
	return entry.TimeZone, nil
}

func reminders(mins []int64) (*gcal.EventReminders, error) {
	r := &gcal.EventReminders{UseDefault: false, ForceSendFields: []string{"UseDefault"}}
	for _, m := range mins {
		if m < 0 || m > 40320 {
			return nil, fmt.Errorf("reminders: %d minutes is outside 0 to 40320 (four weeks)", m)
		}
		r.Overrides = append(r.Overrides, &gcal.EventReminder{Method: "popup", Minutes: m, ForceSendFields: []string{"Minutes"}})
	}
	if len(r.Overrides) == 0 {
		r.NullFields = []string{"Overrides"}
	}
	return r, nil
}

func attendees(emails []string) ([]*gcal.EventAttendee, error) {
	var out []*gcal.EventAttendee
	for _, e := range emails {
		e = strings.TrimSpace(e)
		if !strings.Contains(e, "@") {
			return nil, fmt.Errorf("attendees: %q is not an email address", e)
		}
		out = append(out, &gcal.EventAttendee{Email: e})
	}
	return out, nil
}

func checkRecurrence(lines []string) error {
	for _, l := range lines {
		if !strings.HasPrefix(l, "RRULE:") && !strings.HasPrefix(l, "EXDATE") && !strings.HasPrefix(l, "RDATE") && !strings.HasPrefix(l, "EXRULE:") {
			return fmt.Errorf("recurrence line %q must start with RRULE:, EXDATE or RDATE (e.g. RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10)", l)
		}
	}
	return nil
}

func meetRequest() *gcal.ConferenceData {
	return &gcal.ConferenceData{CreateRequest: &gcal.CreateConferenceRequest{
		RequestId: fmt.Sprintf("mcptray-%d", time.Now().UnixNano()), ConferenceSolutionKey: &gcal.ConferenceSolutionKey{Type: "hangoutsMeet"}}}
}

func (s *Server) createEventTool(ctx context.Context, req *sdk.CallToolRequest, in createEventIn) (*sdk.CallToolResult, createEventOut, error) {
	var zero createEventOut
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	if strings.TrimSpace(in.Summary) == "" {
		return nil, zero, errors.New("summary (the event's title) is required")
	}
	if err := checkSendUpdates(in.SendUpdates); err != nil {
		return nil, zero, err
	}
	if err := checkRecurrence(in.Recurrence); err != nil {
		return nil, zero, err
	}
	if in.TimeZone != "" {
		if _, err := loadZone("time_zone", in.TimeZone); err != nil {
			return nil, zero, err
		}
	}
	calID := orPrimary(in.CalendarID)
	calTZ, err := s.calendarZone(ctx, req, &email, calID)
	if err != nil {
		return nil, zero, err
	}
	tz := in.TimeZone
	if tz == "" {
		tz = calTZ
	}
	loc, err := loadZone("the calendar's time zone", tz)
	if err != nil {
		loc = time.UTC
	}
	start, end, err := span(in.Start, in.End, in.TimeZone, true, loc)
	if err != nil {
		return nil, zero, err
	}
	if end.t.IsZero() {
		end = oneDayAfter(start)
	}
	ev := &gcal.Event{Summary: in.Summary, Location: in.Location, Description: in.Description,
		Start: start.eventTime(tz), End: end.eventTime(tz), Recurrence: in.Recurrence}
	if start.allDay() && len(in.Recurrence) > 0 {
		ev.Start.TimeZone, ev.End.TimeZone = tz, tz
	}
	if ev.Attendees, err = attendees(in.Attendees); err != nil {
		return nil, zero, err
	}
	if in.Reminders != nil {
		if ev.Reminders, err = reminders(in.Reminders); err != nil {
			return nil, zero, err
		}
	}
	if in.AddMeetLink {
		ev.ConferenceData = meetRequest()
	}
	var got *gcal.Event
	err = s.api(ctx, req, &email, func(svc *gcal.Service) (err error) {
		call := svc.Events.Insert(calID, ev).Context(ctx)
		if in.AddMeetLink {
			call = call.ConferenceDataVersion(1)
		}
		if in.SendUpdates != "" {
			call = call.SendUpdates(in.SendUpdates)
		}
		got, err = call.Do()
		return err
	})
	if err != nil {
		return nil, zero, explainCalendar(err, email, calID, "creating the event")
	}
	s.markOwn(email, got.Id)
	out := createEventOut{Event: eventOf(email, calID, got), Overlapping: []Event{}}
	others, _, err := s.eventsIn(ctx, req, &email, calID, start.t, end.t, "", 50)
	if err != nil {
		s.log.Warn("listing overlapping events", "err", err)
	}
	for _, o := range others {
		if o.ID != got.Id && o.RecurringEventID != got.Id {
			out.Overlapping = append(out.Overlapping, o)
		}
	}
	var b strings.Builder
	b.WriteString("created " + out.Event.line())
	if out.Event.MeetLink != "" {
		b.WriteString("\nMeet: " + out.Event.MeetLink)
	}
	for _, o := range out.Overlapping {
		b.WriteString("\noverlaps " + o.line())
	}
	return text(b.String()), out, nil
}

type updateEventIn struct {
	Account     string    `json:"account,omitempty" jsonschema:"the Google account (email); default the server's account"`
	CalendarID  string    `json:"calendar_id,omitempty" jsonschema:"default primary"`
	EventID     string    `json:"event_id,omitempty" jsonschema:"an id from list_events (an occurrence's id for recurring events)"`
	Scope       string    `json:"scope,omitempty" jsonschema:"for recurring events: this (default), following or all"`
	Summary     *string   `json:"summary,omitempty"`
	Start       *string   `json:"start,omitempty" jsonschema:"as in create_event; moving only start keeps the duration"`
	End         *string   `json:"end,omitempty"`
	TimeZone    *string   `json:"time_zone,omitempty" jsonschema:"IANA zone for start and end"`
	Location    *string   `json:"location,omitempty" jsonschema:"empty removes it"`
	Description *string   `json:"description,omitempty" jsonschema:"empty removes it"`
	Attendees   *[]string `json:"attendees,omitempty" jsonschema:"the whole new guest list"`
	AddMeetLink bool      `json:"add_meet_link,omitempty"`
	Reminders   *[]int64  `json:"reminders,omitempty" jsonschema:"popup reminders in minutes; empty for none"`
	SendUpdates string    `json:"send_updates,omitempty" jsonschema:"all, externalOnly or none (default none)"`
}

type updateEventOut struct {
	Event Event  `json:"event"`
	Scope string `json:"scope"`
	Note  string `json:"note,omitempty"`
}

// patchOf builds the patch of update_event's fields against the event
// as it is (old), in its calendar's zone calTZ.
func patchOf(in updateEventIn, old *gcal.Event, calTZ string) (*gcal.Event, error) {
	p := &gcal.Event{}
	if in.Summary != nil {
		p.Summary = *in.Summary
		p.ForceSendFields = append(p.ForceSendFields, "Summary")
	}
	if in.Location != nil {
		p.Location = *in.Location
		p.ForceSendFields = append(p.ForceSendFields, "Location")
	}
	if in.Description != nil {
		p.Description = *in.Description
		p.ForceSendFields = append(p.ForceSendFields, "Description")
	}
	if in.Attendees != nil {
		list, err := attendees(*in.Attendees)
		if err != nil {
			return nil, err
		}
		// Keep the answers of those who stay.
		for _, a := range list {
			for _, o := range old.Attendees {
				if strings.EqualFold(o.Email, a.Email) {
					a.ResponseStatus, a.Comment, a.Optional, a.DisplayName = o.ResponseStatus, o.Comment, o.Optional, o.DisplayName
				}
			}
		}
		p.Attendees = list
		if len(list) == 0 {
			p.NullFields = append(p.NullFields, "Attendees")
		}
	}
	if in.Reminders != nil {
		r, err := reminders(*in.Reminders)
		if err != nil {
			return nil, err
		}
		p.Reminders = r
	}
	if in.AddMeetLink {
		p.ConferenceData = meetRequest()
	}
	tzIn := ""
	if in.TimeZone != nil {
		if _, err := loadZone("time_zone", *in.TimeZone); err != nil {
			return nil, err
		}
		tzIn = *in.TimeZone
	}
	if in.Start == nil && in.End == nil && tzIn == "" {
		return p, nil
	}
	tz := tzIn
	if tz == "" && old.Start != nil {
		tz = old.Start.TimeZone
	}
	if tz == "" {
		tz = calTZ
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		loc = time.UTC
	}
	oldStart, ok1 := momentOf(old.Start, loc)
	oldEnd, ok2 := momentOf(old.End, loc)
	startIn, endIn := "", ""
	if in.Start != nil {
		startIn = *in.Start
	}
	if in.End != nil {
		endIn = *in.End
	}
	var start, end moment
	switch {
	case startIn != "":
		if start, err = parseMoment("start", startIn, tzIn, true, loc); err != nil {
			return nil, err
		}
	case ok1:
		start = oldStart
	}
	switch {
	case endIn != "":
		if end, err = parseMoment("end", endIn, tzIn, true, loc); err != nil {
			return nil, err
		}
	case startIn != "" && ok1 && ok2 && start.allDay() == oldStart.allDay():
		// Moving the start keeps the length.
		if start.allDay() {
			days := int(oldEnd.t.Sub(oldStart.t).Hours()/24 + 0.5)
			d, _ := time.Parse(dateLayout, start.date)
			end = moment{date: d.AddDate(0, 0, days).Format(dateLayout), t: start.t.AddDate(0, 0, days)}
		} else {
			end = moment{t: start.t.Add(oldEnd.t.Sub(oldStart.t))}
		}
	case startIn != "" && start.allDay():
		end = oneDayAfter(start)
	case startIn != "":
		return nil, errors.New("the event changes from all-day to timed: give end too")
	case ok2:
		end = oldEnd
	}
	if start.allDay() != end.allDay() {
		return nil, fmt.Errorf("start and end must both be dates (all-day) or both be times; give both")
	}
	if start.allDay() && end.date == start.date {
		end = oneDayAfter(start)
	}
	if !end.t.After(start.t) {
		return nil, fmt.Errorf("end (%s) is not after start (%s)", valueOf(end), valueOf(start))
	}
	p.Start, p.End = start.eventTime(tz), end.eventTime(tz)
	if start.allDay() {
		p.Start.NullFields, p.End.NullFields = []string{"DateTime"}, []string{"DateTime"}
	} else {
		p.Start.NullFields, p.End.NullFields = []string{"Date"}, []string{"Date"}
	}
	return p, nil
}

func valueOf(m moment) string {
	if m.allDay() {
		return m.date
	}
	return m.t.Format(time.RFC3339)
}

func checkScope(scope string) (string, error) {
	switch scope {
	case "":
		return "this", nil
	case "this", "following", "all":
		return scope, nil
	}
	return "", fmt.Errorf("scope %q must be this, following or all", scope)
}

func (s *Server) updateEventTool(ctx context.Context, req *sdk.CallToolRequest, in updateEventIn) (*sdk.CallToolResult, updateEventOut, error) {
	var zero updateEventOut
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	scope, err := checkScope(in.Scope)
	if err != nil {
		return nil, zero, err
	}
	if err := checkSendUpdates(in.SendUpdates); err != nil {
		return nil, zero, err
	}
	calID := orPrimary(in.CalendarID)
	ev, err := s.getEvent(ctx, req, &email, calID, in.EventID)
	if err != nil {
		return nil, zero, err
	}
	calTZ, err := s.calendarZone(ctx, req, &email, calID)
	if err != nil {
		return nil, zero, err
	}
	target, err := s.scoped(ctx, req, &email, calID, ev, scope)
	if err != nil {
		return nil, zero, err
	}
	basis := target.ev
	if target.split {
		basis = target.inst
	}
	p, err := patchOf(in, basis, calTZ)
	if err != nil {
		return nil, zero, err
	}
	out := updateEventOut{Scope: scope}
	var got *gcal.Event
	if target.split {
		got, err = s.splitSeries(ctx, req, &email, calID, target, p, in)
		out.Note = "the series now ends before this occurrence; this and the following ones are a new series with id " + got.Id
	} else {
		err = s.api(ctx, req, &email, func(svc *gcal.Service) (err error) {
			call := svc.Events.Patch(calID, target.ev.Id, p).Context(ctx)
			if in.AddMeetLink {
				call = call.ConferenceDataVersion(1)
			}
			if in.SendUpdates != "" {
				call = call.SendUpdates(in.SendUpdates)
			}
			got, err = call.Do()
			return err
		})
		err = explain(err, "updating event "+target.ev.Id)
	}
	if err != nil {
		return nil, zero, err
	}
	s.markOwn(email, got.Id)
	if target.split {
		s.markOwn(email, target.ev.Id) // the series cut
	}
	out.Event = eventOf(email, calID, got)
	msg := "updated " + out.Event.line()
	if out.Note != "" {
		msg += "\n" + out.Note
	}
	return text(msg), out, nil
}

type deleteEventIn struct {
	Account     string `json:"account,omitempty" jsonschema:"the Google account (email); default the server's account"`
	CalendarID  string `json:"calendar_id,omitempty" jsonschema:"default primary"`
	EventID     string `json:"event_id,omitempty" jsonschema:"an id from list_events (an occurrence's id for recurring events)"`
	Scope       string `json:"scope,omitempty" jsonschema:"for recurring events: this (default), following or all"`
	SendUpdates string `json:"send_updates,omitempty" jsonschema:"all, externalOnly or none (default none)"`
}

type deleteEventOut struct {
	Deleted string `json:"deleted" jsonschema:"the id deleted (the series' id for scope all)"`
	Scope   string `json:"scope"`
	Summary string `json:"summary"`
}

func (s *Server) deleteEventTool(ctx context.Context, req *sdk.CallToolRequest, in deleteEventIn) (*sdk.CallToolResult, deleteEventOut, error) {
	var zero deleteEventOut
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	scope, err := checkScope(in.Scope)
	if err != nil {
		return nil, zero, err
	}
	if err := checkSendUpdates(in.SendUpdates); err != nil {
		return nil, zero, err
	}
	calID := orPrimary(in.CalendarID)
	ev, err := s.getEvent(ctx, req, &email, calID, in.EventID)
	if err != nil {
		return nil, zero, err
	}
	if ev.Status == "cancelled" {
		return nil, zero, fmt.Errorf("event %s is already deleted", ev.Id)
	}
	target, err := s.scoped(ctx, req, &email, calID, ev, scope)
	if err != nil {
		return nil, zero, err
	}
	if target.split {
		err = s.endSeriesBefore(ctx, req, &email, calID, target, in.SendUpdates)
	} else {
		err = s.api(ctx, req, &email, func(svc *gcal.Service) error {
			call := svc.Events.Delete(calID, target.ev.Id).Context(ctx)
			if in.SendUpdates != "" {
				call = call.SendUpdates(in.SendUpdates)
			}
			return call.Do()
		})
		err = explain(err, "deleting event "+target.ev.Id)
	}
	if err != nil {
		return nil, zero, err
	}
	s.markOwn(email, target.ev.Id)
	out := deleteEventOut{Deleted: target.ev.Id, Scope: scope, Summary: ev.Summary}
	if target.split {
		out.Deleted = ev.Id
	}
	return text(fmt.Sprintf("deleted %q (%s, scope %s)", ev.Summary, out.Deleted, scope)), out, nil
}

type respondIn struct {
	Account     string `json:"account,omitempty" jsonschema:"the Google account (email); default the server's account"`
	CalendarID  string `json:"calendar_id,omitempty" jsonschema:"default primary"`
	EventID     string `json:"event_id,omitempty"`
	Response    string `json:"response,omitempty" jsonschema:"accepted, declined or tentative"`
	Comment     string `json:"comment,omitempty" jsonschema:"a note to the organizer"`
	SendUpdates string `json:"send_updates,omitempty" jsonschema:"all, externalOnly or none (default: all, so the organizer hears)"`
}

func (s *Server) respondTool(ctx context.Context, req *sdk.CallToolRequest, in respondIn) (*sdk.CallToolResult, eventOut, error) {
	email, err := s.account(in.Account)
	if err != nil {
		return nil, eventOut{}, err
	}
	switch in.Response {
	case "accepted", "declined", "tentative":
	default:
		return nil, eventOut{}, fmt.Errorf("response %q must be accepted, declined or tentative", in.Response)
	}
	if err := checkSendUpdates(in.SendUpdates); err != nil {
		return nil, eventOut{}, err
	}
	calID := orPrimary(in.CalendarID)
	ev, err := s.getEvent(ctx, req, &email, calID, in.EventID)
	if err != nil {
		return nil, eventOut{}, err
	}
	var self *gcal.EventAttendee
	for _, a := range ev.Attendees {
		if a.Self || strings.EqualFold(a.Email, email) {
			self = a
		}
	}
	if self == nil {
		if ev.Organizer != nil && (ev.Organizer.Self || strings.EqualFold(ev.Organizer.Email, email)) {
			return nil, eventOut{}, fmt.Errorf("%s organizes event %s and is not invited to it: there is nothing to answer", email, ev.Id)
		}
		return nil, eventOut{}, fmt.Errorf("%s is not among the attendees of event %s", email, ev.Id)
	}
	self.ResponseStatus, self.Comment = in.Response, in.Comment
	sendUpdates := in.SendUpdates
	if sendUpdates == "" {
		sendUpdates = "all"
	}
	var got *gcal.Event
	err = s.api(ctx, req, &email, func(svc *gcal.Service) (err error) {
		got, err = svc.Events.Patch(calID, ev.Id, &gcal.Event{Attendees: ev.Attendees}).SendUpdates(sendUpdates).Context(ctx).Do()
		return err
	})
	if err != nil {
		return nil, eventOut{}, explain(err, "answering event "+ev.Id)
	}
	s.markOwn(email, got.Id)
	e := eventOf(email, calID, got)
	return text(in.Response + ": " + e.line()), eventOut{Event: e}, nil
}
