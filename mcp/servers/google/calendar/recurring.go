package calendar

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gcal "google.golang.org/api/calendar/v3"
)

// scopedTarget is where a change of a given scope goes.
type scopedTarget struct {
	ev    *gcal.Event // the event changed: the occurrence, or the series
	split bool        // scope following of a later occurrence: the series is cut before inst
	inst  *gcal.Event // the occurrence the tool was given (split only)
}

// scoped resolves scope for ev: this is ev itself (refused for a whole
// series), all is its series, following is its series cut at ev.
func (s *Server) scoped(ctx context.Context, req *sdk.CallToolRequest, email *string, calID string, ev *gcal.Event, scope string) (scopedTarget, error) {
	isSeries, isInstance := len(ev.Recurrence) > 0, ev.RecurringEventId != ""
	switch {
	case scope == "this" && isSeries:
		return scopedTarget{}, fmt.Errorf("event %s is a whole recurring series: pass scope \"all\" to change every occurrence, "+
			"or the id of one occurrence (list_events shows them, with recurring_event_id %s) with scope \"this\" or \"following\"", ev.Id, ev.Id)
	case scope == "this" || !isInstance:
		return scopedTarget{ev: ev}, nil
	}
	master, err := s.getEvent(ctx, req, email, calID, ev.RecurringEventId)
	if err != nil {
		return scopedTarget{}, err
	}
	if scope == "all" || sameTime(ev.OriginalStartTime, master.Start) {
		return scopedTarget{ev: master}, nil
	}
	return scopedTarget{ev: master, split: true, inst: ev}, nil
}

func sameTime(a, b *gcal.EventDateTime) bool {
	if a == nil || b == nil {
		return false
	}
	if a.Date != "" || b.Date != "" {
		return a.Date == b.Date
	}
	ta, err1 := time.Parse(time.RFC3339, a.DateTime)
	tb, err2 := time.Parse(time.RFC3339, b.DateTime)
	return err1 == nil && err2 == nil && ta.Equal(tb)
}

// rrule returns the series' RRULE parts (name → value) and its index.
func rrule(lines []string) (parts []string, index int) {
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "RRULE:"); ok {
			return strings.Split(rest, ";"), i
		}
	}
	return nil, -1
}

// withRule replaces the RRULE's COUNT and UNTIL with extra.
func withRule(lines []string, extra string) []string {
	parts, i := rrule(lines)
	if i < 0 {
		return lines
	}
	var kept []string
	for _, p := range parts {
		if !strings.HasPrefix(p, "COUNT=") && !strings.HasPrefix(p, "UNTIL=") {
			kept = append(kept, p)
		}
	}
	if extra != "" {
		kept = append(kept, extra)
	}
	out := append([]string(nil), lines...)
	out[i] = "RRULE:" + strings.Join(kept, ";")
	return out
}

// untilBefore is the UNTIL that ends a series just before an occurrence
// starting at orig.
func untilBefore(orig *gcal.EventDateTime) string {
	if orig.Date != "" {
		d, _ := time.Parse(dateLayout, orig.Date)
		return "UNTIL=" + d.AddDate(0, 0, -1).Format("20060102")
	}
	t, _ := time.Parse(time.RFC3339, orig.DateTime)
	return "UNTIL=" + t.Add(-time.Second).UTC().Format("20060102T150405Z")
}

// endSeriesBefore cuts t's series so that it ends before t.inst.
func (s *Server) endSeriesBefore(ctx context.Context, req *sdk.CallToolRequest, email *string, calID string, t scopedTarget, sendUpdates string) error {
	p := &gcal.Event{Recurrence: withRule(t.ev.Recurrence, untilBefore(t.inst.OriginalStartTime))}
	err := s.api(ctx, req, email, func(svc *gcal.Service) error {
		call := svc.Events.Patch(calID, t.ev.Id, p).Context(ctx)
		if sendUpdates != "" {
			call = call.SendUpdates(sendUpdates)
		}
		_, err := call.Do()
		return err
	})
	return explain(err, "ending series "+t.ev.Id+" before "+t.inst.Id)
}

// splitSeries applies patch p to t.inst and the occurrences after it: a
// new series from t.inst on (COUNT lowered by the occurrences before),
// patched, and the old one cut before it. It returns the new series.
func (s *Server) splitSeries(ctx context.Context, req *sdk.CallToolRequest, email *string, calID string, t scopedTarget, p *gcal.Event, in updateEventIn) (*gcal.Event, error) {
	m := t.ev
	rec := m.Recurrence
	if parts, _ := rrule(rec); parts != nil {
		for _, part := range parts {
			if v, ok := strings.CutPrefix(part, "COUNT="); ok {
				n, _ := strconv.Atoi(v)
				before, err := s.countBefore(ctx, req, email, calID, m.Id, t.inst.OriginalStartTime)
				if err != nil {
					return nil, err
				}
				rec = withRule(rec, "COUNT="+strconv.Itoa(max(n-before, 1)))
			}
		}
	}
	next := &gcal.Event{Summary: m.Summary, Description: m.Description, Location: m.Location, Attendees: m.Attendees,
		Reminders: m.Reminders, Transparency: m.Transparency, Visibility: m.Visibility, ColorId: m.ColorId,
		Start: t.inst.Start, End: t.inst.End, Recurrence: rec}
	for _, a := range next.Attendees {
		a.Self = false
	}
	var got *gcal.Event
	err := s.api(ctx, req, email, func(svc *gcal.Service) (err error) {
		got, err = svc.Events.Insert(calID, next).Context(ctx).Do()
		return err
	})
	if err != nil {
		return nil, explain(err, "starting the new series at "+t.inst.Id)
	}
	s.markOwn(*email, got.Id)
	err = s.api(ctx, req, email, func(svc *gcal.Service) (err error) {
		call := svc.Events.Patch(calID, got.Id, p).Context(ctx)
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
		return nil, explain(err, "changing the new series "+got.Id)
	}
	if err := s.endSeriesBefore(ctx, req, email, calID, t, in.SendUpdates); err != nil {
		return nil, err
	}
	return got, nil
}

// countBefore counts a series' occurrences (cancelled ones too, as COUNT
// does) starting before orig.
func (s *Server) countBefore(ctx context.Context, req *sdk.CallToolRequest, email *string, calID, id string, orig *gcal.EventDateTime) (int, error) {
	limit := orig.DateTime
	if orig.Date != "" {
		limit = orig.Date + "T00:00:00Z"
	}
	n, token := 0, ""
	for {
		var page *gcal.Events
		err := s.api(ctx, req, email, func(svc *gcal.Service) (err error) {
			call := svc.Events.Instances(calID, id).Context(ctx).TimeMax(limit).ShowDeleted(true).MaxResults(2500)
			if token != "" {
				call = call.PageToken(token)
			}
			page, err = call.Do()
			return err
		})
		if err != nil {
			return 0, explain(err, "counting the occurrences of "+id)
		}
		for _, ev := range page.Items {
			if !sameTime(ev.OriginalStartTime, orig) {
				n++
			}
		}
		if token = page.NextPageToken; token == "" {
			return n, nil
		}
	}
}
