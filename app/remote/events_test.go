package remote_test

import (
	"reflect"
	"testing"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/internal/testkit"
)

func TestEvents(t *testing.T) {
	d := newDirs(t, servers("a", fake(t, "events")))
	in := start(t, d)
	c := dial(t, d)
	updates, cancelStatus := c.Subscribe()
	defer cancelStatus()
	waitStatus(t, updates, "a ready", func(st control.Status) bool { return state(st, "a") == control.StateReady })

	changes, cancel := c.SubscribeEvents()
	s := openSession(t, d.data)
	receive(t, s.send("tools/call", map[string]any{"name": "a__emit", "arguments": map[string]any{"count": 3}}), "emit's reply")
	seen := 0
	for seen < 3 {
		ch := receive(t, changes, "a change")
		seen += len(ch.New)
	}
	got, err := c.Events(events.Filter{})
	want, werr := in.core.Events(events.Filter{})
	if err != nil || werr != nil || len(got) != 3 || !reflect.DeepEqual(got, want) {
		t.Fatalf("Events = %+v, %v; the core's %+v, %v", got, err, want, werr)
	}
	// Paged as the core would not: the same events, oldest first.
	if two, err := c.Events(events.Filter{Limit: 2}); err != nil || len(two) != 2 || two[1].ID != want[1].ID {
		t.Errorf("Events(limit 2) = %+v, %v", two, err)
	}
	if n, err := c.UnackedEvents(); err != nil || n != 3 {
		t.Errorf("UnackedEvents = %d, %v, want 3", n, err)
	}
	n, err := c.AckEvents(events.AckRequest{IDs: []int64{want[0].ID}})
	if err != nil || n != 1 {
		t.Fatalf("AckEvents = %d, %v", n, err)
	}
	if ch := receive(t, changes, "the ack's change"); !ch.Acked {
		t.Errorf("after an ack: %+v", ch)
	}
	testkit.WaitFor(t, "two unread", func() bool {
		n, err := c.UnackedEvents()
		m, _ := in.core.UnackedEvents()
		return err == nil && n == 2 && m == 2
	})
	if _, err := c.AckEvents(events.AckRequest{}); err == nil {
		t.Error("AckEvents with nothing to ack = nil, want an error")
	}
	cancel()
	for range changes { // closed after cancel
	}
}
