package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// now is a fixed clock reading for tests, far from the UTC day boundary
// and with nanoseconds, in a zone other than UTC.
func now() time.Time {
	return time.Date(2026, 7, 3, 14, 34, 56, 789012345, time.FixedZone("CEST", 2*3600))
}

func TestRunLifecycle(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	start := now()
	id, err := s.RunStarted(ctx, "notes", 4242, 4240, "inst-1", start)
	if err != nil {
		t.Fatal(err)
	}

	open, err := s.OpenRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := Run{ID: id, Server: "notes", PID: 4242, PGID: 4240, Instance: "inst-1", Started: start.UTC(), ExitCode: -1}
	if len(open) != 1 || open[0] != want {
		t.Fatalf("OpenRuns = %+v, want [%+v]", open, want)
	}
	if !open[0].Running() {
		t.Error("an open run is not Running")
	}

	end := start.Add(90 * time.Second)
	if err := s.RunExited(ctx, id, end, 3, "exited with code 3\nsecond line"); err != nil {
		t.Fatal(err)
	}
	open, err = s.OpenRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 0 {
		t.Errorf("OpenRuns after exit = %+v, want none", open)
	}
	runs, err := s.Runs(ctx, "notes", 10)
	if err != nil {
		t.Fatal(err)
	}
	want.Exited, want.ExitCode, want.Reason = end.UTC(), 3, "exited with code 3 second line"
	if len(runs) != 1 || runs[0] != want {
		t.Fatalf("Runs = %+v, want [%+v]", runs, want)
	}
	if runs[0].Running() {
		t.Error("an exited run is Running")
	}
	if runs[0].Started.Location() != time.UTC {
		t.Errorf("Started is in %v, want UTC", runs[0].Started.Location())
	}
}

func TestRunExitedErrors(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	id, err := s.RunStarted(ctx, "notes", 1, 1, "i", now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunExited(ctx, id, now(), -1, "killed by signal"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   int64
		at   time.Time
		want string
	}{
		{id, now(), fmt.Sprintf("recording the exit of run %d: its exit is already recorded", id)},
		{id + 100, now(), fmt.Sprintf("recording the exit of run %d: no such run", id+100)},
		{id, time.Time{}, fmt.Sprintf("recording the exit of run %d: exit time is zero", id)},
	} {
		err := s.RunExited(ctx, tc.id, tc.at, 0, "stopped")
		if err == nil || err.Error() != tc.want {
			t.Errorf("RunExited(%d, %v):\n got: %v\nwant: %s", tc.id, tc.at, err, tc.want)
		}
	}
	runs, _ := s.Runs(ctx, "notes", 0)
	if len(runs) != 1 || runs[0].Reason != "killed by signal" || runs[0].ExitCode != -1 {
		t.Errorf("the first exit was overwritten: %+v", runs)
	}
}

func TestRunStartedRejectsBadInput(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	for _, tc := range []struct {
		server    string
		pid, pgid int
		at        time.Time
		want      string
	}{
		{"", 1, 1, now(), "recording a run start: server name is empty"},
		{"x", 0, 1, now(), "recording a run start of x: pid 0 is not a process id"},
		{"x", 1, -1, now(), "recording a run start of x: pgid -1 is not a process group id"},
		{"x", 1, 1, time.Time{}, "recording a run start of x: start time is zero"},
	} {
		_, err := s.RunStarted(ctx, tc.server, tc.pid, tc.pgid, "i", tc.at)
		if err == nil || err.Error() != tc.want {
			t.Errorf("RunStarted(%q, %d, %d, %v):\n got: %v\nwant: %s", tc.server, tc.pid, tc.pgid, tc.at, err, tc.want)
		}
	}
	if open, _ := s.OpenRuns(ctx); len(open) != 0 {
		t.Errorf("bad input was stored: %+v", open)
	}
}

func TestRunsNewestFirst(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	base := now()
	// Insert out of time order, with two runs at the same instant, and
	// one sub-second apart around a whole second (text order must still be
	// time order), plus another server's run in between.
	offsets := []time.Duration{5 * time.Second, 0, 2*time.Second + 999*time.Millisecond, 3 * time.Second, 3 * time.Second}
	ids := map[time.Duration][]int64{}
	for i, off := range offsets {
		id, err := s.RunStarted(ctx, "a", 100+i, 100+i, "i", base.Add(off))
		if err != nil {
			t.Fatal(err)
		}
		ids[off] = append(ids[off], id)
		if _, err := s.RunStarted(ctx, "b", 200+i, 200+i, "i", base.Add(off)); err != nil {
			t.Fatal(err)
		}
	}
	want := []int64{ids[5*time.Second][0], ids[3*time.Second][1], ids[3*time.Second][0], ids[2*time.Second+999*time.Millisecond][0], ids[0][0]}

	runs, err := s.Runs(ctx, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := runIDs(runs); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Runs(a, 0) ids = %v, want %v", got, want)
	}
	runs, err = s.Runs(ctx, "a", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := runIDs(runs); fmt.Sprint(got) != fmt.Sprint(want[:2]) {
		t.Errorf("Runs(a, 2) ids = %v, want %v", got, want[:2])
	}
	runs, err = s.Runs(ctx, "nobody", 5)
	if err != nil || len(runs) != 0 {
		t.Errorf("Runs(nobody) = %v, %v; want none", runs, err)
	}
	open, err := s.OpenRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 2*len(offsets) {
		t.Errorf("OpenRuns has %d runs, want %d", len(open), 2*len(offsets))
	}
	for i := 1; i < len(open); i++ {
		if open[i].ID <= open[i-1].ID {
			t.Errorf("OpenRuns not oldest first: %v", runIDs(open))
			break
		}
	}
}

func TestRunStartedConcurrently(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	// A second Store on the same file: writers in two pools (as with two
	// processes) must queue on busy_timeout, not fail.
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()

	const goroutines, each = 20, 10
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	idc := make(chan int64, goroutines*each)
	for g := range goroutines {
		st := s
		if g%2 == 1 {
			st = s2
		}
		wg.Go(func() {
			for i := range each {
				id, err := st.RunStarted(ctx, fmt.Sprintf("srv%d", g), 1000+g*each+i, 1000+g, "i", now())
				if err != nil {
					errs <- err
					return
				}
				idc <- id
			}
		})
	}
	wg.Wait()
	close(errs)
	close(idc)
	for err := range errs {
		t.Error(err)
	}
	seen := map[int64]bool{}
	for id := range idc {
		if seen[id] {
			t.Errorf("id %d returned twice", id)
		}
		seen[id] = true
	}
	open, err := s.OpenRuns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != goroutines*each || len(seen) != goroutines*each {
		t.Errorf("%d runs stored, %d ids returned, want %d", len(open), len(seen), goroutines*each)
	}
}

func BenchmarkRunStarted(b *testing.B) {
	ctx := context.Background()
	s, _ := openTemp(b)
	at := now()
	for i := 0; b.Loop(); i++ {
		if _, err := s.RunStarted(ctx, "bench", 1+i%30000, 1, "i", at); err != nil {
			b.Fatal(err)
		}
	}
}

func runIDs(runs []Run) []int64 {
	ids := make([]int64, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	return ids
}
