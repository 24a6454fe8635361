package app

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
	ib := newInbox(slog.New(slog.DiscardHandler), nil, nil)
	var firsts, refusals int
	var relieved []int
	ib.refused = func(server string, first bool) {
		if server != "a" {
			t.Errorf("refused a request of %s", server)
		}
		refusals++
		if first {
			firsts++
		}
	}
	ib.relieved = func(server string, n int) { relieved = append(relieved, n) }

	var open []*pending
	for range maxPendingPerServer {
		p := ib.add(InboxRequest{Server: "a", Mode: "form"}, "", time.Minute)
		if p == nil {
			t.Fatalf("request %d of a refused", len(open)+1)
		}
		open = append(open, p)
	}
	for range 5 {
		r := ib.ask(context.Background(), InboxRequest{Server: "a", Mode: "form"}, "", time.Minute)
		if r.res.Action != ActionCancel || r.outcome != store.OutcomeCancel || r.by != ClosedByInboxFull {
			t.Errorf("over the cap: %+v", r)
		}
	}
	if p := ib.add(InboxRequest{Server: "b", Mode: "form"}, "", time.Minute); p == nil {
		t.Error("a request of another server refused")
	}
	if refusals != 5 || firsts != 1 || len(relieved) != 0 {
		t.Errorf("%d refusals, %d firsts, relieved %v", refusals, firsts, relieved)
	}
	if n := len(ib.list()); n != maxPendingPerServer+1 {
		t.Errorf("%d requests listed, want %d", n, maxPendingPerServer+1)
	}
	ib.close(open[0].req.ID, inboxResult{res: nil, outcome: store.OutcomeCancel, by: "test"})
	if len(relieved) != 1 || relieved[0] != 5 {
		t.Errorf("relieved %v, want [5]", relieved)
	}
	if p := ib.add(InboxRequest{Server: "a", Mode: "form"}, "", time.Minute); p == nil {
		t.Error("refused below the cap")
	}
	ib.closeAll(inboxResult{outcome: store.OutcomeCancel, by: "test"})
	if n := len(ib.list()); n != 0 {
		t.Errorf("%d requests left after closeAll", n)
	}
}

// A request whose server's session ended before it reached the inbox (the
// tail of a burst) is answered cancel, closed by the server, without
// entering the inbox: it takes no live request's place and is no refusal.
func TestInboxRequestOfAGoneServer(t *testing.T) {
	ib := newInbox(slog.New(slog.DiscardHandler), nil, nil)
	ib.refused = func(string, bool) { t.Error("counted as refused") }
	events, stop := ib.subscribe()
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := ib.ask(ctx, InboxRequest{Server: "a", Mode: "form"}, "", time.Minute)
	if r.res.Action != ActionCancel || r.outcome != store.OutcomeCancel || r.by != ClosedByServer {
		t.Errorf("a gone server's request: %+v", r)
	}
	select {
	case ev := <-events:
		t.Errorf("published %+v", ev)
	default:
	}
	if n := len(ib.list()); n != 0 {
		t.Errorf("%d requests listed", n)
	}
}
