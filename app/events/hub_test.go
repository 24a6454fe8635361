package events

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/store"
)

// openStore opens a real database in a temp dir for t.
func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// updates records the gateway's ResourceUpdated calls.
type updates chan string

func (u updates) ResourceUpdated(uri string) {
	select {
	case u <- uri:
	default:
	}
}

// next waits for the next change on ch.
func next(t *testing.T, ch <-chan Change, what string) Change {
	t.Helper()
	select {
	case c := <-ch:
		return c
	case <-time.After(10 * time.Second):
		t.Fatalf("no change: %s", what)
		return Change{}
	}
}

// TestHub: an event from a server's hook is stored, published to the
// subscribers, shown as a notification and announced to the gateway;
// acknowledging it publishes again; stop stores what is still queued.
// The hub runs on a real store, with no core.
func TestHub(t *testing.T) {
	st := openStore(t)
	rec := newRecordingNotifier()
	h := NewHub(Options{Store: st, Logger: slog.New(slog.DiscardHandler), Notifier: rec})
	changes, cancel := h.Subscribe()
	defer cancel()
	gw := make(updates, 1)
	stop := h.Start(gw)
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()

	sl := &serverLog{}
	hook := h.Hook("mail", true, sl)
	hook("event/new_email", json.RawMessage(` {"subject":"Lunch?","from":"ada@example.com"} `))
	hook("event/bad", json.RawMessage(`[1]`))
	c := next(t, changes, "the new event")
	if len(c.New) != 1 || c.New[0].ID != 1 || c.New[0].Server != "mail" || string(c.New[0].Params) != `{"subject":"Lunch?","from":"ada@example.com"}` || c.New[0].Acked != nil || c.Missed {
		t.Fatalf("change: %+v", c)
	}
	select {
	case uri := <-gw:
		if uri != URI {
			t.Errorf("resource updated: %s", uri)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the gateway was not told")
	}
	select {
	case <-rec.added:
		want := Notification{Server: "mail", Title: "mail: Lunch?", Body: "ada@example.com", Events: 1, LastID: 1}
		if got := rec.all(); len(got) != 1 || got[0] != want {
			t.Errorf("notifications: %+v, want %+v", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification")
	}
	if l := sl.String(); l != "[event] event \"event/bad\" skipped: params must be a JSON object, got an array\n" {
		t.Errorf("server log: %q", l)
	}

	if n, err := h.Unacked(); n != 1 || err != nil {
		t.Errorf("Unacked = %d, %v", n, err)
	}
	if _, err := h.Ack(AckRequest{IDs: []int64{1, 9}}); !errors.Is(err, ErrNoEvent) {
		t.Errorf("Ack of an unknown id: %v", err)
	}
	if n, err := h.Ack(AckRequest{All: true, Server: "mail"}); n != 1 || err != nil {
		t.Fatalf("Ack = %d, %v", n, err)
	}
	if c := next(t, changes, "the ack"); !c.Acked || len(c.New) != 0 {
		t.Errorf("change after the ack: %+v", c)
	}
	evs, err := h.Events(Filter{All: true})
	if err != nil || len(evs) != 1 || evs[0].Acked == nil {
		t.Fatalf("Events = %+v, %v", evs, err)
	}

	// stop stores what is still queued, with no server left to send.
	for range 3 {
		h.Add("mcptray", "mcptray/notice", json.RawMessage(`{"title":"t"}`), nil)
	}
	stop()
	stopped = true
	if evs, _ := h.Events(Filter{Server: "mcptray"}); len(evs) != 3 {
		t.Errorf("%d events stored by stop, want 3", len(evs))
	}
}

// TestSubscriberFallsBehind: a subscriber that does not read misses
// changes past its buffer, never holding up the others, and the next
// change it gets says so.
func TestSubscriberFallsBehind(t *testing.T) {
	h := NewHub(Options{Store: openStore(t), Logger: slog.New(slog.DiscardHandler)})
	slow, cancel := h.Subscribe()
	defer cancel()
	for range subBuffer + 1 {
		h.publish(Change{Acked: true})
	}
	for i := range subBuffer {
		if c := <-slow; c.Missed {
			t.Fatalf("change %d says missed", i)
		}
	}
	h.publish(Change{Acked: true})
	if c := <-slow; !c.Missed {
		t.Error("the change after the dropped one does not say missed")
	}
	cancel()
	h.publish(Change{Acked: true}) // no subscriber left: nothing blocks
	if len(slow) != 0 {
		t.Error("a cancelled subscriber got a change")
	}
}

func TestAckRequestCheck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		req  AckRequest
		want string
	}{
		{AckRequest{IDs: []int64{1}}, ""},
		{AckRequest{All: true}, ""},
		{AckRequest{All: true, Server: "s"}, ""},
		{AckRequest{IDs: []int64{1}, All: true}, "give event ids or all, not both"},
		{AckRequest{IDs: []int64{1}, Server: "s"}, "a server narrows all only; give ids alone"},
		{AckRequest{}, "nothing to acknowledge: give event ids or all"},
		{AckRequest{Server: "s"}, "nothing to acknowledge: give event ids or all"},
	} {
		err := c.req.Check()
		if got := ""; err != nil {
			got = err.Error()
			if got != c.want {
				t.Errorf("%+v: %q, want %q", c.req, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%+v: no error, want %q", c.req, c.want)
		}
	}
}

func TestEventProblem(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		method, params, want string
	}{
		{"event/x", `{"a":1}`, ""},
		{"event/x", ``, ""},
		{"event/x", ` null `, ""},
		{"", `{}`, "notification skipped: its method is empty"},
		{strings.Repeat("m", 257), `{}`, "notification skipped: its method is 257 bytes long, over the 256-byte limit"},
		{"event/x", `{"a":"` + strings.Repeat("x", 1<<20) + `"}`, `event "event/x" skipped: its params are 1048584 bytes, over the 1 MiB limit`},
		{"event/x", `[1]`, `event "event/x" skipped: params must be a JSON object, got an array`},
		{"event/x", `"s"`, `event "event/x" skipped: params must be a JSON object, got a string`},
		{"event/x", `true`, `event "event/x" skipped: params must be a JSON object, got a boolean`},
		{"event/x", `12`, `event "event/x" skipped: params must be a JSON object, got a number`},
	} {
		if got := eventProblem(c.method, json.RawMessage(c.params)); got != c.want {
			t.Errorf("eventProblem(%.20q, %.20q) = %q, want %q", c.method, c.params, got, c.want)
		}
	}
}

// TestPruneKeepsRecentAndUnacked: pruning deletes acknowledged events
// older than the retention period, and nothing else.
func TestPruneKeepsRecentAndUnacked(t *testing.T) {
	st := openStore(t)
	h := NewHub(Options{Store: st, Logger: slog.New(slog.DiscardHandler)})
	ctx := context.Background()
	old := time.Now().Add(-40 * 24 * time.Hour)
	err := st.AddEvents(ctx, []store.Event{
		{Server: "s", Method: "event/old", Params: json.RawMessage(`{}`), Received: old},
		{Server: "s", Method: "event/old-unacked", Params: json.RawMessage(`{}`), Received: old},
		{Server: "s", Method: "event/new", Params: json.RawMessage(`{}`), Received: time.Now()},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AckEvents(ctx, []int64{1}, old); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AckEvents(ctx, []int64{3}, time.Now()); err != nil {
		t.Fatal(err)
	}
	h.SetRetention(30)
	h.pruneNow()
	evs, err := h.Events(Filter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, e := range evs {
		methods = append(methods, e.Method)
	}
	if got := strings.Join(methods, " "); got != "event/old-unacked event/new" {
		t.Errorf("after pruning: %s", got)
	}
}
