package calendar

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gcal "google.golang.org/api/calendar/v3"
)

const (
	ada = "ada@example.com"
	bob = "bob@example.com"
)

// fakeTokenAccounts is an AccountSource whose clients carry access
// tokens the fake issued (the real Accounts, with OAuth, are the google
// package's). Accounts in needSignIn answer *SignInNeededError until
// signIn clears them.
type fakeTokenAccounts struct {
	fake *googletest.Server

	mu         sync.Mutex
	emails     []string
	needSignIn map[string]bool
	tokens     map[string]string
	signInAs   string // the account a sign-in adds when there is none
}

func (a *fakeTokenAccounts) Emails() ([]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.emails...), nil
}

func (a *fakeTokenAccounts) Client(_ context.Context, email string) (*http.Client, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.needSignIn[email] || !contains(a.emails, email) {
		return nil, &google.SignInNeededError{Email: email, Reason: "the refresh token was revoked"}
	}
	tok := a.tokens[email]
	if tok == "" {
		tok = a.fake.IssueAccessToken(email, []string{googletest.CalendarScope}, time.Hour)
		a.tokens[email] = tok
	}
	return &http.Client{Transport: bearerTransport(tok)}, nil
}

// signIn is what a sign-in does to the accounts: email (or a new one)
// can call again.
func (a *fakeTokenAccounts) signIn(email string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if email == "" {
		email = a.signInAs
	}
	delete(a.needSignIn, email)
	if !contains(a.emails, email) {
		a.emails = append(a.emails, email)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type bearerTransport string

func (t bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(t))
	return http.DefaultTransport.RoundTrip(r)
}

// notes collects the poller's notifications.
type notes struct {
	mu   sync.Mutex
	list []note
}

type note struct {
	Method string
	Notice Notice
}

func (n *notes) notify(method string, params any) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, note{method, params.(Notice)})
	return nil
}

// take returns and forgets the notifications so far.
func (n *notes) take() []note {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.list
	n.list = nil
	return out
}

// env is one test's fake Google, accounts, Server and MCP client.
type env struct {
	t        *testing.T
	fake     *googletest.Server
	accounts *fakeTokenAccounts
	srv      *Server
	client   *sdk.ClientSession
	notes    *notes
	dataDir  string
	logs     *testkit.Buffer // the Server's log
	results  strings.Builder // every tool result's text, for searching
}

func newEnv(t *testing.T, mods ...func(*Options)) *env {
	t.Helper()
	fake := googletest.New()
	t.Cleanup(fake.Close)
	t.Setenv(google.APIURLEnv, fake.URL)
	e := &env{t: t, fake: fake, notes: &notes{}, dataDir: t.TempDir(), logs: &testkit.Buffer{},
		accounts: &fakeTokenAccounts{fake: fake, emails: []string{ada}, needSignIn: map[string]bool{}, tokens: map[string]string{}}}
	opts := Options{Accounts: e.accounts, DataDir: e.dataDir, Notify: e.notes.notify, Version: "test",
		Logger: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	for _, m := range mods {
		m(&opts)
	}
	e.srv = New(opts)
	e.srv.retry.Base = time.Millisecond
	e.connect()
	return e
}

func (e *env) connect() {
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := e.srv.MCPServer().Connect(ctx, st, nil)
	must(e.t, err)
	e.t.Cleanup(func() { ss.Close() })
	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
	e.client, err = client.Connect(ctx, ct, nil)
	must(e.t, err)
	e.t.Cleanup(func() { e.client.Close() })
}

// call calls a tool that must succeed; its structured content is
// decoded into out (when not nil). It returns the text mirror.
func (e *env) call(name string, args map[string]any, out any) string {
	e.t.Helper()
	res := e.callRaw(name, args)
	if res.IsError {
		e.t.Fatalf("%s %v: %s", name, args, textOf(res))
	}
	if out != nil {
		reflect.ValueOf(out).Elem().SetZero()
		b, _ := json.Marshal(res.StructuredContent)
		must(e.t, json.Unmarshal(b, out))
	}
	return textOf(res)
}

// callErr calls a tool that must fail, and returns its error text, which
// must contain every one of want.
func (e *env) callErr(name string, args map[string]any, want ...string) string {
	e.t.Helper()
	res := e.callRaw(name, args)
	msg := textOf(res)
	if !res.IsError {
		e.t.Fatalf("%s %v succeeded: %s", name, args, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			e.t.Errorf("%s %v: error %q does not say %q", name, args, msg, w)
		}
	}
	return msg
}

func (e *env) callRaw(name string, args map[string]any) *sdk.CallToolResult {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.client.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		e.t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res)
	e.results.Write(b)
	return res
}

func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// add stores an event in the fake as another device would.
func (e *env) add(email, calID string, ev *gcal.Event) *gcal.Event {
	e.t.Helper()
	got, err := e.fake.AddEvent(email, calID, ev)
	must(e.t, err)
	return got
}

// timed is an event from start lasting d, in zone tz.
func timed(summary string, start time.Time, d time.Duration, tz string) *gcal.Event {
	return &gcal.Event{Summary: summary,
		Start: &gcal.EventDateTime{DateTime: start.Format(time.RFC3339), TimeZone: tz},
		End:   &gcal.EventDateTime{DateTime: start.Add(d).Format(time.RFC3339), TimeZone: tz}}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// berlin is the fake's default calendar zone.
func berlin(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Europe/Berlin")
	must(t, err)
	return loc
}

// tomorrowAt is tomorrow at hh:mm in loc.
func tomorrowAt(loc *time.Location, hh, mm int) time.Time {
	n := time.Now().In(loc).AddDate(0, 0, 1)
	return time.Date(n.Year(), n.Month(), n.Day(), hh, mm, 0, 0, loc)
}
