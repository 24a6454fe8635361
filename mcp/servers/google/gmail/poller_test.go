package gmail

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	gm "google.golang.org/api/gmail/v1"
)

// noAccounts is an AccountSource with no account.
type noAccounts struct{}

func (noAccounts) Emails() ([]string, error) { return nil, nil }
func (noAccounts) Client(context.Context, string) (*http.Client, error) {
	return nil, errors.New("no account")
}

func TestNoticeTitle(t *testing.T) {
	for _, c := range []struct{ subject, from, want string }{
		{"Lunch?", "ada@example.com", "Lunch? — ada@example.com"},
		{"Lunch?", "Ada Lovelace <ada@example.com>", "Lunch? — ada@example.com"},
		{"Lunch?", `"Lovelace, Ada" <ada@example.com>`, "Lunch? — ada@example.com"},
		{"Lunch?", "Ada <ada@example.com>, bob@example.com", "Lunch? — ada@example.com"},
		{"", "ada@example.com", "(no subject) — ada@example.com"},
		{"  Re:\r\n  lunch  ", "ada@example.com", "Re: lunch — ada@example.com"},
		{"Lunch?", "not an address", "Lunch? — not an address"},
		{"Lunch?", "", "Lunch?"},
		{strings.Repeat("long ", 30), "ada@example.com", strings.TrimSpace(strings.Repeat("long ", 15)[:71]) + "… — ada@example.com"},
		{strings.Repeat("é", 72), "ada@example.com", strings.Repeat("é", 72) + " — ada@example.com"},
	} {
		if got := noticeTitle(c.subject, c.from); got != c.want {
			t.Errorf("noticeTitle(%q, %q) = %q, want %q", c.subject, c.from, got, c.want)
		}
	}
}

func TestNoticeDate(t *testing.T) {
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
		if got := noticeDate(c.header, c.internal); got != c.want {
			t.Errorf("noticeDate(%q, %d) = %q, want %q", c.header, c.internal, got, c.want)
		}
	}
}

func TestAnnounceable(t *testing.T) {
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
		if got := announceable(c.labels); got != c.want {
			t.Errorf("announceable(%v) = %v", c.labels, got)
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
		{0, DefaultPoll},
		{time.Millisecond, MinPoll},
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
	p, err := NewPoller(PollerOptions{Accounts: acc, Interval: MinPoll})
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

// The poller against the fake Google, through the real gmail/v1 client.

const (
	adaMail = "ada@example.com"
	bobMail = "bob@example.com"
	calOnly = "cal@example.com" // signed in for Calendar only
)

const historyListRoute = "GET /gmail/v1/users/{userId}/history"

// pollAccounts is an AccountSource (with List, as *google.Accounts has)
// whose clients carry access tokens the fake issued. Accounts in
// needSignIn answer *SignInNeededError until signIn clears them.
type pollAccounts struct {
	fake *googletest.Server

	mu         sync.Mutex // guards the fields below
	list       []google.Account
	needSignIn map[string]bool
	tokens     map[string]string
}

func (a *pollAccounts) List() ([]google.Account, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.list), nil
}

func (a *pollAccounts) Emails() ([]string, error) {
	list, _ := a.List()
	var out []string
	for _, acc := range list {
		out = append(out, acc.Email)
	}
	return out, nil
}

func (a *pollAccounts) Client(_ context.Context, email string) (*http.Client, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.IndexFunc(a.list, func(acc google.Account) bool { return acc.Email == email })
	if a.needSignIn[email] || i < 0 {
		return nil, &google.SignInNeededError{Email: email, Reason: "the refresh token was revoked"}
	}
	tok := a.tokens[email]
	if tok == "" {
		var scopes []string
		if a.list[i].Has(google.ServiceGmail) {
			scopes = append(scopes, google.ScopeGmail)
		}
		if a.list[i].Has(google.ServiceCalendar) {
			scopes = append(scopes, google.ScopeCalendar)
		}
		tok = a.fake.IssueAccessToken(email, scopes, time.Hour)
		a.tokens[email] = tok
	}
	return &http.Client{Transport: pollBearer(tok)}, nil
}

func (a *pollAccounts) setNeedSignIn(email string, need bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.needSignIn[email] = need
}

type pollBearer string

func (t pollBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(t))
	return http.DefaultTransport.RoundTrip(r)
}

// pollNotes collects the poller's notifications; onNotify, when set,
// runs after each.
type pollNotes struct {
	mu       sync.Mutex
	list     []NewEmailNotice
	onNotify func(NewEmailNotice)
}

func (n *pollNotes) notify(method string, params any) error {
	if method != MethodNewEmail {
		return fmt.Errorf("unexpected method %s", method)
	}
	ne := params.(NewEmailNotice)
	n.mu.Lock()
	n.list = append(n.list, ne)
	f := n.onNotify
	n.mu.Unlock()
	if f != nil {
		f(ne)
	}
	return nil
}

// take returns and forgets the notifications so far.
func (n *pollNotes) take() []NewEmailNotice {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.list
	n.list = nil
	return out
}

// pollLog is a log destination safe for several goroutines.
type pollLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *pollLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *pollLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// pollEnv is one test's fake Google with the accounts ada and bob (Gmail
// and Calendar) and cal (Calendar only), a data dir and what the pollers
// made of it.
type pollEnv struct {
	t        *testing.T
	fake     *googletest.Server
	accounts *pollAccounts
	dataDir  string
	notes    *pollNotes
	logs     *pollLog
}

func newPollEnv(t *testing.T) *pollEnv {
	t.Helper()
	fake := googletest.New()
	t.Cleanup(fake.Close)
	t.Setenv(google.APIURLEnv, fake.URL)
	both := []string{google.ServiceCalendar, google.ServiceGmail}
	acc := &pollAccounts{fake: fake, needSignIn: map[string]bool{}, tokens: map[string]string{}, list: []google.Account{
		{Email: adaMail, Scopes: both, Status: google.StatusOK},
		{Email: bobMail, Scopes: both, Status: google.StatusOK},
		{Email: calOnly, Scopes: []string{google.ServiceCalendar}, Status: google.StatusOK},
	}}
	return &pollEnv{t: t, fake: fake, accounts: acc, dataDir: t.TempDir(), notes: &pollNotes{}, logs: &pollLog{}}
}

// poller is a new Poller on the env's data dir (a restart is another
// one), rate limits retried at once.
func (e *pollEnv) poller() *Poller {
	e.t.Helper()
	p, err := NewPoller(PollerOptions{Accounts: e.accounts, DataDir: e.dataDir, Notify: e.notes.notify,
		Logger:  slog.New(slog.NewTextHandler(e.logs, nil)),
		Backoff: google.Backoff{Attempts: 3, Base: time.Millisecond, Max: time.Millisecond, Longest: time.Second}})
	noErr(e.t, err)
	return p
}

// poll runs one poll and returns what it announced.
func (e *pollEnv) poll(p *Poller) []NewEmailNotice {
	e.t.Helper()
	p.PollOnce(context.Background())
	return e.notes.take()
}

// deliver delivers a message from ada's friend to email's inbox.
func (e *pollEnv) deliver(email, from, subject string, extra ...string) string {
	e.t.Helper()
	var b strings.Builder
	b.WriteString("From: " + from + "\r\nTo: " + email + "\r\nSubject: " + subject + "\r\n")
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("Content-Type: text/plain; charset=UTF-8\r\n\r\nShall we meet at Luigi's at one?\r\n")
	id, err := e.fake.DeliverMessage(email, []byte(b.String()))
	noErr(e.t, err)
	return id
}

// service is the real Gmail client of email, as the tools would use it.
func (e *pollEnv) service(email string) *gm.Service {
	e.t.Helper()
	hc, err := e.accounts.Client(context.Background(), email)
	noErr(e.t, err)
	svc, err := newPollService(context.Background(), hc)
	noErr(e.t, err)
	return svc
}

func noticeSubjects(ns []NewEmailNotice) string {
	var s []string
	for _, n := range ns {
		s = append(s, n.Account+":"+n.Subject)
	}
	return strings.Join(s, " ")
}

func pollRaw(from, to, subject string) string {
	return base64.URLEncoding.EncodeToString([]byte("From: " + from + "\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\nHello\r\n"))
}

func TestPollerAnnouncesNewMail(t *testing.T) {
	e := newPollEnv(t)
	e.deliver(adaMail, "Old <old@example.com>", "Before the first poll")
	p := e.poller()
	if got := e.poll(p); len(got) != 0 {
		t.Fatalf("the first poll announced %s", noticeSubjects(got))
	}
	if n := e.fake.GmailRequests(historyListRoute); n != 0 {
		t.Errorf("the first poll listed the history %d times; it should only read where the mailbox stands", n)
	}

	id := e.deliver(adaMail, "Bob Example <bob@example.com>", "Lunch?", "Date: Tue, 3 Mar 2026 12:05:00 +0100")
	got := e.poll(p)
	if len(got) != 1 {
		t.Fatalf("after one delivery: %s", noticeSubjects(got))
	}
	stored := e.fake.Messages(adaMail)[1]
	want := NewEmailNotice{Account: adaMail, MessageID: id, ThreadID: stored.ThreadID, From: "Bob Example <bob@example.com>",
		Subject: "Lunch?", Snippet: "Shall we meet at Luigi's at one?", Date: "2026-03-03T12:05:00+01:00",
		Labels: []string{"INBOX", "UNREAD"}, Title: "Lunch? — bob@example.com"}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("notice\n got %+v\nwant %+v", got[0], want)
	}
	// What the desktop shows and the event stored: the params as JSON.
	b, err := json.Marshal(got[0])
	noErr(t, err)
	for _, k := range []string{"account", "message_id", "thread_id", "from", "subject", "snippet", "date", "labels", "title"} {
		if !strings.Contains(string(b), `"`+k+`":`) {
			t.Errorf("no %s in %s", k, b)
		}
	}
	if got := e.poll(p); len(got) != 0 {
		t.Errorf("announced again: %s", noticeSubjects(got))
	}
	for _, r := range e.fake.RecordedGmailRequests() {
		if r.Pattern == historyListRoute && (r.Query.Get("labelId") != "INBOX" || r.Query.Get("historyTypes") != "messageAdded") {
			t.Errorf("history.list with %v", r.Query)
		}
		if strings.HasPrefix(r.Pattern, "GET /gmail/v1/users/{userId}/messages/") &&
			(r.Query.Get("format") != "metadata" || !slices.Equal(r.Query["metadataHeaders"], []string{"From", "Subject", "Date"})) {
			t.Errorf("messages.get with %v", r.Query)
		}
	}
}

// TestPollerSeveralInOneRound: two messages (on two pages of history)
// and one in another account, one poll; what left the inbox or was
// deleted before the poll read it is not announced.
func TestPollerSeveralInOneRound(t *testing.T) {
	e := newPollEnv(t)
	p := e.poller()
	p.pageSize = 1
	e.poll(p)
	e.deliver(adaMail, "bob@example.com", "One")
	archived := e.deliver(adaMail, "bob@example.com", "Archived at once")
	deleted := e.deliver(adaMail, "bob@example.com", "Deleted at once")
	e.deliver(adaMail, "bob@example.com", "Two")
	e.deliver(bobMail, "ada@example.com", "For Bob")
	noErr(t, e.fake.ChangeLabels(adaMail, archived, nil, []string{"INBOX"}))
	noErr(t, e.fake.DeleteMessage(adaMail, deleted))
	if got := noticeSubjects(e.poll(p)); got != "ada@example.com:One ada@example.com:Two bob@example.com:For Bob" {
		t.Errorf("announced %s", got)
	}
	if got := e.poll(p); len(got) != 0 {
		t.Errorf("announced again: %s", noticeSubjects(got))
	}
}

// TestPollerSkipsOwnMail: what the account sends and its drafts are not
// new mail; a message it sends itself is.
func TestPollerSkipsOwnMail(t *testing.T) {
	e := newPollEnv(t)
	p := e.poller()
	e.poll(p)
	svc := e.service(adaMail)
	_, err := svc.Users.Messages.Send("me", &gm.Message{Raw: pollRaw(adaMail, "bob@example.com", "Sent by me")}).Do()
	noErr(t, err)
	_, err = svc.Users.Drafts.Create("me", &gm.Draft{Message: &gm.Message{Raw: pollRaw(adaMail, "bob@example.com", "A draft")}}).Do()
	noErr(t, err)
	before := e.fake.RecordedGmailRequests()
	if got := e.poll(p); len(got) != 0 {
		t.Errorf("our own mail was announced: %s", noticeSubjects(got))
	}
	for _, r := range e.fake.RecordedGmailRequests()[len(before):] {
		if r.Pattern != historyListRoute {
			t.Errorf("our own mail cost a request: %s %s", r.Method, r.Path)
		}
	}
	_, err = svc.Users.Messages.Send("me", &gm.Message{Raw: pollRaw(adaMail, adaMail, "Note to self")}).Do()
	noErr(t, err)
	if got := noticeSubjects(e.poll(p)); got != "ada@example.com:Note to self" {
		t.Errorf("a message to ourselves: %q", got)
	}
}

// TestPollerResetsQuietlyAfter404: an expired historyId starts over from
// where the mailbox stands, announcing nothing old; then new mail is
// announced again.
func TestPollerResetsQuietlyAfter404(t *testing.T) {
	e := newPollEnv(t)
	p := e.poller()
	e.poll(p)
	e.deliver(adaMail, "bob@example.com", "Lost in the expiry")
	e.fake.ExpireHistory(adaMail)
	if got := e.poll(p); len(got) != 0 {
		t.Errorf("the reset announced %s", noticeSubjects(got))
	}
	if !strings.Contains(e.logs.String(), "gmail history expired") {
		t.Errorf("the reset is not logged:\n%s", e.logs)
	}
	e.deliver(adaMail, "bob@example.com", "After")
	if got := noticeSubjects(e.poll(p)); got != "ada@example.com:After" {
		t.Errorf("after the reset: %q", got)
	}
}

// TestPollerRestartNeitherMissesNorRepeats: the cursors are in the data
// dir; a new poller (a restart) announces exactly what arrived while it
// was down.
func TestPollerRestartNeitherMissesNorRepeats(t *testing.T) {
	e := newPollEnv(t)
	e.poll(e.poller())
	e.deliver(adaMail, "bob@example.com", "Seen")
	if got := noticeSubjects(e.poll(e.poller())); got != "ada@example.com:Seen" {
		t.Fatalf("first restart: %q", got)
	}
	e.deliver(adaMail, "bob@example.com", "While down")
	e.deliver(bobMail, "ada@example.com", "Bob's while down")
	if got := noticeSubjects(e.poll(e.poller())); got != "ada@example.com:While down bob@example.com:Bob's while down" {
		t.Errorf("second restart: %q", got)
	}
	if got := e.poll(e.poller()); len(got) != 0 {
		t.Errorf("third restart repeated: %s", noticeSubjects(got))
	}
	b, err := os.ReadFile(filepath.Join(e.dataDir, CursorFile))
	noErr(t, err)
	var f cursorFile
	noErr(t, json.Unmarshal(b, &f))
	if f.Accounts[adaMail].HistoryID != e.fake.GmailHistoryID(adaMail) || f.Accounts[bobMail].HistoryID != e.fake.GmailHistoryID(bobMail) {
		t.Errorf("cursor file %s; the mailboxes are at %d and %d", b, e.fake.GmailHistoryID(adaMail), e.fake.GmailHistoryID(bobMail))
	}
	if _, ok := f.Accounts[calOnly]; ok {
		t.Errorf("a Calendar-only account has a cursor: %s", b)
	}
	if strings.Contains(string(b), "ya29.") || strings.Contains(e.logs.String(), "ya29.") {
		t.Error("an access token is in the cursor file or the log")
	}

	// A removed account's cursor goes: signed in again, it starts afresh.
	e.accounts.mu.Lock()
	e.accounts.list = e.accounts.list[:1]
	e.accounts.mu.Unlock()
	e.poll(e.poller())
	b, err = os.ReadFile(filepath.Join(e.dataDir, CursorFile))
	noErr(t, err)
	if strings.Contains(string(b), bobMail) {
		t.Errorf("a removed account's cursor was kept: %s", b)
	}
}

// TestPollerOneRequestWhenIdle: with no new mail, a poll is one
// history.list per Gmail account and nothing else.
func TestPollerOneRequestWhenIdle(t *testing.T) {
	e := newPollEnv(t)
	e.deliver(adaMail, "bob@example.com", "Old")
	p := e.poller()
	e.poll(p)
	newID := e.deliver(adaMail, "bob@example.com", "New")
	e.poll(p)
	// Read on another device: a change the poll does not list, yet its
	// cursor moves past it.
	noErr(t, e.fake.ChangeLabels(adaMail, newID, nil, []string{"UNREAD"}))
	before := e.fake.RecordedGmailRequests()
	for range 3 {
		if got := e.poll(p); len(got) != 0 {
			t.Fatalf("idle poll announced %s", noticeSubjects(got))
		}
	}
	reqs := e.fake.RecordedGmailRequests()[len(before):]
	for _, r := range reqs {
		if r.Pattern != historyListRoute {
			t.Errorf("an idle poll sent %s %s", r.Method, r.Path)
		}
	}
	if len(reqs) != 3*2 {
		t.Errorf("3 idle polls of 2 Gmail accounts sent %d requests, want 6", len(reqs))
	}
	if cur, _ := p.cur.get(adaMail); cur.HistoryID != e.fake.GmailHistoryID(adaMail) {
		t.Errorf("the cursor is at %d, the mailbox at %d", cur.HistoryID, e.fake.GmailHistoryID(adaMail))
	}
}

// TestPollerSkipsAccountNeedingSignIn: an account that must sign in again
// is logged once and skipped while the other still gets its mail; once
// signed in, what arrived meanwhile is announced.
func TestPollerSkipsAccountNeedingSignIn(t *testing.T) {
	e := newPollEnv(t)
	p := e.poller()
	e.poll(p)
	e.accounts.setNeedSignIn(adaMail, true)
	e.deliver(adaMail, "bob@example.com", "While signed out")
	e.deliver(bobMail, "ada@example.com", "For Bob")
	if got := noticeSubjects(e.poll(p)); got != "bob@example.com:For Bob" {
		t.Errorf("with ada signed out: %q", got)
	}
	e.poll(p)
	if n := strings.Count(e.logs.String(), "needs to sign in again"); n != 1 {
		t.Errorf("logged %d times:\n%s", n, e.logs)
	}
	e.accounts.setNeedSignIn(adaMail, false)
	if got := noticeSubjects(e.poll(p)); got != "ada@example.com:While signed out" {
		t.Errorf("after signing in again: %q", got)
	}
	if !strings.Contains(e.logs.String(), "gmail poll works again") {
		t.Errorf("the recovery is not logged:\n%s", e.logs)
	}
	for _, r := range e.fake.RecordedGmailRequests() {
		if r.Path != "/gmail/v1/users/me/history" && r.Path != "/gmail/v1/users/me/profile" && !strings.HasPrefix(r.Path, "/gmail/v1/users/me/messages/") {
			t.Errorf("request %s %s", r.Method, r.Path)
		}
	}
	if strings.Contains(e.logs.String(), "ya29.") {
		t.Error("an access token is in the log")
	}
}

// TestPollerRateLimits: a rate limit is retried with the backoff; one
// that lasts skips the account this poll, and the next poll announces
// what it missed, once.
func TestPollerRateLimits(t *testing.T) {
	e := newPollEnv(t)
	p := e.poller()
	e.poll(p)
	e.deliver(adaMail, "bob@example.com", "One")
	e.fake.InjectRateLimits(googletest.RateLimit{Code: 429, API: googletest.APIGmail},
		googletest.RateLimit{Code: 403, Reason: "userRateLimitExceeded", API: googletest.APIGmail})
	if got := noticeSubjects(e.poll(p)); got != "ada@example.com:One" {
		t.Errorf("after two rate limits: %q", got)
	}

	// Ada's history.list is refused three times: the backoff's attempts.
	e.deliver(adaMail, "bob@example.com", "Two")
	e.deliver(bobMail, "ada@example.com", "For Bob")
	limit := googletest.RateLimit{Code: 429, API: googletest.APIGmail}
	e.fake.InjectRateLimits(limit, limit, limit)
	if got := noticeSubjects(e.poll(p)); got != "bob@example.com:For Bob" {
		t.Errorf("with ada rate-limited: %q", got)
	}
	if !strings.Contains(e.logs.String(), "rate-limited") {
		t.Errorf("the rate limit is not logged:\n%s", e.logs)
	}
	if got := noticeSubjects(e.poll(p)); got != "ada@example.com:Two" {
		t.Errorf("the next poll: %q", got)
	}
}

// TestPollerStopsPartWay: when a message cannot be read, the poll stays
// on its cursor; the next one announces the rest, not again what was
// announced — even after a restart.
func TestPollerStopsPartWay(t *testing.T) {
	e := newPollEnv(t)
	p := e.poller()
	e.poll(p)
	e.deliver(adaMail, "bob@example.com", "One")
	e.deliver(adaMail, "bob@example.com", "Two")
	e.deliver(adaMail, "bob@example.com", "Three")
	e.notes.onNotify = func(n NewEmailNotice) {
		if n.Subject == "One" { // the next request, Two's get, fails
			limit := googletest.RateLimit{Code: 429, API: googletest.APIGmail}
			e.fake.InjectRateLimits(limit, limit, limit)
		}
	}
	if got := noticeSubjects(e.poll(p)); got != "ada@example.com:One" {
		t.Errorf("the poll that failed part way: %q", got)
	}
	e.notes.onNotify = nil
	p = e.poller() // a restart
	if got := noticeSubjects(e.poll(p)); got != "ada@example.com:Two ada@example.com:Three" {
		t.Errorf("the next poll, after a restart: %q", got)
	}
	if got := e.poll(p); len(got) != 0 {
		t.Errorf("announced again: %s", noticeSubjects(got))
	}
	if cur, _ := p.cur.get(adaMail); len(cur.Announced) != 0 || cur.HistoryID != e.fake.GmailHistoryID(adaMail) {
		t.Errorf("cursor %+v", cur)
	}
}
