package inbox

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/mcptray/mcptray/store"
)

// A server's 33rd waiting request is answered cancel at once; another
// server's still waits; the burst is reported once, with its count, when
// the first server's requests drop below the cap.
func TestInboxCapPerServer(t *testing.T) {
	var firsts, refusals int
	var relieved []int
	ib := New(Options{
		Log: slog.New(slog.DiscardHandler),
		Refused: func(server string, first bool) {
			if server != "a" {
				t.Errorf("refused a request of %s", server)
			}
			refusals++
			if first {
				firsts++
			}
		},
		Relieved: func(server string, n int) { relieved = append(relieved, n) },
	})

	var open []*pending
	for range MaxPendingPerServer {
		p := ib.add(Request{Server: "a", Mode: "form"}, "", time.Minute)
		if p == nil {
			t.Fatalf("request %d of a refused", len(open)+1)
		}
		open = append(open, p)
	}
	for range 5 {
		r := ib.Ask(context.Background(), Request{Server: "a", Mode: "form"}, "", time.Minute)
		if r.Reply.Action != ActionCancel || r.Outcome != store.OutcomeCancel || r.By != ClosedByFull {
			t.Errorf("over the cap: %+v", r)
		}
	}
	if p := ib.add(Request{Server: "b", Mode: "form"}, "", time.Minute); p == nil {
		t.Error("a request of another server refused")
	}
	if refusals != 5 || firsts != 1 || len(relieved) != 0 {
		t.Errorf("%d refusals, %d firsts, relieved %v", refusals, firsts, relieved)
	}
	if n := len(ib.List()); n != MaxPendingPerServer+1 {
		t.Errorf("%d requests listed, want %d", n, MaxPendingPerServer+1)
	}
	ib.close(open[0].req.ID, Result{Reply: nil, Outcome: store.OutcomeCancel, By: "test"})
	if len(relieved) != 1 || relieved[0] != 5 {
		t.Errorf("relieved %v, want [5]", relieved)
	}
	if p := ib.add(Request{Server: "a", Mode: "form"}, "", time.Minute); p == nil {
		t.Error("refused below the cap")
	}
	ib.CloseAll(Result{Outcome: store.OutcomeCancel, By: "test"})
	if n := len(ib.List()); n != 0 {
		t.Errorf("%d requests left after closeAll", n)
	}
}

// A request whose server's session ended before it reached the inbox (the
// tail of a burst) is answered cancel, closed by the server, without
// entering the inbox: it takes no live request's place and is no refusal.
func TestInboxRequestOfAGoneServer(t *testing.T) {
	ib := New(Options{Log: slog.New(slog.DiscardHandler), Refused: func(string, bool) { t.Error("counted as refused") }})
	events, stop := ib.Subscribe()
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := ib.Ask(ctx, Request{Server: "a", Mode: "form"}, "", time.Minute)
	if r.Reply.Action != ActionCancel || r.Outcome != store.OutcomeCancel || r.By != ClosedByServer {
		t.Errorf("a gone server's request: %+v", r)
	}
	select {
	case ev := <-events:
		t.Errorf("published %+v", ev)
	default:
	}
	if n := len(ib.List()); n != 0 {
		t.Errorf("%d requests listed", n)
	}
}
