package inbox

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
// the store through the one writer; Stop stores what is queued, and a row
// added after Stop is stored at once.
func TestAuditLogStoresEveryRow(t *testing.T) {
	st, err := store.Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := NewAuditLog(slog.New(slog.DiscardHandler), st)
	go a.Run()

	const goroutines, each = 50, 2 * auditQueue / 50
	now := time.Now()
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				a.add(store.Elicitation{Server: fmt.Sprintf("s%d", g), Mode: "form", Message: fmt.Sprint(i), Outcome: store.OutcomeCancel, ClosedBy: ClosedByFull, Created: now, Closed: now})
			}
		})
	}
	wg.Wait()
	a.Stop()
	rows, err := st.Elicitations(context.Background(), 0)
	if err != nil || len(rows) != goroutines*each {
		t.Fatalf("%d rows after stop, want %d (%v)", len(rows), goroutines*each, err)
	}
	a.add(store.Elicitation{Server: "late", Mode: "form", Outcome: store.OutcomeCancel, ClosedBy: ClosedByServer, Created: now, Closed: now})
	if rows, _ := st.Elicitations(context.Background(), 1); len(rows) != 1 || rows[0].Server != "late" {
		t.Errorf("a row added after stop: %+v", rows)
	}
}
