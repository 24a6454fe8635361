package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/mcp"
	"github.com/mcptray/mcptray/store"
)

// Events (DESIGN.md §8): a notification a server sends with a method
// outside the protocol ("event/new_email") reaches Hooks.Event in the
// server's stdout read loop. ingest checks it and puts it on a bounded
// queue; one writer goroutine stores what is queued in batches, one
// transaction each, then tells the subscribers, the notifier and the
// gateway (mcptray://events). The read loop never waits for the database:
// when the queue is full (the database takes no writes: a full disk, a
// lock), further events are dropped and counted, and the log says so when
// that starts and, with the count, when the queue drained — the server's
// own replies keep flowing meanwhile.

// EventsURI is the gateway resource with the unacknowledged events; its
// subscribers get notifications/resources/updated when events arrive or
// are acknowledged.
const EventsURI = "mcptray://events"

// Event is one event as the CLI, the control API, the gateway's tools and
// the UI show it (`mcptray events --json`).
type Event struct {
	ID       int64           `json:"id"`
	Server   string          `json:"server"`
	Method   string          `json:"method"`
	Params   json.RawMessage `json:"params"` // the JSON object the server sent ({} if none)
	Received time.Time       `json:"received"`
	Acked    *time.Time      `json:"acked"` // nil until acknowledged
}

// Summary is what a notification shows of the event: its title (params
// title, subject or summary, else the method) and body (params body,
// snippet, from or description), trimmed.
func (e Event) Summary() (title, body string) { return eventText(e.Method, e.Params) }

// EventFilter selects events: by default every unacknowledged one, oldest
// first. See store.EventFilter.
type EventFilter = store.EventFilter

// AckRequest says which events to acknowledge: IDs, or All (of Server, or
// of every server).
type AckRequest struct {
	IDs    []int64 `json:"ids,omitempty"`
	All    bool    `json:"all,omitempty"`
	Server string  `json:"server,omitempty"` // with All only
}

// check says what is wrong with a request, in words for the person who
// made it.
func (r AckRequest) check() error {
	switch {
	case len(r.IDs) > 0 && r.All:
		return errors.New("give event ids or all, not both")
	case len(r.IDs) > 0 && r.Server != "":
		return errors.New("a server narrows all only; give ids alone")
	case len(r.IDs) == 0 && !r.All:
		return errors.New("nothing to acknowledge: give event ids or all")
	}
	return nil
}

// EventsChange is what SubscribeEvents delivers.
type EventsChange struct {
	New []Event // events stored since the last change, oldest first
	// Acked is set when events were acknowledged (here, by the CLI or by
	// an assistant): re-read the list with Events.
	Acked bool
	// Missed is set when this subscriber fell behind and earlier changes
	// were dropped: re-read the list with Events.
	Missed bool
}

// Limits of event ingestion.
const (
	eventQueueSize      = 65536    // events between the read loops and the writer; more are dropped
	eventQueueBytes     = 32 << 20 // bytes of params between the read loops and the writer; more are dropped
	maxEventBatch       = 512      // events per transaction
	maxEventParams      = 1 << 20  // bytes of params; bigger events are skipped
	maxEventMethod      = 256      // bytes of a method name
	eventStoreAttempts  = 5        // tries to store a batch before it is given up
	resourceUpdateEvery = 250 * time.Millisecond
	pruneEvery          = 24 * time.Hour
	eventSubBuffer      = 64 // changes a subscriber may lag behind
)

// logEvents is the log kind of skipped events.
const logEvents = "event"

// eventHub is the core's event pipeline. Its goroutines run from
// startEvents until the stop function it returns is called.
type eventHub struct {
	c     *Core
	q     eventQueue // read loops → writer
	notes *coalescer // nil without Options.Notifier

	changed  chan struct{} // cap 1: mcptray://events changed
	prunes   chan struct{} // cap 1: the retention setting was (re)applied
	days     atomic.Int64  // x-mcptray.eventRetentionDays of the last good config
	stopping chan struct{} // closed by the stop function: the writer drains the queue and exits

	subMu sync.Mutex
	subs  map[*eventSub]struct{} // guarded by subMu
}

// queuedEvent is an event on its way to the store.
type queuedEvent struct {
	ev     store.Event
	notify bool // its server's notifications are on
}

type eventSub struct {
	ch     chan EventsChange
	missed bool // guarded by eventHub.subMu: a change was dropped
}

func newEventHub(c *Core) *eventHub {
	h := &eventHub{
		c:        c,
		q:        eventQueue{max: eventQueueSize, ready: make(chan struct{}, 1), dropped: map[string]int{}},
		changed:  make(chan struct{}, 1),
		prunes:   make(chan struct{}, 1),
		stopping: make(chan struct{}),
		subs:     map[*eventSub]struct{}{},
	}
	if c.opts.EventQueue > 0 {
		h.q.max = c.opts.EventQueue
	}
	if c.opts.Notifier != nil {
		h.notes = newCoalescer(notifyInterval)
	}
	return h
}

// startEvents starts the event writer, the resource updater, the pruner,
// the notifier, the tool-call history writer and the inbox's audit writer.
// The function it returns stops them, once no server can send events any
// more: it closes the inbox's requests still open (their servers are
// gone), stores what is still queued and waits.
func (c *Core) startEvents() (stop func()) {
	h := c.events
	var wg sync.WaitGroup
	for _, f := range []func(){h.write, h.updateResource, h.prune, c.history.write, c.audit.Run} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	if h.notes != nil {
		go h.notes.deliver(c.opts.Notifier) // not waited for: Notify may hang
	}
	return func() {
		c.inbox.CloseAll(inbox.Result{Reply: &mcp.ElicitResult{Action: inbox.ActionCancel}, Outcome: store.OutcomeCancel, By: inbox.ClosedByServer})
		close(h.stopping)
		c.history.stop()
		c.audit.Stop()
		wg.Wait()
		if h.notes != nil {
			h.notes.stop()
		}
	}
}

// eventHook is a server's Hooks.Event. The server's x-mcptray.notify
// setting is read once per start (a change restarts the server).
func (c *Core) eventHook(name string, spec config.Server, log *serverLog) func(string, json.RawMessage) {
	notify := notifySetting(spec, log)
	return func(method string, params json.RawMessage) {
		c.events.ingest(name, notify, log, method, params)
	}
}

// notifySetting reads an entry's "x-mcptray": {"notify": false}.
func notifySetting(spec config.Server, log *serverLog) bool {
	raw, ok := spec.Settings["notify"]
	if !ok {
		return true
	}
	var on bool
	if err := json.Unmarshal(raw, &on); err != nil {
		log.Write(logLifecycle, fmt.Sprintf("x-mcptray.notify must be true or false, got %s: notifications stay on", raw))
		return true
	}
	return on
}

var emptyObject = json.RawMessage(`{}`)

// ingest checks one event from a server's read loop and queues it. Bad
// events are logged to the server's log and skipped.
func (h *eventHub) ingest(server string, notify bool, log *serverLog, method string, params json.RawMessage) {
	if reason := eventProblem(method, params); reason != "" {
		log.Write(logEvents, reason)
		return
	}
	p := bytes.TrimSpace(params)
	if len(p) == 0 || string(p) == "null" {
		p = emptyObject
	}
	h.enqueue(queuedEvent{ev: store.Event{Server: server, Method: method, Params: p, Received: time.Now().UTC()}, notify: notify}, log)
}

// eventProblem says why an event is skipped, or "".
func eventProblem(method string, params json.RawMessage) string {
	switch {
	case method == "":
		return "notification skipped: its method is empty"
	case len(method) > maxEventMethod:
		return fmt.Sprintf("notification skipped: its method is %d bytes long, over the %d-byte limit", len(method), maxEventMethod)
	case len(params) > maxEventParams:
		return fmt.Sprintf("event %q skipped: its params are %d bytes, over the 1 MiB limit", method, len(params))
	}
	p := bytes.TrimSpace(params)
	if len(p) == 0 || string(p) == "null" || p[0] == '{' {
		return ""
	}
	kind := "a number"
	switch p[0] {
	case '[':
		kind = "an array"
	case '"':
		kind = "a string"
	case 't', 'f':
		kind = "a boolean"
	}
	return fmt.Sprintf("event %q skipped: params must be a JSON object, got %s", method, kind)
}

// enqueue hands an event to the writer; it never waits. When the queue
// is full the event is dropped and counted (queue.drained logs the count).
// log is the server's log, nil for mcptray's own events.
func (h *eventHub) enqueue(e queuedEvent, log *serverLog) {
	if first := h.q.put(e, log); first {
		msg := fmt.Sprintf("event queue full (%d events or %d MiB): new events are dropped until the database takes them", h.q.max, eventQueueBytes>>20)
		h.c.log.Warn(msg, "server", e.ev.Server)
		if log != nil { // mcptray's own events have no server log
			log.Write(logEvents, msg)
		}
	}
}

// write stores queued events in batches until stopping, then stores what
// is left and returns.
func (h *eventHub) write() {
	batch := make([]queuedEvent, 0, maxEventBatch)
	for {
		select {
		case <-h.q.ready:
		case <-h.stopping:
			for {
				if batch = h.q.take(batch[:0]); len(batch) == 0 {
					h.dropsEnded()
					return
				}
				h.store(batch)
			}
		}
		for {
			if batch = h.q.take(batch[:0]); len(batch) == 0 {
				break
			}
			h.store(batch)
		}
		h.dropsEnded()
	}
}

// dropsEnded logs, once the queue is empty, how many events each server
// lost while it was full.
func (h *eventHub) dropsEnded() {
	for _, d := range h.q.drained() {
		msg := fmt.Sprintf("event queue drained: %d events were dropped while it was full", d.count)
		h.c.log.Warn(msg, "server", d.server)
		if d.log != nil {
			d.log.Write(logEvents, msg)
		}
	}
}

// store writes one batch in one transaction and publishes it.
func (h *eventHub) store(batch []queuedEvent) {
	evs := make([]store.Event, len(batch))
	for i, e := range batch {
		evs[i] = e.ev
	}
	delay := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := h.c.store.AddEvents(context.Background(), evs)
		if err == nil {
			break
		}
		if attempt == eventStoreAttempts {
			h.c.log.Error("events lost", "count", len(evs), "err", err)
			return
		}
		h.c.log.Warn("storing events, retrying", "count", len(evs), "err", err)
		time.Sleep(delay) // the queue fills meanwhile, then drops: the read loops never wait
		delay *= 2
	}
	if h.notes != nil {
		for i, e := range batch {
			if e.notify {
				h.notes.add(eventNote{id: evs[i].ID, server: evs[i].Server, method: evs[i].Method, params: evs[i].Params})
			}
		}
	}
	h.publish(EventsChange{New: toEvents(evs)})
}

// publish tells the subscribers and the gateway of a change.
func (h *eventHub) publish(change EventsChange) {
	select {
	case h.changed <- struct{}{}:
	default:
	}
	h.subMu.Lock()
	defer h.subMu.Unlock()
	for sub := range h.subs {
		ch := change
		ch.Missed = sub.missed
		select {
		case sub.ch <- ch:
			sub.missed = false
		default:
			sub.missed = true
		}
	}
}

// updateResource sends notifications/resources/updated for
// mcptray://events after changes, at most every resourceUpdateEvery.
func (h *eventHub) updateResource() {
	for {
		select {
		case <-h.changed:
		case <-h.stopping:
			return
		}
		h.c.gw.ResourceUpdated(EventsURI)
		select {
		case <-time.After(resourceUpdateEvery):
		case <-h.stopping:
			return
		}
	}
}

// setRetention takes x-mcptray.eventRetentionDays from a config being
// applied; the pruner deletes old events when it changes (and so once at
// start).
func (h *eventHub) setRetention(days int) {
	if h.days.Swap(int64(days)) == int64(days) {
		return
	}
	select {
	case h.prunes <- struct{}{}:
	default:
	}
}

// prune deletes acknowledged events (and tool-call history) older than the
// retention period when it is set and then daily.
func (h *eventHub) prune() {
	t := time.NewTicker(pruneEvery)
	defer t.Stop()
	for {
		select {
		case <-h.prunes:
		case <-t.C:
		case <-h.stopping:
			return
		}
		h.pruneNow()
	}
}

func (h *eventHub) pruneNow() {
	days := int(h.days.Load())
	if days <= 0 {
		days = config.DefaultEventRetentionDays
	}
	before := time.Now().Add(-time.Duration(days) * 24 * time.Hour)
	ctx := context.Background()
	n, err := h.c.store.DeleteAckedEvents(ctx, before)
	if err != nil {
		h.c.log.Warn("deleting old events", "err", err)
	}
	m, err := h.c.store.DeleteToolCalls(ctx, before)
	if err != nil {
		h.c.log.Warn("deleting old tool calls", "err", err)
	}
	if n > 0 || m > 0 {
		h.c.log.Info("deleted old history", "events", n, "toolCalls", m, "retentionDays", days)
	}
}

func toEvents(evs []store.Event) []Event {
	out := make([]Event, len(evs))
	for i, e := range evs {
		out[i] = Event{ID: e.ID, Server: e.Server, Method: e.Method, Params: e.Params, Received: e.Received}
		if !e.Acked.IsZero() {
			acked := e.Acked
			out[i].Acked = &acked
		}
	}
	return out
}

// Events returns the events f selects, oldest first.
func (c *Core) Events(f EventFilter) ([]Event, error) {
	evs, err := c.store.Events(context.Background(), f)
	if err != nil {
		return nil, err
	}
	return toEvents(evs), nil
}

// UnackedEvents counts the events nobody acknowledged yet.
func (c *Core) UnackedEvents() (int, error) {
	return c.store.UnackedEvents(context.Background())
}

// ErrNoEvent is wrapped by AckEvents when an id names no event.
var ErrNoEvent = store.ErrNoEvent

// AckEvents acknowledges events and returns how many were not already.
// An unknown id fails the whole request (ErrNoEvent).
func (c *Core) AckEvents(req AckRequest) (int, error) {
	if err := req.check(); err != nil {
		return 0, err
	}
	var n int
	var err error
	if req.All {
		n, err = c.store.AckAllEvents(context.Background(), req.Server, time.Now())
	} else {
		n, err = c.store.AckEvents(context.Background(), req.IDs, time.Now())
	}
	if err != nil {
		return 0, err
	}
	if n > 0 {
		c.events.publish(EventsChange{Acked: true})
	}
	return n, nil
}

// SubscribeEvents returns a channel of event changes (new events, acks)
// and a cancel func. A subscriber that falls behind by more than
// eventSubBuffer changes misses some; the next change it gets says so
// (Missed) and it should re-read with Events.
func (c *Core) SubscribeEvents() (<-chan EventsChange, func()) {
	sub := &eventSub{ch: make(chan EventsChange, eventSubBuffer)}
	h := c.events
	h.subMu.Lock()
	h.subs[sub] = struct{}{}
	h.subMu.Unlock()
	return sub.ch, func() {
		h.subMu.Lock()
		delete(h.subs, sub)
		h.subMu.Unlock()
	}
}
