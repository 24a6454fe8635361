package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// dbFDs counts this process's descriptors on the database at path (and
// its -wal and -shm files); -1 where /proc/self/fd does not exist.
func dbFDs(path string) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(target, path) {
			n++
		}
	}
	return n
}

// Hundreds of goroutines writing and reading at once share a bounded pool:
// never more than maxOpenConns connections (nor their descriptors), no
// deadlock between long reads and writes, and every row stored.
func TestPoolBounded(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	// Enough events that reading them all holds a connection a while.
	t0 := time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC)
	evs := make([]Event, 2000)
	for i := range evs {
		evs[i] = Event{Server: "s", Method: "event/x", Params: []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", 200))), Received: t0}
	}
	if err := s.AddEvents(ctx, evs); err != nil {
		t.Fatal(err)
	}
	base := dbFDs(path)

	const writers, readers = 400, 16
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	stop := make(chan struct{})
	var maxOpen, maxFDs int
	var sampled sync.WaitGroup
	sampled.Go(func() {
		for {
			maxOpen = max(maxOpen, s.db().Stats().OpenConnections)
			maxFDs = max(maxFDs, dbFDs(path))
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	for i := range writers {
		wg.Go(func() {
			e := Elicitation{Server: fmt.Sprintf("srv%d", i%7), Mode: "form", Message: "storm", Outcome: OutcomeCancel, Created: t0, Closed: t0}
			if err := s.AddElicitations(ctx, []Elicitation{e}); err != nil {
				errs <- err
			}
		})
	}
	for range readers {
		wg.Go(func() {
			got, err := s.Events(ctx, EventFilter{All: true})
			if err == nil && len(got) != len(evs) {
				err = fmt.Errorf("read %d events, want %d", len(got), len(evs))
			}
			if err != nil {
				errs <- err
			}
			if _, err := s.Elicitations(ctx, 0); err != nil {
				errs <- err
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("readers and writers still waiting after 60 s: the pool deadlocked")
	}
	close(stop)
	sampled.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got, _ := s.Elicitations(ctx, 0); len(got) != writers {
		t.Errorf("%d rows stored, want %d", len(got), writers)
	}
	if maxOpen > maxOpenConns {
		t.Errorf("%d connections open at once, the bound is %d", maxOpen, maxOpenConns)
	}
	// Two descriptors a connection (the database and its WAL), one -shm
	// for them all.
	if runtime.GOOS == "linux" && maxFDs > 2*maxOpenConns+1 {
		t.Errorf("%d descriptors on the database at once (%d before), want at most %d", maxFDs, base, 2*maxOpenConns+1)
	}
	if st := s.db().Stats(); st.MaxOpenConnections != maxOpenConns {
		t.Errorf("pool bound %d, want %d", st.MaxOpenConnections, maxOpenConns)
	}
	if st := s.db().Stats(); st.OpenConnections > maxIdleConns {
		t.Errorf("%d connections left open, want at most %d", st.OpenConnections, maxIdleConns)
	}
}
