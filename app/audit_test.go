package app

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/store"
)

// Rows from many goroutines at once, more than the queue holds, all reach
// the store through the one writer; stop stores what is queued, and a row
// added after stop is stored at once.
func TestAuditLogStoresEveryRow(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := newAuditLog(slog.New(slog.DiscardHandler), st)
	go a.write()

	const goroutines, each = 50, 2 * auditQueue / 50
	now := time.Now()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				a.add(store.Elicitation{Server: fmt.Sprintf("s%d", g), Mode: "form", Message: fmt.Sprint(i), Outcome: store.OutcomeCancel, ClosedBy: ClosedByInboxFull, Created: now, Closed: now})
			}
		})
	}
	wg.Wait()
	a.stop()
	rows, err := st.Elicitations(context.Background(), 0)
	if err != nil || len(rows) != goroutines*each {
		t.Fatalf("%d rows after stop, want %d (%v)", len(rows), goroutines*each, err)
	}
	a.add(store.Elicitation{Server: "late", Mode: "form", Outcome: store.OutcomeCancel, ClosedBy: ClosedByServer, Created: now, Closed: now})
	if rows, _ := st.Elicitations(context.Background(), 1); len(rows) != 1 || rows[0].Server != "late" {
		t.Errorf("a row added after stop: %+v", rows)
	}
}

// Requests still waiting when mcptray stops are closed, and audited,
// before Run returns.
func TestInboxAuditedAtShutdown(t *testing.T) {
	h := startCore(t, servers("ask", fake(t, "asker")))
	h.wait("ready", stateIs("ask", StateReady))
	events, cancel := h.core.SubscribeInbox()
	defer cancel()
	for range 3 {
		asyncCall(openRPC(t, h, "", ""), "ask__form", map[string]any{"form": "confirm"})
		nextEvent(t, events, InboxAdded)
	}
	h.stop()
	st, err := store.Open(dbPath(h.data))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Elicitations(context.Background(), 0)
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d audit rows after Run, want 3 (%v)", len(rows), err)
	}
	for _, r := range rows {
		if r.Outcome != store.OutcomeCancel || r.ClosedBy != ClosedByServer {
			t.Errorf("row %+v, want cancel by server", r)
		}
	}
}
