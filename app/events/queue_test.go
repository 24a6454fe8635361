package events

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/store"
)

// serverLog is a server's log (Log) kept in memory, a line per Write as
// the core's per-server log writes it: "[kind] text".
type serverLog struct{ testkit.Buffer }

func (l *serverLog) Write(kind, text string) { fmt.Fprintf(&l.Buffer, "[%s] %s\n", kind, text) }

// TestEventQueueFullDrops: with the queue full, ingest returns at once
// and drops the event, and the log says so; once the writer runs, every
// queued event is stored in order, and the log counts what was dropped.
func TestEventQueueFullDrops(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	logs := &testkit.Buffer{}
	h := NewHub(Options{Store: st, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	sl := &serverLog{}
	params := func(i int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)) }

	for i := range QueueSize + 3 { // no writer yet: the last 3 are dropped, at once
		h.ingest("s", true, sl, "event/x", params(i))
	}
	if l := logs.String(); !strings.Contains(l, "event queue full (65536 events or 32 MiB): new events are dropped until the database takes them") {
		t.Fatalf("log: %s", l)
	}
	wrote := make(chan struct{})
	go func() {
		h.write()
		close(wrote)
	}()
	close(h.stopping)
	<-wrote

	evs, err := st.Events(context.Background(), store.EventFilter{All: true, Limit: 2 * QueueSize})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != QueueSize {
		t.Fatalf("%d events stored, want %d", len(evs), QueueSize)
	}
	for i, e := range evs {
		if string(e.Params) != string(params(i)) {
			t.Fatalf("event %d: %s", i, e.Params)
		}
	}
	want := `msg="event queue drained: 3 events were dropped while it was full" server=s`
	if l := logs.String(); !strings.Contains(l, want) {
		t.Errorf("log:\n%.2000s\nwant %q", l, want)
	}
	if l := sl.String(); !strings.Contains(l, "[event] event queue full") || !strings.Contains(l, "[event] event queue drained: 3 events were dropped while it was full") {
		t.Errorf("server log: %s", l)
	}
}
