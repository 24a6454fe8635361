package calendar

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gcal "google.golang.org/api/calendar/v3"
)

type findFreeTimeIn struct {
	Account           string   `json:"account,omitempty" jsonschema:"the Google account (email), or \"all\" to be free in every account; default the server's account"`
	CalendarIDs       []string `json:"calendar_ids,omitempty" jsonschema:"calendars to check; default every selected calendar"`
	TimeMin           string   `json:"time_min,omitempty" jsonschema:"RFC 3339 or a date; default now"`
	TimeMax           string   `json:"time_max,omitempty" jsonschema:"RFC 3339 or a date; default 7 days after time_min"`
	DurationMinutes   int      `json:"duration_minutes,omitempty" jsonschema:"length of the slot wanted (default 30)"`
	WorkingHoursStart string   `json:"working_hours_start,omitempty" jsonschema:"HH:MM, default 09:00"`
	WorkingHoursEnd   string   `json:"working_hours_end,omitempty" jsonschema:"HH:MM, default 17:00"`
	IncludeWeekends   bool     `json:"include_weekends,omitempty"`
	TimeZone          string   `json:"time_zone,omitempty" jsonschema:"IANA zone of the working hours; default the primary calendar's"`
}

// Busy is a busy interval of a calendar.
type Busy struct {
	Account    string `json:"account"`
	CalendarID string `json:"calendar_id"`
	Start      string `json:"start"`
	End        string `json:"end"`
}

// Slot is a free interval at least the asked duration long.
type Slot struct {
	Start   string `json:"start"`
	End     string `json:"end"`
	Minutes int    `json:"minutes"`
}

type findFreeTimeOut struct {
	TimeZone string `json:"time_zone"`
	Busy     []Busy `json:"busy"`
	Free     []Slot `json:"free"`
}

// maxSlots bounds the free slots returned.
const maxSlots = 50

func clock(field, v, def string) (time.Duration, error) {
	if v == "" {
		v = def
	}
	t, err := time.Parse("15:04", v)
	if err != nil {
		return 0, fmt.Errorf("%s %q must be HH:MM (e.g. %s)", field, v, def)
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, nil
}

type interval struct{ s, e time.Time }

func (s *Server) findFreeTimeTool(ctx context.Context, req *sdk.CallToolRequest, in findFreeTimeIn) (*sdk.CallToolResult, findFreeTimeOut, error) {
	var zero findFreeTimeOut
	dur := time.Duration(in.DurationMinutes) * time.Minute
	if in.DurationMinutes == 0 {
		dur = 30 * time.Minute
	}
	if dur <= 0 || dur > 24*time.Hour {
		return nil, zero, fmt.Errorf("duration_minutes %d must be between 1 and 1440", in.DurationMinutes)
	}
	whStart, err := clock("working_hours_start", in.WorkingHoursStart, "09:00")
	if err != nil {
		return nil, zero, err
	}
	whEnd, err := clock("working_hours_end", in.WorkingHoursEnd, "17:00")
	if err != nil {
		return nil, zero, err
	}
	if whEnd <= whStart {
		return nil, zero, fmt.Errorf("working_hours_end must be after working_hours_start")
	}
	emails, err := s.accountsFor(in.Account, true)
	if err != nil {
		return nil, zero, err
	}
	tz := in.TimeZone
	if tz == "" {
		if tz, err = s.zone(ctx, req, &emails[0]); err != nil {
			return nil, zero, err
		}
	}
	loc, err := loadZone("time_zone", tz)
	if err != nil {
		return nil, zero, err
	}
	from, to, err := window(in.TimeMin, in.TimeMax, s.opts.Now(), loc)
	if err != nil {
		return nil, zero, err
	}
	out := findFreeTimeOut{TimeZone: tz, Busy: []Busy{}, Free: []Slot{}}
	var busy []interval
	for _, email := range emails {
		ids := in.CalendarIDs
		if len(ids) == 0 {
			cals, err := s.calendars(ctx, req, &email)
			if err != nil {
				return nil, zero, err
			}
			for _, c := range cals {
				if c.Selected {
					ids = append(ids, c.ID)
				}
			}
		}
		fb := &gcal.FreeBusyRequest{TimeMin: from.Format(time.RFC3339), TimeMax: to.Format(time.RFC3339), TimeZone: tz}
		for _, id := range ids {
			fb.Items = append(fb.Items, &gcal.FreeBusyRequestItem{Id: id})
		}
		var res *gcal.FreeBusyResponse
		err := s.api(ctx, req, &email, func(svc *gcal.Service) (err error) {
			res, err = svc.Freebusy.Query(fb).Context(ctx).Do()
			return err
		})
		if err != nil {
			return nil, zero, explain(err, "asking free/busy of "+email)
		}
		for _, id := range ids {
			c := res.Calendars[id]
			if len(c.Errors) > 0 {
				return nil, zero, fmt.Errorf("calendar %q of %s: %s (list_calendars shows the ids)", id, email, c.Errors[0].Reason)
			}
			for _, b := range c.Busy {
				st, err1 := time.Parse(time.RFC3339, b.Start)
				en, err2 := time.Parse(time.RFC3339, b.End)
				if err1 != nil || err2 != nil {
					continue
				}
				busy = append(busy, interval{st, en})
				out.Busy = append(out.Busy, Busy{Account: email, CalendarID: id, Start: st.In(loc).Format(time.RFC3339), End: en.In(loc).Format(time.RFC3339)})
			}
		}
	}
	sort.Slice(out.Busy, func(i, j int) bool { return out.Busy[i].Start < out.Busy[j].Start })
	for _, f := range freeSlots(busy, from, to, loc, whStart, whEnd, in.IncludeWeekends, dur) {
		if len(out.Free) == maxSlots {
			break
		}
		out.Free = append(out.Free, Slot{Start: f.s.Format(time.RFC3339), End: f.e.Format(time.RFC3339), Minutes: int(f.e.Sub(f.s).Minutes())})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d busy intervals; free slots of %d min or more (%s):", len(out.Busy), int(dur.Minutes()), tz)
	for _, f := range out.Free {
		fmt.Fprintf(&b, "\n%s to %s (%d min)", f.Start, shortEnd(f.Start, f.End), f.Minutes)
	}
	if len(out.Free) == 0 {
		b.WriteString(" none")
	}
	return text(b.String()), out, nil
}

// freeSlots subtracts busy from the working hours of each day of
// [from, to) in loc, keeping the gaps at least dur long.
func freeSlots(busy []interval, from, to time.Time, loc *time.Location, whStart, whEnd time.Duration, weekends bool, dur time.Duration) []interval {
	sort.Slice(busy, func(i, j int) bool { return busy[i].s.Before(busy[j].s) })
	var out []interval
	f := from.In(loc)
	for day := time.Date(f.Year(), f.Month(), f.Day(), 0, 0, 0, 0, loc); day.Before(to); day = day.AddDate(0, 0, 1) {
		if !weekends && (day.Weekday() == time.Saturday || day.Weekday() == time.Sunday) {
			continue
		}
		// Wall-clock hours, right across a DST change.
		ws := time.Date(day.Year(), day.Month(), day.Day(), int(whStart/time.Hour), int(whStart%time.Hour/time.Minute), 0, 0, loc)
		we := time.Date(day.Year(), day.Month(), day.Day(), int(whEnd/time.Hour), int(whEnd%time.Hour/time.Minute), 0, 0, loc)
		ws, we = maxT(ws, from), minT(we, to)
		cur := ws
		for _, b := range busy {
			if !b.e.After(cur) || !b.s.Before(we) {
				continue
			}
			if b.s.Sub(cur) >= dur {
				out = append(out, interval{cur, b.s})
			}
			cur = maxT(cur, b.e)
		}
		if we.Sub(cur) >= dur {
			out = append(out, interval{cur, we})
		}
	}
	return out
}

func maxT(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minT(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
