package gmail

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
	scopes     []string // what new tokens grant; default gmail.modify
	signInAs   string   // the account a sign-in adds when there is none
}

func (a *fakeTokenAccounts) Emails() ([]string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.emails), nil
}

func (a *fakeTokenAccounts) Client(_ context.Context, email string) (*http.Client, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.needSignIn[email] || !slices.Contains(a.emails, email) {
		return nil, &google.SignInNeededError{Email: email, Reason: "the refresh token was revoked"}
	}
	tok := a.tokens[email]
	if tok == "" {
		scopes := a.scopes
		if scopes == nil {
			scopes = []string{googletest.GmailModifyScope}
		}
		tok = a.fake.IssueAccessToken(email, scopes, time.Hour)
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
	if !slices.Contains(a.emails, email) {
		a.emails = append(a.emails, email)
	}
}

type bearerTransport string

func (t bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(t))
	return http.DefaultTransport.RoundTrip(r)
}

// asker is the client's side of elicitation: it records each request and
// answers with answer (accept when nil).
type asker struct {
	mu     sync.Mutex
	asked  []*sdk.ElicitParams
	answer func(*sdk.ElicitParams) (*sdk.ElicitResult, error)
}

func (a *asker) handle(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req.Params)
	answer := a.answer
	a.mu.Unlock()
	if answer == nil {
		return &sdk.ElicitResult{Action: "accept"}, nil
	}
	return answer(req.Params)
}

// take returns and forgets the requests so far.
func (a *asker) take() []*sdk.ElicitParams {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.asked
	a.asked = nil
	return out
}

func (a *asker) set(answer func(*sdk.ElicitParams) (*sdk.ElicitResult, error)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.answer = answer
}

// answerWith answers every request with action.
func answerWith(action string) func(*sdk.ElicitParams) (*sdk.ElicitResult, error) {
	return func(*sdk.ElicitParams) (*sdk.ElicitResult, error) { return &sdk.ElicitResult{Action: action}, nil }
}

// env is one test's fake Google, accounts, Server and MCP client (one
// that takes elicitations, as mcptray's gateway does).
type env struct {
	t        *testing.T
	fake     *googletest.Server
	accounts *fakeTokenAccounts
	srv      *Server
	client   *sdk.ClientSession
	asker    *asker
	home     string // the Server's home folder, its local root
	download string // its download folder
	logs     *testkit.Buffer
	results  strings.Builder // every tool result, for searching
}

func newEnv(t *testing.T, mods ...func(*Options)) *env {
	t.Helper()
	fake := googletest.New()
	t.Cleanup(fake.Close)
	t.Setenv(google.APIURLEnv, fake.URL)
	e := &env{t: t, fake: fake, asker: &asker{}, home: t.TempDir(), logs: &testkit.Buffer{},
		accounts: &fakeTokenAccounts{fake: fake, emails: []string{ada}, needSignIn: map[string]bool{}, tokens: map[string]string{}}}
	e.download = t.TempDir() + "/downloads"
	opts := Options{Accounts: e.accounts, Home: e.home, DownloadDir: e.download, DataDir: t.TempDir(), Version: "test",
		Notify: func(string, any) error { return nil },
		Logger: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	for _, m := range mods {
		m(&opts)
	}
	e.srv = New(opts)
	e.srv.retry.Base = time.Millisecond
	e.client = e.connect(&sdk.ClientOptions{ElicitationHandler: e.asker.handle})
	return e
}

// connect connects a new client with opts to the Server.
func (e *env) connect(opts *sdk.ClientOptions) *sdk.ClientSession {
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := e.srv.MCPServer().Connect(ctx, st, nil)
	must(e.t, err)
	e.t.Cleanup(func() { ss.Close() })
	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, opts)
	cs, err := client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	must(e.t, err)
	e.t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool that must succeed; its structured content is
// decoded into out (when not nil). It returns the text mirror.
func (e *env) call(name string, args map[string]any, out any) string {
	e.t.Helper()
	return e.callOn(e.client, name, args, out)
}

func (e *env) callOn(cs *sdk.ClientSession, name string, args map[string]any, out any) string {
	e.t.Helper()
	res := e.callRaw(cs, name, args)
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
	return e.callErrOn(e.client, name, args, want...)
}

func (e *env) callErrOn(cs *sdk.ClientSession, name string, args map[string]any, want ...string) string {
	e.t.Helper()
	res := e.callRaw(cs, name, args)
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

func (e *env) callRaw(cs *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
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

// deliver puts a message from outside in email's inbox; raw's lines end
// in \n here and in CRLF on the wire.
func (e *env) deliver(email, raw string, labels ...string) string {
	e.t.Helper()
	id, err := e.fake.DeliverMessage(email, []byte(strings.ReplaceAll(raw, "\n", "\r\n")), labels...)
	must(e.t, err)
	return id
}

// stored is the fake's copy of a message of email.
func (e *env) stored(email, id string) googletest.StoredMessage {
	e.t.Helper()
	for _, m := range e.fake.Messages(email) {
		if m.ID == id {
			return m
		}
	}
	e.t.Fatalf("no message %s in %s", id, email)
	return googletest.StoredMessage{}
}
