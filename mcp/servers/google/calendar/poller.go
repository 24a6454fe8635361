package calendar

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	gcal "google.golang.org/api/calendar/v3"
)

// The notifications the poller sends.
const (
	MethodNewEvent       = "event/new_calendar_event"
	MethodEventUpdated   = "event/calendar_event_updated"
	MethodEventCancelled = "event/calendar_event_cancelled"
	MethodReminder       = "event/calendar_reminder"
)

// Notice is the params of the poller's notifications.
type Notice struct {
	Account    string `json:"account"`
	CalendarID string `json:"calendar_id"`
	EventID    string `json:"event_id"`
	Summary    string `json:"summary"`
	Start      string `json:"start"`
	End        string `json:"end"`
	Organizer  string `json:"organizer,omitempty"`
	HTMLLink   string `json:"html_link,omitempty"`
	Title      string `json:"title" jsonschema:"the desktop notification's text"`
}

// lookahead is how far ahead the poller knows the accepted events it may
// remind of; the window is read again when the calendar changes or half
// of it has passed.
const lookahead = 24 * time.Hour

// calendarListTTL is how long the poller keeps an account's list of
// selected calendars before reading it again.
const calendarListTTL = 15 * time.Minute

// poller syncs the selected calendars of every account. Its state is
// owned by the one goroutine calling once (Poll's), the cursors also
// saved to their file.
type poller struct {
	s   *Server
	cur *cursors

	mu   sync.Mutex // guards cals
	cals map[string]calList

	failing map[string]string // "account calendar" → the last error logged; owned by once's caller
}

type calList struct {
	ids []string
	at  time.Time
}

func (s *Server) newPoller() *poller {
	cur, err := loadCursors(s.opts.DataDir)
	if err != nil {
		s.log.Warn("calendar cursors", "err", err)
	}
	return &poller{s: s, cur: cur, cals: map[string]calList{}, failing: map[string]string{}}
}

// Poll syncs every Options.Poll until ctx ends; the first sync of a
// calendar only records where it stands.
func (s *Server) Poll(ctx context.Context) {
	p := s.newPoller()
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	for {
		p.once(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// once syncs each account's selected calendars one time and sends the
// reminders due.
func (p *poller) once(ctx context.Context) {
	emails, err := p.s.opts.Accounts.Emails()
	if err != nil {
		p.s.log.Warn("calendar poll: reading the accounts", "err", err)
		return
	}
	for _, email := range emails {
		ids, err := p.calendars(ctx, email)
		p.report(email, "", err)
		for _, id := range ids {
			if ctx.Err() != nil {
				return
			}
			p.report(email, id, p.sync(ctx, email, id))
		}
	}
	p.cur.prune(p.s.opts.Now())
	if err := p.cur.save(); err != nil {
		p.s.log.Warn("calendar poll", "err", err)
	}
}

// report logs a failing sync once, not every poll (an account waiting to
// sign in again fails until it does), and when it works again.
func (p *poller) report(email, calID string, err error) {
	k := cursorKey(email, calID)
	switch {
	case err == nil && p.failing[k] != "":
		delete(p.failing, k)
		p.s.log.Info("calendar poll works again", "account", email, "calendar", calID)
	case err != nil && p.failing[k] != err.Error():
		p.failing[k] = err.Error()
		p.s.log.Warn("calendar poll", "account", email, "calendar", calID, "err", err)
	}
}

// calendars is the account's selected calendars, read again every
// calendarListTTL.
func (p *poller) calendars(ctx context.Context, email string) ([]string, error) {
	now := p.s.opts.Now()
	p.mu.Lock()
	l, ok := p.cals[email]
	p.mu.Unlock()
	if ok && now.Sub(l.at) < calendarListTTL {
		return l.ids, nil
	}
	var ids []string
	token := ""
	for {
		var page *gcal.CalendarList
		err := p.s.try(ctx, email, func(svc *gcal.Service) (err error) {
			call := svc.CalendarList.List().Context(ctx)
			if token != "" {
				call = call.PageToken(token)
			}
			page, err = call.Do()
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, c := range page.Items {
			if c.Selected || c.Primary {
				ids = append(ids, c.Id)
			}
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	p.mu.Lock()
	p.cals[email] = calList{ids: ids, at: now}
	p.mu.Unlock()
	return ids, nil
}

// list reads every page of a sync (syncToken), a fallback (updatedMin)
// or a full list (neither), returning the items, the next sync token and
// the calendar's last modification.
func (p *poller) list(ctx context.Context, email, calID, syncToken, updatedMin string) ([]*gcal.Event, string, string, error) {
	var items []*gcal.Event
	token, updated := "", ""
	for {
		var page *gcal.Events
		err := p.s.try(ctx, email, func(svc *gcal.Service) (err error) {
			call := svc.Events.List(calID).Context(ctx).MaxResults(250)
			switch {
			case syncToken != "":
				call = call.SyncToken(syncToken)
			case updatedMin != "":
				call = call.UpdatedMin(updatedMin).ShowDeleted(true)
			}
			if token != "" {
				call = call.PageToken(token)
			}
			page, err = call.Do()
			return err
		})
		if err != nil {
			return nil, "", "", err
		}
		items = append(items, page.Items...)
		updated = page.Updated
		if token = page.NextPageToken; token == "" {
			return items, page.NextSyncToken, updated, nil
		}
	}
}

// sync brings one calendar's cursor up to date, announcing what changed
// since the last sync (nothing on the first one, nor after a 410).
func (p *poller) sync(ctx context.Context, email, calID string) error {
	cur := p.cur.get(email, calID)
	quiet := cur == nil || (cur.SyncToken == "" && cur.UpdatedMin == "")
	if cur == nil {
		cur = &calCursor{}
	}
	var items []*gcal.Event
	var next, updated string
	var err error
	switch {
	case quiet:
		items, next, updated, err = p.list(ctx, email, calID, "", "")
	case cur.SyncToken != "":
		items, next, updated, err = p.list(ctx, email, calID, cur.SyncToken, "")
		if google.StatusCode(err) == 410 {
			// The token expired: start over, announcing nothing old.
			p.s.log.Info("calendar sync token expired; syncing afresh", "account", email, "calendar", calID)
			quiet = true
			items, next, updated, err = p.list(ctx, email, calID, "", "")
		}
	default:
		items, next, updated, err = p.list(ctx, email, calID, "", cur.UpdatedMin)
	}
	if err != nil {
		return err
	}
	watermark := parseStamp(cur.Watermark)
	newMark := maxT(watermark, parseStamp(updated))
	changed := false
	for _, ev := range items {
		u := parseStamp(ev.Updated)
		newMark = maxT(newMark, u)
		if quiet || (cur.SyncToken == "" && !u.After(watermark)) {
			continue // the fallback's updatedMin is inclusive
		}
		changed = true
		if p.s.takeOwn(email, ev.Id) {
			continue
		}
		method := MethodEventUpdated
		switch {
		case ev.Status == "cancelled":
			method = MethodEventCancelled
		case parseStamp(ev.Created).After(watermark):
			method = MethodNewEvent
		}
		p.notify(method, p.notice(email, calID, ev, method))
	}
	cur.SyncToken = next
	cur.UpdatedMin = ""
	if next == "" {
		cur.UpdatedMin = newMark.Format(time.RFC3339Nano)
	}
	if !newMark.IsZero() {
		cur.Watermark = newMark.UTC().Format(time.RFC3339Nano)
	}
	now := p.s.opts.Now()
	if changed || quiet || now.After(cur.LookaheadUntil.Add(-lookahead/2)) {
		if err := p.lookahead(ctx, email, calID, cur, now); err != nil {
			p.s.log.Warn("calendar look-ahead", "account", email, "calendar", calID, "err", err)
		}
	}
	p.cur.set(email, calID, cur)
	p.remind(email, calID, cur, now)
	return nil
}

// lookahead reads the accepted timed events of the next day.
func (p *poller) lookahead(ctx context.Context, email, calID string, cur *calCursor, now time.Time) error {
	until := now.Add(lookahead)
	var list []upcoming
	token := ""
	for {
		var page *gcal.Events
		err := p.s.try(ctx, email, func(svc *gcal.Service) (err error) {
			call := svc.Events.List(calID).Context(ctx).SingleEvents(true).OrderBy("startTime").
				TimeMin(now.Format(time.RFC3339)).TimeMax(until.Format(time.RFC3339)).MaxResults(250)
			if token != "" {
				call = call.PageToken(token)
			}
			page, err = call.Do()
			return err
		})
		if err != nil {
			return err
		}
		for _, ev := range page.Items {
			if ev.Start == nil || ev.Start.DateTime == "" || !accepted(ev, email) {
				continue
			}
			st, err := time.Parse(time.RFC3339, ev.Start.DateTime)
			if err != nil {
				continue
			}
			u := upcoming{ID: ev.Id, Summary: ev.Summary, Start: st, StartText: ev.Start.DateTime, HTMLLink: ev.HtmlLink}
			if ev.End != nil {
				u.EndText = ev.End.DateTime
			}
			if ev.Organizer != nil {
				u.Organizer = ev.Organizer.Email
			}
			list = append(list, u)
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	cur.Upcoming, cur.LookaheadUntil = list, until
	return nil
}

// accepted says whether the account goes to ev: it accepted the
// invitation, or it is its own event.
func accepted(ev *gcal.Event, email string) bool {
	if ev.Status == "cancelled" {
		return false
	}
	for _, a := range ev.Attendees {
		if a.Self || strings.EqualFold(a.Email, email) {
			return a.ResponseStatus == "accepted"
		}
	}
	return ev.Organizer == nil || ev.Organizer.Self || strings.EqualFold(ev.Organizer.Email, email)
}

// remind sends the reminders due: events starting within
// Options.Reminder, once each.
func (p *poller) remind(email, calID string, cur *calCursor, now time.Time) {
	for _, u := range cur.Upcoming {
		left := u.Start.Sub(now)
		if left <= 0 || left > p.s.opts.Reminder {
			continue
		}
		if !p.cur.remind(cursorKey(email, calID)+" "+u.ID+" "+u.Start.UTC().Format(time.RFC3339), u.Start) {
			continue
		}
		summary := u.Summary
		if summary == "" {
			summary = "(no title)"
		}
		mins := int(math.Round(left.Minutes()))
		p.notify(MethodReminder, Notice{Account: email, CalendarID: calID, EventID: u.ID, Summary: u.Summary,
			Start: u.StartText, End: u.EndText, Organizer: u.Organizer, HTMLLink: u.HTMLLink,
			Title: fmt.Sprintf("%s in %d min", summary, max(mins, 1))})
	}
}

func (p *poller) notice(email, calID string, ev *gcal.Event, method string) Notice {
	e := eventOf(email, calID, ev)
	n := Notice{Account: email, CalendarID: calID, EventID: ev.Id, Summary: ev.Summary, Start: e.Start.value(),
		End: e.End.value(), Organizer: e.Organizer, HTMLLink: ev.HtmlLink}
	summary := ev.Summary
	if summary == "" {
		summary = "(no title)"
	}
	when := humanTime(e.Start)
	switch method {
	case MethodNewEvent:
		n.Title = "New event: " + summary
	case MethodEventCancelled:
		n.Title = "Cancelled: " + summary
	default:
		n.Title = "Changed: " + summary
	}
	if when != "" {
		n.Title += ", " + when
	}
	return n
}

// humanTime is a start as a person reads it: "Thu 3 Dec 09:00" in the
// event's own offset, or "Thu 3 Dec" for a date.
func humanTime(t EventTime) string {
	if t.Date != "" {
		d, err := time.Parse(dateLayout, t.Date)
		if err != nil {
			return ""
		}
		return d.Format("Mon 2 Jan")
	}
	d, err := time.Parse(time.RFC3339, t.DateTime)
	if err != nil {
		return ""
	}
	return d.Format("Mon 2 Jan 15:04")
}

func (p *poller) notify(method string, n Notice) {
	if err := p.s.opts.Notify(method, n); err != nil {
		p.s.log.Warn("sending a calendar event", "method", method, "err", err)
	}
}

func parseStamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
