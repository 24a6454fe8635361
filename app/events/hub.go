package events

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/store"
)

// Limits of event ingestion.
const (
	// QueueSize is how many events wait for the store at most by default
	// (Options.Queue); more are dropped.
	QueueSize           = 65536
	queueBytes          = 32 << 20 // bytes of params between the read loops and the writer; more are dropped
	maxBatch            = 512      // events per transaction
	maxParams           = 1 << 20  // bytes of params; bigger events are skipped
	maxMethod           = 256      // bytes of a method name
	storeAttempts       = 5        // tries to store a batch before it is given up
	resourceUpdateEvery = 250 * time.Millisecond
	pruneEvery          = 24 * time.Hour
	subBuffer           = 64 // changes a subscriber may lag behind
)

// logKind is the server-log kind of skipped and dropped events.
const logKind = "event"

// Log is a server's log: where the hub tells a server why its events
// were skipped or dropped. The core's per-server log implements it.
type Log interface {
	Write(kind, text string)
}

// ResourceUpdater is told when mcptray://events changed: the gateway,
// which sends notifications/resources/updated to its subscribers.
type ResourceUpdater interface {
	ResourceUpdated(uri string)
}

// Options configures a Hub.
type Options struct {
	// Store keeps the events. Store.Reopen (a database replaced while
	// running) swaps the database behind the same *Store, so the hub
	// keeps using it.
	Store *store.Store
	// Logger receives the hub's own messages: a full queue, lost batches,
	// pruning; default slog.Default().
	Logger *slog.Logger
	// Queue is how many events at most wait for the store; more are
	// dropped (and counted); default QueueSize.
	Queue int
	// Notifier shows desktop notifications of events; nil shows none.
	Notifier Notifier
}

// Hub is the event pipeline. Its goroutines run from Start until the stop
// function it returns is called.
type Hub struct {
	store *store.Store
	log   *slog.Logger
	q     queue      // read loops → writer
	notes *coalescer // nil without Options.Notifier
	notif Notifier   // Options.Notifier

	changed  chan struct{} // cap 1: mcptray://events changed
	prunes   chan struct{} // cap 1: the retention setting was (re)applied
	days     atomic.Int64  // x-mcptray.eventRetentionDays of the last good config
	stopping chan struct{} // closed by the stop function: the writer drains the queue and exits

	subMu sync.Mutex
	subs  map[*sub]struct{} // guarded by subMu
}

// queued is an event on its way to the store.
type queued struct {
	ev     store.Event
	notify bool // its server's notifications are on
}

type sub struct {
	ch     chan Change
	missed bool // guarded by Hub.subMu: a change was dropped
}

// NewHub makes a hub; nothing runs until Start.
func NewHub(o Options) *Hub {
	h := &Hub{
		store:    o.Store,
		log:      o.Logger,
		q:        queue{max: QueueSize, ready: make(chan struct{}, 1), dropped: map[string]int{}},
		notif:    o.Notifier,
		changed:  make(chan struct{}, 1),
		prunes:   make(chan struct{}, 1),
		stopping: make(chan struct{}),
		subs:     map[*sub]struct{}{},
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	if o.Queue > 0 {
		h.q.max = o.Queue
	}
	if o.Notifier != nil {
		h.notes = newCoalescer(notifyInterval)
	}
	return h
}

// Start starts the event writer, the resource updater (telling gw), the
// pruner and the notifier. The function it returns stops them, once no
// server can send events any more: it stores what is still queued and
// waits (but not for a Notify call in progress).
func (h *Hub) Start(gw ResourceUpdater) (stop func()) {
	var wg sync.WaitGroup
	for _, f := range []func(){h.write, func() { h.updateResource(gw) }, h.prune} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	if h.notes != nil {
		go h.notes.deliver(h.notif) // not waited for: Notify may hang
	}
	return func() {
		close(h.stopping)
		wg.Wait()
		if h.notes != nil {
			h.notes.stop()
		}
	}
}

// Hook is a server's Hooks.Event: it checks each event from the server's
// read loop and queues it, never waiting. notify says whether the
// server's events become notifications; log is the server's log.
func (h *Hub) Hook(server string, notify bool, log Log) func(method string, params json.RawMessage) {
	return func(method string, params json.RawMessage) {
		h.ingest(server, notify, log, method, params)
	}
}

// Add queues one of mcptray's own events (a notice, a refused request),
// which becomes a notification; it never waits. log is the server's log
// that hears of a full queue, nil for none.
func (h *Hub) Add(server, method string, params json.RawMessage, log Log) {
	h.enqueue(queued{ev: store.Event{Server: server, Method: method, Params: params, Received: time.Now().UTC()}, notify: true}, log)
}

var emptyObject = json.RawMessage(`{}`)

// ingest checks one event from a server's read loop and queues it. Bad
// events are logged to the server's log and skipped.
func (h *Hub) ingest(server string, notify bool, log Log, method string, params json.RawMessage) {
	if reason := eventProblem(method, params); reason != "" {
		log.Write(logKind, reason)
		return
	}
	p := bytes.TrimSpace(params)
	if len(p) == 0 || string(p) == "null" {
		p = emptyObject
	}
	h.enqueue(queued{ev: store.Event{Server: server, Method: method, Params: p, Received: time.Now().UTC()}, notify: notify}, log)
}

// eventProblem says why an event is skipped, or "".
func eventProblem(method string, params json.RawMessage) string {
	switch {
	case method == "":
		return "notification skipped: its method is empty"
	case len(method) > maxMethod:
		return fmt.Sprintf("notification skipped: its method is %d bytes long, over the %d-byte limit", len(method), maxMethod)
	case len(params) > maxParams:
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
func (h *Hub) enqueue(e queued, log Log) {
	if first := h.q.put(e, log); first {
		msg := fmt.Sprintf("event queue full (%d events or %d MiB): new events are dropped until the database takes them", h.q.max, queueBytes>>20)
		h.log.Warn(msg, "server", e.ev.Server)
		if log != nil { // mcptray's own events have no server log
			log.Write(logKind, msg)
		}
	}
}

// write stores queued events in batches until stopping, then stores what
// is left and returns.
func (h *Hub) write() {
	batch := make([]queued, 0, maxBatch)
	for {
		select {
		case <-h.q.ready:
		case <-h.stopping:
			for {
				if batch = h.q.take(batch[:0]); len(batch) == 0 {
					h.dropsEnded()
					return
				}
				h.storeBatch(batch)
			}
		}
		for {
			if batch = h.q.take(batch[:0]); len(batch) == 0 {
				break
			}
			h.storeBatch(batch)
		}
		h.dropsEnded()
	}
}

// dropsEnded logs, once the queue is empty, how many events each server
// lost while it was full.
func (h *Hub) dropsEnded() {
	for _, d := range h.q.drained() {
		msg := fmt.Sprintf("event queue drained: %d events were dropped while it was full", d.count)
		h.log.Warn(msg, "server", d.server)
		if d.log != nil {
			d.log.Write(logKind, msg)
		}
	}
}

// storeBatch writes one batch in one transaction and publishes it.
func (h *Hub) storeBatch(batch []queued) {
	evs := make([]store.Event, len(batch))
	for i, e := range batch {
		evs[i] = e.ev
	}
	delay := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := h.store.AddEvents(context.Background(), evs)
		if err == nil {
			break
		}
		if attempt == storeAttempts {
			h.log.Error("events lost", "count", len(evs), "err", err)
			return
		}
		h.log.Warn("storing events, retrying", "count", len(evs), "err", err)
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
	h.publish(Change{New: FromStore(evs)})
}

// publish tells the subscribers and the gateway of a change.
func (h *Hub) publish(change Change) {
	select {
	case h.changed <- struct{}{}:
	default:
	}
	h.subMu.Lock()
	defer h.subMu.Unlock()
	for s := range h.subs {
		ch := change
		ch.Missed = s.missed
		select {
		case s.ch <- ch:
			s.missed = false
		default:
			s.missed = true
		}
	}
}

// updateResource tells gw of changes to mcptray://events, at most every
// resourceUpdateEvery.
func (h *Hub) updateResource(gw ResourceUpdater) {
	for {
		select {
		case <-h.changed:
		case <-h.stopping:
			return
		}
		gw.ResourceUpdated(URI)
		select {
		case <-time.After(resourceUpdateEvery):
		case <-h.stopping:
			return
		}
	}
}

// SetRetention takes x-mcptray.eventRetentionDays from a config being
// applied; the pruner deletes old events when it changes (and so once at
// start).
func (h *Hub) SetRetention(days int) {
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
func (h *Hub) prune() {
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

func (h *Hub) pruneNow() {
	days := int(h.days.Load())
	if days <= 0 {
		days = config.DefaultEventRetentionDays
	}
	before := time.Now().Add(-time.Duration(days) * 24 * time.Hour)
	ctx := context.Background()
	n, err := h.store.DeleteAckedEvents(ctx, before)
	if err != nil {
		h.log.Warn("deleting old events", "err", err)
	}
	m, err := h.store.DeleteToolCalls(ctx, before)
	if err != nil {
		h.log.Warn("deleting old tool calls", "err", err)
	}
	if n > 0 || m > 0 {
		h.log.Info("deleted old history", "events", n, "toolCalls", m, "retentionDays", days)
	}
}

// Events returns the events f selects, oldest first.
func (h *Hub) Events(f Filter) ([]Event, error) {
	evs, err := h.store.Events(context.Background(), f)
	if err != nil {
		return nil, err
	}
	return FromStore(evs), nil
}

// Unacked counts the events nobody acknowledged yet.
func (h *Hub) Unacked() (int, error) {
	return h.store.UnackedEvents(context.Background())
}

// Ack acknowledges events and returns how many were not already. An
// unknown id fails the whole request (ErrNoEvent).
func (h *Hub) Ack(req AckRequest) (int, error) {
	if err := req.Check(); err != nil {
		return 0, err
	}
	var n int
	var err error
	if req.All {
		n, err = h.store.AckAllEvents(context.Background(), req.Server, time.Now())
	} else {
		n, err = h.store.AckEvents(context.Background(), req.IDs, time.Now())
	}
	if err != nil {
		return 0, err
	}
	if n > 0 {
		h.publish(Change{Acked: true})
	}
	return n, nil
}

// Subscribe returns a channel of event changes (new events, acks) and a
// cancel func. A subscriber that falls behind by more than subBuffer
// changes misses some; the next change it gets says so (Missed) and it
// should re-read with Events.
func (h *Hub) Subscribe() (<-chan Change, func()) {
	s := &sub{ch: make(chan Change, subBuffer)}
	h.subMu.Lock()
	h.subs[s] = struct{}{}
	h.subMu.Unlock()
	return s.ch, func() {
		h.subMu.Lock()
		delete(h.subs, s)
		h.subMu.Unlock()
	}
}
