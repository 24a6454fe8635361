package store

import (
	"context"
	"strconv"
	"testing"
	"time"
)

func TestToolCalls(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	t0 := time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC)
	calls := []ToolCall{
		{Server: "ssh", Tool: "exec", Started: t0, Duration: 1500 * time.Microsecond, Outcome: "ok"},
		{Server: "gmail", Tool: "search", Started: t0.Add(time.Second), Duration: 5 * time.Minute, Outcome: "timeout"},
		{Server: "ssh", Tool: "read_file", Started: t0.Add(2 * time.Second), Duration: 2 * time.Millisecond, Outcome: "cancelled"},
	}
	if err := s.AddToolCalls(ctx, calls); err != nil {
		t.Fatal(err)
	}
	got, err := s.ToolCalls(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Tool != "read_file" || got[1].Tool != "search" || got[1].Duration != 5*time.Minute || !got[1].Started.Equal(t0.Add(time.Second)) || got[1].Outcome != "timeout" {
		t.Errorf("ToolCalls(2) = %+v", got)
	}
	if all, _ := s.ToolCalls(ctx, 0); len(all) != 3 || all[2].Duration != 1500*time.Microsecond {
		t.Errorf("ToolCalls(0) = %+v", all)
	}
	if n, err := s.DeleteToolCalls(ctx, t0.Add(time.Second)); n != 1 || err != nil {
		t.Errorf("DeleteToolCalls = %d, %v", n, err)
	}

	for _, c := range []struct {
		call ToolCall
		want string
	}{
		{ToolCall{Tool: "x", Started: t0, Outcome: "ok"}, "storing tool calls: a call has no server or tool name"},
		{ToolCall{Server: "a", Tool: "x", Outcome: "ok"}, "storing tool calls: the call of a/x has no start time"},
		{ToolCall{Server: "a", Tool: "x", Started: t0, Outcome: "fine"}, `storing tool calls: outcome "fine" of a/x is not ok, error, cancelled or timeout`},
	} {
		if err := s.AddToolCalls(ctx, []ToolCall{c.call}); err == nil || err.Error() != c.want {
			t.Errorf("AddToolCalls(%+v) = %v; want %q", c.call, err, c.want)
		}
	}
}

// BenchmarkAddToolCalls stores the gateway's history in its batches (the
// app writes up to 512 records per transaction).
func BenchmarkAddToolCalls(b *testing.B) {
	s, _ := openTemp(b)
	benchBatches(b, 512, "calls/s", func() ToolCall {
		return ToolCall{Server: "echo", Tool: "echo", Started: time.Now(), Duration: 250 * time.Microsecond, Outcome: "ok"}
	}, s.AddToolCalls)
}

// TestAddToolCallsAcrossStatements: a batch is stored in INSERTs of
// toolCallsPerInsert rows and one of the rest; every row arrives whole,
// whatever the batch's size.
func TestAddToolCallsAcrossStatements(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{1, toolCallsPerInsert - 1, toolCallsPerInsert, toolCallsPerInsert + 1, 2 * toolCallsPerInsert, 2*toolCallsPerInsert + 3, 517} {
		s, _ := openTemp(t)
		calls := make([]ToolCall, n)
		for i := range calls {
			calls[i] = ToolCall{Server: "s" + strconv.Itoa(i%3), Tool: "t" + strconv.Itoa(i), Started: t0.Add(time.Duration(i) * time.Millisecond), Duration: time.Duration(i) * time.Microsecond, Outcome: []string{"ok", "error", "cancelled", "timeout"}[i%4]}
		}
		if err := s.AddToolCalls(ctx, calls); err != nil {
			t.Fatalf("%d calls: %v", n, err)
		}
		got, err := s.ToolCalls(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%d calls stored as %d rows", n, len(got))
		}
		for i, g := range got { // newest first
			w := calls[n-1-i]
			if g.Server != w.Server || g.Tool != w.Tool || !g.Started.Equal(w.Started) || g.Duration != w.Duration || g.Outcome != w.Outcome {
				t.Fatalf("%d calls: row %d = %+v, want %+v", n, i, g, w)
			}
		}
	}
}
