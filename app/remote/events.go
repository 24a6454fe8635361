package remote

import (
	"context"

	"github.com/mcptray/mcptray/app/events"
)

// Events returns the events f selects, oldest first, reading page after
// page (control.MaxEventsPage each) until it has them all, or f.Limit.
// With f.Newest it reads one page: at most control.MaxEventsPage.
func (c *Core) Events(f events.Filter) ([]events.Event, error) {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	var all []events.Event
	for {
		page, err := c.cl.EventPage(ctx, f)
		if err != nil {
			return nil, c.fail(err)
		}
		all = append(all, page.Events...)
		if f.Newest || page.NotShown == 0 || len(page.Events) == 0 {
			return all, nil
		}
		if f.Limit > 0 {
			if f.Limit -= len(page.Events); f.Limit <= 0 {
				return all, nil
			}
		}
		f.SinceID = page.Events[len(page.Events)-1].ID
	}
}

// UnackedEvents counts the events nobody acknowledged yet: the newest
// one, and how many more the instance did not show.
func (c *Core) UnackedEvents() (int, error) {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	page, err := c.cl.EventPage(ctx, events.Filter{Limit: 1, Newest: true})
	if err != nil {
		return 0, c.fail(err)
	}
	return len(page.Events) + page.NotShown, nil
}

// AckEvents acknowledges events and returns how many were not already.
func (c *Core) AckEvents(req events.AckRequest) (int, error) {
	ctx, cancel := c.call(callTimeout)
	defer cancel()
	n, err := c.cl.AckEvents(ctx, req)
	return n, c.fail(err)
}

// eventsBuffer is how many changes SubscribeEvents holds for a reader
// that is behind; past it, changes are dropped and the next one says
// Missed, as events.Hub's own subscribers are told.
const eventsBuffer = 64

// SubscribeEvents says when events arrive or are acknowledged
// (events.Change), from the moment it returns. After the instance was
// gone, the first change says Missed: re-read the events. cancel ends it
// and closes the channel.
func (c *Core) SubscribeEvents() (<-chan events.Change, func()) {
	out := make(chan events.Change, eventsBuffer)
	ctx, cancel := context.WithCancel(c.ctx)
	changes, err := c.cl.WatchEvents(ctx)
	if err != nil {
		changes = nil // followEvents redials
	}
	return out, c.spawn(cancel, func() {
		defer close(out)
		c.followEvents(ctx, out, changes)
	})
}

// followEvents copies the instance's event changes (the stream changes,
// nil for none yet) to out until ctx ends, redialling when the instance
// goes away.
func (c *Core) followEvents(ctx context.Context, out chan events.Change, changes <-chan events.Change) {
	missed := false // a change was dropped: the next one says Missed
	for {
		if changes == nil {
			var ok bool
			if changes, ok = redial(ctx, c.log, "the events", c.cl.WatchEvents); !ok {
				return
			}
			// What came while there was no stream is not known: say so.
			missed = !deliver(out, events.Change{Missed: true})
		}
		for ch := range changes {
			ch.Missed = ch.Missed || missed
			missed = !deliver(out, ch)
		}
		if ctx.Err() != nil {
			return
		}
		changes = nil
	}
}

// deliver puts ch on out unless out is full, and says whether it did.
func deliver(out chan events.Change, ch events.Change) bool {
	select {
	case out <- ch:
		return true
	default:
		return false
	}
}
