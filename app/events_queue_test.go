package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/store"
)

// queueLog is a bytes.Buffer for a logger written from several
// goroutines.
type queueLog struct {
	mu  sync.Mutex
	buf bytes.Buffer // guarded by mu
}

func (b *queueLog) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *queueLog) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestEventQueueFullWaits: with the queue full, the reader waits (and the
// log says so) instead of dropping the event; once the writer runs, every
// event is stored in order.
func TestEventQueueFullWaits(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	logs := &queueLog{}
	c := &Core{store: st, log: slog.New(slog.NewTextHandler(logs, nil))}
	h := newEventHub(c)
	c.events = h
	sl := openServerLog(dir, "s")
	defer sl.Close()
	params := func(i int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)) }

	for i := range eventQueueSize {
		h.ingest("s", true, sl, "event/x", params(i))
	}
	waited := make(chan struct{})
	go func() {
		h.ingest("s", true, sl, "event/x", params(eventQueueSize))
		close(waited)
	}()
	waitFor(t, "the full queue to be logged", func() bool { return strings.Contains(logs.String(), "event queue full") })
	select {
	case <-waited:
		t.Fatal("ingest returned with the queue full and no writer")
	default:
	}
	wrote := make(chan struct{})
	go func() {
		h.write()
		close(wrote)
	}()
	<-waited
	close(h.stopping)
	<-wrote

	evs, err := st.Events(context.Background(), store.EventFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != eventQueueSize+1 {
		t.Fatalf("%d events stored, want %d", len(evs), eventQueueSize+1)
	}
	for i, e := range evs {
		if string(e.Params) != string(params(i)) {
			t.Fatalf("event %d: %s", i, e.Params)
		}
	}
	want := `msg="event queue full (4096 events): reading from the server waits for the database" server=s`
	if l := logs.String(); !strings.Contains(l, want) || !strings.Contains(l, "event queue drained") {
		t.Errorf("log:\n%s\nwant %q and the drain", l, want)
	}
	sl.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, LogFileName("s"))); !strings.Contains(string(b), "[event] event queue full (4096 events): reading from the server waits for the database") {
		t.Errorf("server log: %s", b)
	}
}
