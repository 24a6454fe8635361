package calendar

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gcal "google.golang.org/api/calendar/v3"
)

// CalendarInfo is one calendar of list_calendars.
type CalendarInfo struct {
	Account    string `json:"account"`
	ID         string `json:"id"`
	Summary    string `json:"summary"`
	TimeZone   string `json:"time_zone"`
	Primary    bool   `json:"primary"`
	Selected   bool   `json:"selected" jsonschema:"shown in Google Calendar; list_events reads the selected calendars by default"`
	AccessRole string `json:"access_role" jsonschema:"owner, writer, reader or freeBusyReader"`
}

type listCalendarsIn struct {
	Account string `json:"account,omitempty" jsonschema:"the Google account (email), or \"all\"; default the server's account"`
}

type listCalendarsOut struct {
	Calendars []CalendarInfo `json:"calendars"`
}

// calendars lists an account's calendars, every page.
func (s *Server) calendars(ctx context.Context, req *sdk.CallToolRequest, email *string) ([]CalendarInfo, error) {
	var out []CalendarInfo
	token := ""
	for {
		var page *gcal.CalendarList
		err := s.api(ctx, req, email, func(svc *gcal.Service) (err error) {
			call := svc.CalendarList.List().Context(ctx)
			if token != "" {
				call = call.PageToken(token)
			}
			page, err = call.Do()
			return err
		})
		if err != nil {
			return nil, explain(err, "listing the calendars of "+*email)
		}
		for _, c := range page.Items {
			out = append(out, CalendarInfo{Account: *email, ID: c.Id, Summary: c.Summary, TimeZone: c.TimeZone,
				Primary: c.Primary, Selected: c.Selected || c.Primary, AccessRole: c.AccessRole})
		}
		if token = page.NextPageToken; token == "" {
			return out, nil
		}
	}
}

func (s *Server) listCalendarsTool(ctx context.Context, req *sdk.CallToolRequest, in listCalendarsIn) (*sdk.CallToolResult, listCalendarsOut, error) {
	emails, err := s.accountsFor(in.Account, true)
	if err != nil {
		return nil, listCalendarsOut{}, err
	}
	out := listCalendarsOut{Calendars: []CalendarInfo{}}
	var lines []string
	for _, email := range emails {
		cals, err := s.calendars(ctx, req, &email)
		if err != nil {
			return nil, listCalendarsOut{}, err
		}
		for _, c := range cals {
			out.Calendars = append(out.Calendars, c)
			flags := []string{c.TimeZone}
			if c.Primary {
				flags = append(flags, "primary")
			}
			if !c.Selected {
				flags = append(flags, "not selected")
			}
			lines = append(lines, fmt.Sprintf("%s [%s] of %s (%s)", c.Summary, c.ID, c.Account, strings.Join(flags, ", ")))
		}
	}
	return text(fmt.Sprintf("%d calendars:\n%s", len(out.Calendars), strings.Join(lines, "\n"))), out, nil
}

type listEventsIn struct {
	Account    string `json:"account,omitempty" jsonschema:"the Google account (email), or \"all\"; default the server's account"`
	CalendarID string `json:"calendar_id,omitempty" jsonschema:"a calendar id from list_calendars, or primary; default every selected calendar"`
	TimeMin    string `json:"time_min,omitempty" jsonschema:"RFC 3339 or a date; default now"`
	TimeMax    string `json:"time_max,omitempty" jsonschema:"RFC 3339 or a date; default 7 days after time_min"`
	Query      string `json:"query,omitempty" jsonschema:"text to find in summary, description, location or attendees"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"at most this many events in all (default 1000)"`
}

type listEventsOut struct {
	TimeMin   string  `json:"time_min"`
	TimeMax   string  `json:"time_max"`
	Events    []Event `json:"events"`
	Truncated bool    `json:"truncated" jsonschema:"true when max_results cut the list"`
}

// defaultMaxResults bounds list_events without max_results.
const defaultMaxResults = 1000

// maxTextLines bounds the events in list_events' text mirror.
const maxTextLines = 50

// eventsIn lists the events of one calendar in [from, to), every page,
// at most max.
func (s *Server) eventsIn(ctx context.Context, req *sdk.CallToolRequest, email *string, calID string, from, to time.Time, query string, max int) ([]Event, bool, error) {
	var out []Event
	token := ""
	for {
		var page *gcal.Events
		err := s.api(ctx, req, email, func(svc *gcal.Service) (err error) {
			call := svc.Events.List(calID).Context(ctx).SingleEvents(true).OrderBy("startTime").
				TimeMin(from.Format(time.RFC3339)).TimeMax(to.Format(time.RFC3339)).MaxResults(int64(min(max, 250)))
			if query != "" {
				call = call.Q(query)
			}
			if token != "" {
				call = call.PageToken(token)
			}
			page, err = call.Do()
			return err
		})
		if err != nil {
			return nil, false, explainCalendar(err, *email, calID, "listing the events")
		}
		for _, ev := range page.Items {
			if len(out) == max {
				return out, true, nil
			}
			out = append(out, eventOf(*email, calID, ev))
		}
		if token = page.NextPageToken; token == "" {
			return out, false, nil
		}
	}
}

// explainCalendar words an error of a call on a calendar; a missing
// calendar says where to find the ids.
func explainCalendar(err error, email, calID, doing string) error {
	if google.StatusCode(err) == 404 {
		return fmt.Errorf("%s: there is no calendar %q in %s (list_calendars shows the ids; primary is the main one)", doing, calID, email)
	}
	return explain(err, doing+" of calendar "+calID)
}

func (s *Server) listEventsTool(ctx context.Context, req *sdk.CallToolRequest, in listEventsIn) (*sdk.CallToolResult, listEventsOut, error) {
	if in.MaxResults < 0 {
		return nil, listEventsOut{}, errors.New("max_results must be positive")
	}
	max := in.MaxResults
	if max == 0 {
		max = defaultMaxResults
	}
	emails, err := s.accountsFor(in.Account, true)
	if err != nil {
		return nil, listEventsOut{}, err
	}
	out := listEventsOut{Events: []Event{}}
	var from, to time.Time
	for _, email := range emails {
		tz, err := s.zone(ctx, req, &email)
		if err != nil {
			return nil, listEventsOut{}, err
		}
		loc, _ := time.LoadLocation(tz)
		from, to, err = window(in.TimeMin, in.TimeMax, s.opts.Now(), loc)
		if err != nil {
			return nil, listEventsOut{}, err
		}
		calIDs := []string{in.CalendarID}
		if in.CalendarID == "" {
			cals, err := s.calendars(ctx, req, &email)
			if err != nil {
				return nil, listEventsOut{}, err
			}
			calIDs = calIDs[:0]
			for _, c := range cals {
				if c.Selected {
					calIDs = append(calIDs, c.ID)
				}
			}
		}
		for _, id := range calIDs {
			evs, cut, err := s.eventsIn(ctx, req, &email, id, from, to, in.Query, max)
			if err != nil {
				return nil, listEventsOut{}, err
			}
			out.Events = append(out.Events, evs...)
			out.Truncated = out.Truncated || cut
		}
	}
	sort.SliceStable(out.Events, func(i, j int) bool {
		return out.Events[i].startTime(time.UTC).Before(out.Events[j].startTime(time.UTC))
	})
	if len(out.Events) > max {
		out.Events, out.Truncated = out.Events[:max], true
	}
	out.TimeMin, out.TimeMax = from.Format(time.RFC3339), to.Format(time.RFC3339)
	var b strings.Builder
	fmt.Fprintf(&b, "%d events from %s to %s", len(out.Events), out.TimeMin, out.TimeMax)
	if out.Truncated {
		b.WriteString(" (more exist: raise max_results or narrow the window)")
	}
	for i, e := range out.Events {
		if i == maxTextLines {
			fmt.Fprintf(&b, "\n… and %d more (all of them in the structured result)", len(out.Events)-i)
			break
		}
		b.WriteString("\n" + e.line())
	}
	return text(b.String()), out, nil
}

type getEventIn struct {
	Account    string `json:"account,omitempty" jsonschema:"the Google account (email); default the server's account"`
	CalendarID string `json:"calendar_id,omitempty" jsonschema:"default primary"`
	EventID    string `json:"event_id,omitempty" jsonschema:"an id from list_events"`
}

type eventOut struct {
	Event Event `json:"event"`
}

// getEvent reads one event; a missing one says where ids come from.
func (s *Server) getEvent(ctx context.Context, req *sdk.CallToolRequest, email *string, calID, id string) (*gcal.Event, error) {
	if id == "" {
		return nil, errors.New("event_id is required: list_events shows the ids")
	}
	var ev *gcal.Event
	err := s.api(ctx, req, email, func(svc *gcal.Service) (err error) {
		ev, err = svc.Events.Get(calID, id).Context(ctx).Do()
		return err
	})
	if google.StatusCode(err) == 404 {
		return nil, fmt.Errorf("there is no event %q in calendar %q of %s (list_events shows the ids; is calendar_id right?)", id, calID, *email)
	}
	if err != nil {
		return nil, explain(err, "reading event "+id)
	}
	return ev, nil
}

func (s *Server) getEventTool(ctx context.Context, req *sdk.CallToolRequest, in getEventIn) (*sdk.CallToolResult, eventOut, error) {
	email, err := s.account(in.Account)
	if err != nil {
		return nil, eventOut{}, err
	}
	calID := orPrimary(in.CalendarID)
	ev, err := s.getEvent(ctx, req, &email, calID, in.EventID)
	if err != nil {
		return nil, eventOut{}, err
	}
	e := eventOf(email, calID, ev)
	return text(e.line()), eventOut{Event: e}, nil
}

func orPrimary(id string) string {
	if id == "" {
		return "primary"
	}
	return id
}

type currentTimeIn struct {
	Account  string `json:"account,omitempty" jsonschema:"whose primary calendar's zone to use; default the server's account"`
	TimeZone string `json:"time_zone,omitempty" jsonschema:"an IANA zone to use instead"`
}

type currentTimeOut struct {
	Now      string `json:"now" jsonschema:"RFC 3339 with the zone's offset"`
	TimeZone string `json:"time_zone"`
	Date     string `json:"date"`
	Weekday  string `json:"weekday"`
	UTC      string `json:"utc"`
}

func (s *Server) currentTimeTool(ctx context.Context, req *sdk.CallToolRequest, in currentTimeIn) (*sdk.CallToolResult, currentTimeOut, error) {
	tz := in.TimeZone
	if tz == "" {
		tz = s.opts.Location.String()
		// The person's zone is their calendar's; without an account (or
		// offline) the machine's.
		if email, err := s.account(in.Account); err == nil && email != "" {
			if z, err := s.zone(ctx, req, &email); err == nil {
				tz = z
			}
		} else if in.Account != "" {
			return nil, currentTimeOut{}, err
		}
	}
	loc, err := loadZone("time_zone", tz)
	if err != nil {
		return nil, currentTimeOut{}, err
	}
	now := s.opts.Now().In(loc)
	out := currentTimeOut{Now: now.Format(time.RFC3339), TimeZone: loc.String(), Date: now.Format(dateLayout),
		Weekday: now.Weekday().String(), UTC: now.UTC().Format(time.RFC3339)}
	return text(fmt.Sprintf("%s, %s (%s)", out.Weekday, out.Now, out.TimeZone)), out, nil
}
