package events

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recordingNotifier keeps what it was asked to show.
type recordingNotifier struct {
	mu    sync.Mutex
	notes []Notification // guarded by mu
	added chan struct{}  // gets a value per notification (cap 100)
}

func newRecordingNotifier() *recordingNotifier {
	return &recordingNotifier{added: make(chan struct{}, 100)}
}

func (r *recordingNotifier) Notify(n Notification) {
	r.mu.Lock()
	r.notes = append(r.notes, n)
	r.mu.Unlock()
	select {
	case r.added <- struct{}{}:
	default:
	}
}

func (r *recordingNotifier) all() []Notification {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Notification(nil), r.notes...)
}

func note(id int64, server, params string) eventNote {
	return eventNote{id: id, server: server, method: "event/new_email", params: json.RawMessage(params)}
}

// TestCoalescing: the first event of a server notifies at once; the rest
// within 10 s become one "N new events" at the end of the interval; each
// server has its own clock.
func TestCoalescing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCoalescer(notifyInterval)
		rec := newRecordingNotifier()
		done := make(chan struct{})
		go func() {
			c.deliver(rec)
			close(done)
		}()
		c.add(note(1, "gmail", `{"subject":"Lunch?","from":"ada@example.com"}`))
		c.add(note(2, "gmail", `{"subject":"Re: Lunch?"}`))
		c.add(note(3, "gmail", `{"subject":"Re: Re: Lunch?"}`))
		c.add(note(4, "gcal", `{"title":"Standup","description":"Daily"}`))
		synctest.Wait()
		want := []Notification{
			{Server: "gmail", Title: "gmail: Lunch?", Body: "ada@example.com", Events: 1, LastID: 1},
			{Server: "gcal", Title: "gcal: Standup", Body: "Daily", Events: 1, LastID: 4},
		}
		if got := rec.all(); !equalNotes(got, want) {
			t.Fatalf("at once:\n got %+v\nwant %+v", got, want)
		}

		time.Sleep(notifyInterval - time.Millisecond) // fake time: inside the bubble
		synctest.Wait()
		if got := rec.all(); len(got) != 2 {
			t.Fatalf("before the interval ended: %+v", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		want = append(want, Notification{Server: "gmail", Title: "2 new events from gmail", Body: "Latest: Re: Re: Lunch?", Events: 2, LastID: 3})
		if got := rec.all(); !equalNotes(got, want) {
			t.Fatalf("after the interval:\n got %+v\nwant %+v", got, want)
		}

		// One event in the next interval shows as itself.
		c.add(note(5, "gmail", `{"subject":"Last one"}`))
		time.Sleep(notifyInterval)
		synctest.Wait()
		want = append(want, Notification{Server: "gmail", Title: "gmail: Last one", Events: 1, LastID: 5})
		if got := rec.all(); !equalNotes(got, want) {
			t.Fatalf("a lone event after a burst:\n got %+v\nwant %+v", got, want)
		}
		// A quiet server notifies at once again.
		time.Sleep(notifyInterval)
		c.add(note(6, "gmail", `{}`))
		synctest.Wait()
		want = append(want, Notification{Server: "gmail", Title: "gmail: event/new_email", Events: 1, LastID: 6})
		if got := rec.all(); !equalNotes(got, want) {
			t.Fatalf("after a quiet interval:\n got %+v\nwant %+v", got, want)
		}

		// Stopped: pending events are dropped, deliver returns.
		c.add(note(7, "gmail", `{}`))
		c.stop()
		<-done
		time.Sleep(2 * notifyInterval)
		c.add(note(8, "gmail", `{}`))
		if got := rec.all(); len(got) != len(want) {
			t.Errorf("after stop: %+v", got[len(want):])
		}
	})
}

func equalNotes(a, b []Notification) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEventText(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for _, c := range []struct {
		params, title, body string
	}{
		{`{"title":"T","subject":"S","summary":"U","body":"B","snippet":"N"}`, "T", "B"},
		{`{"subject":"S","summary":"U","snippet":"N","from":"F"}`, "S", "N"},
		{`{"summary":"U","from":"F","description":"D"}`, "U", "F"},
		{`{"description":"D"}`, "event/x", "D"},
		{`{"title":"  ","subject":7,"summary":"U"}`, "U", ""},
		{`{"title":"line one\nline\ttwo\u0007"}`, "line one line two", ""},
		{`{"body":"first\nsecond\r\n\u0000third"}`, "event/x", "first\nsecond \nthird"},
		{`{"body":"` + long + `"}`, "event/x", strings.TrimSpace(long[:199]) + "…"},
		{`not json`, "event/x", ""},
	} {
		title, body := eventText("event/x", json.RawMessage(c.params))
		if title != c.title || body != c.body {
			t.Errorf("eventText(%s) = %q, %q; want %q, %q", c.params, title, body, c.title, c.body)
		}
	}
	title, _ := eventText("event/x", json.RawMessage(`{"title":"`+long+`"}`))
	if n := len([]rune(title)); n != maxNotifyTitle {
		t.Errorf("a long title is %d characters, want %d", n, maxNotifyTitle)
	}
	if _, body := eventText("e", json.RawMessage(`{"body":"`+long+`"}`)); len([]rune(body)) > maxNotifyBody {
		t.Errorf("body of %d characters", len([]rune(body)))
	}
}
