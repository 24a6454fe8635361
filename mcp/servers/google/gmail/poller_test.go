package gmail

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	gm "google.golang.org/api/gmail/v1"
)

// noAccounts is an AccountSource with no account.
type noAccounts struct{}

func (noAccounts) Emails() ([]string, error) { return nil, nil }
func (noAccounts) Client(context.Context, string) (*http.Client, error) {
	return nil, errors.New("no account")
}

func TestMailTitle(t *testing.T) {
	for _, c := range []struct{ subject, from, want string }{
		{"Lunch?", "ada@example.com", "Lunch? — ada@example.com"},
		{"Lunch?", "Ada Lovelace <ada@example.com>", "Lunch? — ada@example.com"},
		{"Lunch?", `"Lovelace, Ada" <ada@example.com>`, "Lunch? — ada@example.com"},
		{"Lunch?", "Ada <ada@example.com>, bob@example.com", "Lunch? — ada@example.com"},
		{"", "ada@example.com", "(no subject) — ada@example.com"},
		{"  Re:\r\n  lunch  ", "ada@example.com", "Re: lunch — ada@example.com"},
		{"Lunch?", "not an address", "Lunch? — not an address"},
		{"Lunch?", "", "Lunch?"},
	} {
		if got := mailTitle(c.subject, c.from); got != c.want {
			t.Errorf("mailTitle(%q, %q) = %q, want %q", c.subject, c.from, got, c.want)
		}
	}
}

func TestMailDate(t *testing.T) {
	for _, c := range []struct {
		header   string
		internal int64
		want     string
	}{
		{"Tue, 3 Mar 2026 09:15:00 +0100", 0, "2026-03-03T09:15:00+01:00"},
		{"Tue, 3 Mar 2026 09:15:00 +0100 (CET)", 1, "2026-03-03T09:15:00+01:00"},
		{"yesterday", 1772525700000, "2026-03-03T08:15:00Z"},
		{"", 1772525700000, "2026-03-03T08:15:00Z"},
		{"", 0, ""},
	} {
		if got := mailDate(c.header, c.internal); got != c.want {
			t.Errorf("mailDate(%q, %d) = %q, want %q", c.header, c.internal, got, c.want)
		}
	}
}

func TestAnnounced(t *testing.T) {
	for _, c := range []struct {
		labels []string
		want   bool
	}{
		{[]string{"INBOX", "UNREAD", "CATEGORY_PERSONAL"}, true},
		{[]string{"SENT"}, false},                   // we sent it
		{[]string{"SENT", "INBOX", "UNREAD"}, true}, // to ourselves
		{[]string{"DRAFT"}, false},
		{[]string{"DRAFT", "INBOX"}, false},
		{[]string{"SPAM", "UNREAD"}, false},
		{nil, false},
	} {
		if got := announced(c.labels); got != c.want {
			t.Errorf("announced(%v) = %v", c.labels, got)
		}
	}
}

func TestNewEmailNotice(t *testing.T) {
	m := &gm.Message{Id: "m1", ThreadId: "t1", LabelIds: []string{"INBOX", "UNREAD"},
		Snippet: "Shall we meet at &quot;Luigi&#39;s&quot; at one?", InternalDate: 1772525700000,
		Payload: &gm.MessagePart{Headers: []*gm.MessagePartHeader{
			{Name: "Date", Value: "Tue, 3 Mar 2026 09:15:00 +0100"},
			{Name: "from", Value: "Ada Lovelace <ada@example.com>"},
			{Name: "Subject", Value: "Lunch?"},
			{Name: "Subject", Value: "a second one"},
		}}}
	got := newEmailNotice("me@example.com", m)
	want := NewEmailNotice{Account: "me@example.com", MessageID: "m1", ThreadID: "t1", From: "Ada Lovelace <ada@example.com>",
		Subject: "Lunch?", Snippet: `Shall we meet at "Luigi's" at one?`, Date: "2026-03-03T09:15:00+01:00",
		Labels: []string{"INBOX", "UNREAD"}, Title: "Lunch? — ada@example.com"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("notice\n got %+v\nwant %+v", got, want)
	}
	// No headers at all.
	got = newEmailNotice("me@example.com", &gm.Message{Id: "m2"})
	if got.Title != "(no subject)" || got.Labels == nil || got.Date != "" {
		t.Errorf("a bare message's notice %+v", got)
	}
}

func TestNewPollerOptions(t *testing.T) {
	if _, err := NewPoller(PollerOptions{}); err == nil {
		t.Error("no error without accounts")
	}
	for _, c := range []struct{ in, want time.Duration }{
		{0, DefaultPollInterval},
		{time.Millisecond, MinPollInterval},
		{5 * time.Minute, 5 * time.Minute},
	} {
		p, err := NewPoller(PollerOptions{Accounts: noAccounts{}, Interval: c.in})
		noErr(t, err)
		if p.Interval() != c.want {
			t.Errorf("interval %v → %v, want %v", c.in, p.Interval(), c.want)
		}
		if p.o.Backoff != google.DefaultBackoff || p.o.Notify == nil || p.log == nil {
			t.Errorf("defaults %+v", p.o)
		}
	}
}

// countingAccounts is an AccountSource with no account that says on
// rounds each time the poller reads the accounts.
type countingAccounts struct {
	noAccounts
	rounds chan struct{}
}

func (a countingAccounts) Emails() ([]string, error) {
	a.rounds <- struct{}{}
	return nil, nil
}

// TestPollerRuns: Run polls at once, again every Interval, and returns
// when its context ends.
func TestPollerRuns(t *testing.T) {
	acc := countingAccounts{rounds: make(chan struct{})}
	p, err := NewPoller(PollerOptions{Accounts: acc, Interval: MinPollInterval})
	noErr(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.Run(ctx) }()
	for i := range 2 {
		select {
		case <-acc.rounds:
		case <-time.After(30 * time.Second):
			t.Fatalf("poll %d did not come", i+1)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run returned %v", err)
		}
	case <-acc.rounds:
		t.Fatal("a poll after the context ended")
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return")
	}
}
