package app

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkit"
)

// TestEventsNeverStallTheServer: while the database takes no writes (here
// another connection holds its write lock, as a full disk would stop
// them), a server flooding events still gets its tool calls answered:
// its stdout reader never waits for the event writer. The events that
// do not fit in the queue are dropped and counted in the log; the rest
// are stored once the database takes writes again.
func TestEventsNeverStallTheServer(t *testing.T) {
	logs := &testkit.Buffer{}
	h := startCore(t, servers("ev", fake(t, "events")), func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(logs, nil))
		o.EventQueue = 4096 // full within a moment
	})
	h.wait("ev ready", stateIs("ev", control.StateReady))
	c := openEvents(t, h, "ev__emit_async")

	db, err := sql.Open("sqlite", "file:"+dbPath(h.data)+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(context.Background(), nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	const total = 200000
	if text, _ := toolText(t, callTool(c, "ev__emit_async", map[string]any{"count": total})); text != "emitting 200000" {
		t.Fatalf("emit_async: %s", text)
	}
	h.waitLog("ev", "event queue full")
	answered := make(chan string, 1)
	go func() {
		text, _ := toolText(t, callTool(c, "ev__echo", map[string]any{"message": "behind the flood"}))
		answered <- text
	}()
	select {
	case text := <-answered:
		if text != "behind the flood" {
			t.Fatalf("echo behind the flood = %q", text)
		}
		// The database still refuses writes: the writer has not given up
		// a batch (which would have let a waiting reader go on).
		if l := logs.String(); strings.Contains(l, "events lost") {
			t.Fatalf("the call was answered only once the writer gave events up:\n%.3000s", l)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("a call behind the event flood was not answered while the database took no writes")
	}
	tx.Rollback()
	h.waitLog("ev", "events were dropped")
	if s := h.server("ev"); s.State != control.StateReady || s.Restarts != 0 {
		t.Errorf("server after the flood: %+v", s)
	}
	n, err := h.core.UnackedEvents()
	if err != nil || n == 0 || n >= total {
		t.Errorf("%d events stored (%v); want some, not all", n, err)
	}
	if log := h.logText("ev"); !strings.Contains(log, "events were dropped") {
		t.Errorf("server log: %s", log)
	}
}
