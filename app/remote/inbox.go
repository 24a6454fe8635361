package remote

import (
	"context"
	"slices"

	"github.com/mcptray/mcptray/app/inbox"
)

// OutcomeGone is the outcome of the inbox.Closed that SubscribeInbox sends,
// once the instance is back, for a request it had shown that the instance
// no longer has: it went with the instance that asked it.
const OutcomeGone = "gone"

// SubscribeInbox returns the inbox's events: first an inbox.Added for
// every request waiting, then each change, across restarts of the
// instance (then an inbox.Closed with outcome OutcomeGone for each
// request shown that the new instance does not list, then an Added for
// each of its own). cancel ends it; the channel is closed after it.
func (c *Core) SubscribeInbox() (<-chan inbox.Event, func()) {
	out := make(chan inbox.Event)
	ctx, cancel := context.WithCancel(c.ctx)
	conn, connEnd := context.WithCancel(ctx)
	evs, err := c.cl.WatchInbox(conn)
	if err != nil {
		connEnd()
		evs = nil // followInbox redials
	}
	return out, c.spawn(cancel, func() {
		defer close(out)
		f := inboxFollower{c: c, out: out, shown: map[string]inbox.Request{}}
		f.run(ctx, evs, connEnd)
	})
}

// inboxFollower is one SubscribeInbox's goroutine and what it has shown.
type inboxFollower struct {
	c     *Core
	out   chan<- inbox.Event
	shown map[string]inbox.Request // the requests sent as Added and not Closed since, by id
}

// run copies the instance's inbox events (the stream evs, nil for none
// yet, ended by connEnd) to out until ctx ends, redialling when the
// instance goes away.
func (f *inboxFollower) run(ctx context.Context, evs <-chan inbox.Event, connEnd context.CancelFunc) {
	for {
		if evs == nil {
			var conn context.Context
			conn, connEnd = context.WithCancel(ctx)
			var ok bool
			if evs, ok = redial(conn, f.c.log, "the inbox", f.c.cl.WatchInbox); !ok {
				connEnd()
				return
			}
			if !f.resume(ctx) {
				connEnd()
				if ctx.Err() != nil {
					return
				}
				evs = nil
				continue
			}
		}
		for ev := range evs {
			if !f.forward(ctx, ev) {
				break
			}
		}
		connEnd()
		if ctx.Err() != nil {
			return
		}
		evs = nil
	}
}

// resume closes, with OutcomeGone, what was shown that the instance does
// not list now (its watch is open already: what it lists comes as Added).
// It reports false when the instance cannot be asked, or ctx ended.
func (f *inboxFollower) resume(ctx context.Context) bool {
	if len(f.shown) == 0 {
		return true
	}
	call, cancel := context.WithTimeout(ctx, callTimeout)
	list, err := f.c.cl.Inbox(call)
	cancel()
	if err != nil {
		return false
	}
	var gone []inbox.Request
	for id, r := range f.shown {
		if !slices.ContainsFunc(list, func(l inbox.Request) bool { return l.ID == id && l.Created.Equal(r.Created) }) {
			gone = append(gone, r)
		}
	}
	slices.SortFunc(gone, func(a, b inbox.Request) int { return a.Created.Compare(b.Created) })
	for _, r := range gone {
		delete(f.shown, r.ID)
		if !f.send(ctx, inbox.Event{Kind: inbox.Closed, Request: r, Outcome: OutcomeGone}) {
			return false
		}
	}
	return true
}

// forward sends ev on, but an Added for a request shown already (the
// instance lists again, after a reconnect, what it still has). It reports
// false when ctx ended.
func (f *inboxFollower) forward(ctx context.Context, ev inbox.Event) bool {
	id := ev.Request.ID
	switch ev.Kind {
	case inbox.Added:
		if r, ok := f.shown[id]; ok && r.Created.Equal(ev.Request.Created) {
			return true
		}
		f.shown[id] = ev.Request
	case inbox.Closed:
		delete(f.shown, id)
	}
	return f.send(ctx, ev)
}

// send puts ev on out, unless ctx ends first (false).
func (f *inboxFollower) send(ctx context.Context, ev inbox.Event) bool {
	select {
	case f.out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}
