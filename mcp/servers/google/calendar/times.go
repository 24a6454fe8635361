package calendar

import (
	"fmt"
	"strings"
	"time"

	gcal "google.golang.org/api/calendar/v3"
)

// moment is a time a tool was given: a date (all-day) or an instant.
type moment struct {
	date string    // "2006-01-02" for all-day
	t    time.Time // the instant (midnight in the zone for a date)
}

func (m moment) allDay() bool { return m.date != "" }

const dateLayout = "2006-01-02"

// loadZone checks an IANA zone name given in field.
func loadZone(field, name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("%s is empty: pass an IANA time zone such as Europe/Berlin", field)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%s %q is not an IANA time zone (such as Europe/Berlin or America/New_York)", field, name)
	}
	return loc, nil
}

// parseMoment reads a time given in field: RFC 3339 with an offset, a
// local time (2006-01-02T15:04[:05]) read in tz (the tool's time_zone;
// "" when none was given), or a date for an all-day event (dates allowed
// only when dates is true). dateLoc is the zone a date's midnight is
// taken in.
func parseMoment(field, v, tz string, dates bool, dateLoc *time.Location) (moment, error) {
	v = strings.TrimSpace(v)
	if d, err := time.ParseInLocation(dateLayout, v, dateLoc); err == nil {
		if !dates {
			return moment{}, fmt.Errorf("%s %q is a date; it needs a time too (RFC 3339, e.g. %sT09:00:00+01:00)", field, v, v)
		}
		return moment{date: v, t: d}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return moment{t: t}, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if _, err := time.Parse(layout, v); err != nil {
			continue
		}
		if tz == "" {
			return moment{}, fmt.Errorf("%s %q has no UTC offset or zone: add an offset (%s+01:00, or Z for UTC) or pass time_zone (IANA, such as Europe/Berlin)",
				field, v, strings.Replace(v, " ", "T", 1))
		}
		loc, err := loadZone("time_zone", tz)
		if err != nil {
			return moment{}, err
		}
		t, _ := time.ParseInLocation(layout, v, loc)
		return moment{t: t}, nil
	}
	also := ""
	if dates {
		also = ", or a date for an all-day event (2026-12-03)"
	}
	return moment{}, fmt.Errorf("%s %q is not a time: use RFC 3339 (2026-12-03T09:00:00+01:00), a local time with time_zone (2026-12-03T09:00)%s", field, v, also)
}

// eventTime is m as Google takes it: a date, or the instant in zone tz
// with its offset, and the zone.
func (m moment) eventTime(tz string) *gcal.EventDateTime {
	if m.allDay() {
		return &gcal.EventDateTime{Date: m.date}
	}
	t := m.t
	if loc, err := time.LoadLocation(tz); err == nil && tz != "" {
		t = t.In(loc)
	}
	return &gcal.EventDateTime{DateTime: t.Format(time.RFC3339), TimeZone: tz}
}

// momentOf reads an event's time as Google returned it; dateLoc places a
// date's midnight.
func momentOf(dt *gcal.EventDateTime, dateLoc *time.Location) (moment, bool) {
	if dt == nil {
		return moment{}, false
	}
	if dt.Date != "" {
		d, err := time.ParseInLocation(dateLayout, dt.Date, dateLoc)
		return moment{date: dt.Date, t: d}, err == nil
	}
	t, err := time.Parse(time.RFC3339, dt.DateTime)
	return moment{t: t}, err == nil
}

// window reads time_min/time_max (defaults: now → +7 days); dates mean
// midnight in loc.
func window(minIn, maxIn string, now time.Time, loc *time.Location) (time.Time, time.Time, error) {
	from, to := now, now.AddDate(0, 0, 7)
	if minIn != "" {
		m, err := parseMoment("time_min", minIn, "", true, loc)
		if err != nil {
			return from, to, err
		}
		from = m.t
		if maxIn == "" {
			to = from.AddDate(0, 0, 7)
		}
	}
	if maxIn != "" {
		m, err := parseMoment("time_max", maxIn, "", true, loc)
		if err != nil {
			return from, to, err
		}
		to = m.t
	}
	if !to.After(from) {
		return from, to, fmt.Errorf("time_max (%s) must be after time_min (%s)", to.Format(time.RFC3339), from.Format(time.RFC3339))
	}
	return from, to, nil
}
