package googletest

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/api/calendar/v3"
)

// when is an event time resolved: its instant and, for all-day events,
// its date.
type when struct {
	t      time.Time
	allDay bool
	loc    *time.Location // the zone its wall clock is read in
}

// resolve reads dt as Google does: a date (all-day, midnight in the
// calendar's zone), or a dateTime with an offset, or one without an
// offset read in dt.TimeZone. which is "start" or "end", for messages.
func resolve(dt *calendar.EventDateTime, calTZ, which string) (when, error) {
	if dt == nil || (dt.Date == "" && dt.DateTime == "") {
		return when{}, googleMsgf("Missing %s time.", which)
	}
	if dt.Date != "" && dt.DateTime != "" {
		return when{}, googleMsgf("Invalid %s time: give either a date or a dateTime.", which)
	}
	tzName := dt.TimeZone
	if tzName == "" {
		tzName = calTZ
	}
	loc, err := loadLocation(tzName)
	if err != nil || tzName == "" || tzName == "Local" {
		if dt.TimeZone != "" {
			return when{}, googleMsgf("Invalid time zone definition for %s time.", which)
		}
		loc = time.UTC
	}
	if dt.Date != "" {
		d, err := time.ParseInLocation("2006-01-02", dt.Date, loc)
		if err != nil {
			return when{}, googleMsgf("Invalid %s time.", which)
		}
		return when{t: d, allDay: true, loc: loc}, nil
	}
	if t, err := time.Parse(time.RFC3339, dt.DateTime); err == nil {
		if dt.TimeZone == "" {
			loc = t.Location()
		}
		return when{t: t, loc: loc}, nil
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05", dt.DateTime, loc)
	if err != nil {
		return when{}, googleMsgf("Invalid %s time.", which)
	}
	if dt.TimeZone == "" {
		return when{}, googleMsgf("Missing time zone definition for %s time.", which)
	}
	return when{t: t, loc: loc}, nil
}

// format writes w as Google returns it: a date, or a dateTime with its
// offset in the event's zone.
func (w when) format(tz string) *calendar.EventDateTime {
	if w.allDay {
		return &calendar.EventDateTime{Date: w.t.Format("2006-01-02"), TimeZone: tz}
	}
	return &calendar.EventDateTime{DateTime: w.t.In(w.loc).Format(time.RFC3339), TimeZone: tz}
}

// zones caches time.LoadLocation, which reads the zone database each
// time: the fake resolves every event's times on every list.
var zones sync.Map // name → *time.Location

func loadLocation(name string) (*time.Location, error) {
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location), nil
	}
	l, err := time.LoadLocation(name)
	if err == nil {
		zones.Store(name, l)
	}
	return l, err
}

// rule is the part of an RRULE the fake expands.
type rule struct {
	freq     string
	interval int
	count    int
	until    time.Time // UNTIL as a time
	untilDay string    // UNTIL as a date (20060102), compared with the occurrence's date in its zone
	byDay    []time.Weekday
}

var weekdays = map[string]time.Weekday{"SU": time.Sunday, "MO": time.Monday, "TU": time.Tuesday, "WE": time.Wednesday,
	"TH": time.Thursday, "FR": time.Friday, "SA": time.Saturday}

// parseRecurrence reads an event's recurrence lines: one RRULE (DAILY,
// WEEKLY with BYDAY, MONTHLY, YEARLY; INTERVAL, COUNT, UNTIL); EXDATE and
// RDATE lines are accepted and ignored.
func parseRecurrence(lines []string) (*rule, error) {
	var r *rule
	for _, l := range lines {
		name, val, ok := strings.Cut(l, ":")
		if !ok {
			return nil, googleMsg("Invalid recurrence rule.")
		}
		switch {
		case name == "RRULE":
			if r != nil {
				return nil, googleMsg("Invalid recurrence rule.")
			}
			r = &rule{interval: 1}
			for _, part := range strings.Split(val, ";") {
				k, v, _ := strings.Cut(part, "=")
				switch k {
				case "FREQ":
					if v != "DAILY" && v != "WEEKLY" && v != "MONTHLY" && v != "YEARLY" {
						return nil, googleMsg("Invalid recurrence rule.")
					}
					r.freq = v
				case "INTERVAL":
					n, err := strconv.Atoi(v)
					if err != nil || n < 1 {
						return nil, googleMsg("Invalid recurrence rule.")
					}
					r.interval = n
				case "COUNT":
					n, err := strconv.Atoi(v)
					if err != nil || n < 1 {
						return nil, googleMsg("Invalid recurrence rule.")
					}
					r.count = n
				case "UNTIL":
					t, err := time.Parse("20060102T150405Z", v)
					if err != nil {
						if _, derr := time.Parse("20060102", v); derr != nil {
							return nil, googleMsg("Invalid recurrence rule.")
						}
						r.untilDay = v
					}
					r.until = t
				case "BYDAY":
					for _, d := range strings.Split(v, ",") {
						wd, ok := weekdays[d]
						if !ok {
							return nil, googleMsg("Invalid recurrence rule.")
						}
						r.byDay = append(r.byDay, wd)
					}
				case "WKST":
				default:
					return nil, googleMsg("Invalid recurrence rule.")
				}
			}
			if r.freq == "" || (r.count > 0 && (!r.until.IsZero() || r.untilDay != "")) {
				return nil, googleMsg("Invalid recurrence rule.")
			}
		case strings.HasPrefix(name, "EXDATE"), strings.HasPrefix(name, "RDATE"):
		default:
			return nil, googleMsg("Invalid recurrence rule.")
		}
	}
	return r, nil
}

// maxOccurrences bounds the expansion of a series without an end.
const maxOccurrences = 1000

// occurrences lists the start times of a series starting at first, in
// first's zone (so a daily 9:00 stays 9:00 across a DST change), up to
// before (exclusive) or the rule's end.
func (r *rule) occurrences(first when, before time.Time) []time.Time {
	var out []time.Time
	loc := first.loc
	base := first.t.In(loc)
	y, m, d := base.Date()
	hh, mm, ss := base.Clock()
	at := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, hh, mm, ss, 0, loc) }
	for step := 0; len(out) < maxOccurrences; step++ {
		var cands []time.Time
		switch r.freq {
		case "DAILY":
			cands = []time.Time{at(y, m, d+step*r.interval)}
		case "WEEKLY":
			weekStart := at(y, m, d+7*step*r.interval-int(base.Weekday()))
			if len(r.byDay) == 0 {
				cands = []time.Time{at(y, m, d+7*step*r.interval)}
			}
			for _, wd := range sortedDays(r.byDay) {
				cands = append(cands, at(weekStart.Year(), weekStart.Month(), weekStart.Day()+int(wd)))
			}
		case "MONTHLY":
			cands = []time.Time{at(y, m+time.Month(step*r.interval), d)}
		case "YEARLY":
			cands = []time.Time{at(y+step*r.interval, m, d)}
		}
		for _, c := range cands {
			if c.Before(base) {
				continue
			}
			if (!r.until.IsZero() && c.After(r.until)) || (r.untilDay != "" && c.Format("20060102") > r.untilDay) || (r.count > 0 && len(out) >= r.count) || (!before.IsZero() && !c.Before(before)) {
				return out
			}
			out = append(out, c)
		}
	}
	return out
}

func sortedDays(ds []time.Weekday) []time.Weekday {
	out := append([]time.Weekday(nil), ds...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// instanceID is the id Google gives an instance of series id starting at t.
func instanceID(id string, t time.Time, allDay bool) string {
	if allDay {
		return id + "_" + t.Format("20060102")
	}
	return id + "_" + t.UTC().Format("20060102T150405Z")
}

// googleMsg is an error worded as Google words it in its answers
// ("Missing end time."), capitals and full stop included.
type googleMsg string

func (m googleMsg) Error() string { return string(m) }

func googleMsgf(format string, args ...any) error { return googleMsg(fmt.Sprintf(format, args...)) }
