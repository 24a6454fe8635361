package calendar

import (
	"fmt"
	"strings"
	"time"

	gcal "google.golang.org/api/calendar/v3"
)

// Event is an event as the tools return it: what Google stored.
type Event struct {
	Account          string     `json:"account"`
	CalendarID       string     `json:"calendar_id"`
	ID               string     `json:"id"`
	Status           string     `json:"status" jsonschema:"confirmed, tentative or cancelled"`
	Summary          string     `json:"summary"`
	Start            EventTime  `json:"start"`
	End              EventTime  `json:"end"`
	AllDay           bool       `json:"all_day"`
	LastDay          string     `json:"last_day,omitempty" jsonschema:"for all-day events: the last day it covers (end.date is the day after, as Google stores it)"`
	Location         string     `json:"location,omitempty"`
	Description      string     `json:"description,omitempty"`
	Organizer        string     `json:"organizer,omitempty"`
	Attendees        []Attendee `json:"attendees,omitempty"`
	MyResponse       string     `json:"my_response,omitempty" jsonschema:"your answer to an invitation: needsAction, accepted, declined or tentative"`
	Recurrence       []string   `json:"recurrence,omitempty"`
	RecurringEventID string     `json:"recurring_event_id,omitempty" jsonschema:"the series this occurrence belongs to"`
	MeetLink         string     `json:"meet_link,omitempty"`
	Reminders        []int64    `json:"reminders,omitempty" jsonschema:"popup reminders, minutes before; empty with the calendar's default"`
	HTMLLink         string     `json:"html_link,omitempty"`
	Updated          string     `json:"updated,omitempty"`
}

// EventTime is Google's start or end: a date (all-day) or a dateTime with
// its offset, and the zone.
type EventTime struct {
	Date     string `json:"date,omitempty" jsonschema:"all-day events: YYYY-MM-DD"`
	DateTime string `json:"date_time,omitempty" jsonschema:"RFC 3339 with offset"`
	TimeZone string `json:"time_zone,omitempty"`
}

// Attendee is one guest and their answer.
type Attendee struct {
	Email          string `json:"email"`
	Name           string `json:"name,omitempty"`
	ResponseStatus string `json:"response_status" jsonschema:"needsAction, accepted, declined or tentative"`
	Optional       bool   `json:"optional,omitempty"`
	Organizer      bool   `json:"organizer,omitempty"`
	Self           bool   `json:"self,omitempty"`
	Comment        string `json:"comment,omitempty"`
}

func eventTimeOf(dt *gcal.EventDateTime) EventTime {
	if dt == nil {
		return EventTime{}
	}
	return EventTime{Date: dt.Date, DateTime: dt.DateTime, TimeZone: dt.TimeZone}
}

// value is the time as one string (a date or a dateTime).
func (t EventTime) value() string {
	if t.Date != "" {
		return t.Date
	}
	return t.DateTime
}

// eventOf converts what Google returned.
func eventOf(account, calID string, ev *gcal.Event) Event {
	out := Event{Account: account, CalendarID: calID, ID: ev.Id, Status: ev.Status, Summary: ev.Summary,
		Start: eventTimeOf(ev.Start), End: eventTimeOf(ev.End), Location: ev.Location, Description: ev.Description,
		Recurrence: ev.Recurrence, RecurringEventID: ev.RecurringEventId, MeetLink: ev.HangoutLink,
		HTMLLink: ev.HtmlLink, Updated: ev.Updated}
	if ev.Start != nil && ev.Start.Date != "" {
		out.AllDay = true
		if d, err := time.Parse(dateLayout, out.End.Date); err == nil {
			out.LastDay = d.AddDate(0, 0, -1).Format(dateLayout)
		}
	}
	if ev.Organizer != nil {
		out.Organizer = ev.Organizer.Email
	}
	if out.MeetLink == "" && ev.ConferenceData != nil {
		for _, ep := range ev.ConferenceData.EntryPoints {
			if ep.EntryPointType == "video" {
				out.MeetLink = ep.Uri
			}
		}
	}
	for _, a := range ev.Attendees {
		out.Attendees = append(out.Attendees, Attendee{Email: a.Email, Name: a.DisplayName, ResponseStatus: a.ResponseStatus,
			Optional: a.Optional, Organizer: a.Organizer, Self: a.Self, Comment: a.Comment})
		if a.Self {
			out.MyResponse = a.ResponseStatus
		}
	}
	if ev.Reminders != nil {
		for _, o := range ev.Reminders.Overrides {
			if o.Method == "popup" {
				out.Reminders = append(out.Reminders, o.Minutes)
			}
		}
	}
	return out
}

// line is an event in one line of the text mirror.
func (e Event) line() string {
	var b strings.Builder
	if e.AllDay {
		b.WriteString(e.Start.Date)
		if e.LastDay != "" && e.LastDay != e.Start.Date {
			b.WriteString(" to " + e.LastDay)
		}
		b.WriteString(" (all day)")
	} else {
		b.WriteString(e.Start.DateTime + " to " + shortEnd(e.Start.DateTime, e.End.DateTime))
	}
	summary := e.Summary
	if summary == "" {
		summary = "(no title)"
	}
	fmt.Fprintf(&b, " %s [%s", summary, e.ID)
	if e.CalendarID != "" {
		b.WriteString(" in " + e.CalendarID)
	}
	b.WriteString("]")
	if e.Status == "cancelled" {
		b.WriteString(" cancelled")
	}
	return b.String()
}

// shortEnd drops the end's date when it is the start's.
func shortEnd(start, end string) string {
	if len(start) >= 11 && len(end) >= 11 && start[:11] == end[:11] {
		return end[11:]
	}
	return end
}

// startTime is when the event starts, dates at midnight in loc.
func (e Event) startTime(loc *time.Location) time.Time {
	if e.Start.Date != "" {
		t, _ := time.ParseInLocation(dateLayout, e.Start.Date, loc)
		return t
	}
	t, _ := time.Parse(time.RFC3339, e.Start.DateTime)
	return t
}
