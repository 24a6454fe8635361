package google_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// inbox is the client side of the sign-in: it records each URL request
// and, when accepting, "opens the browser" on its URL.
type inbox struct {
	mu        sync.Mutex
	requests  []*sdk.ElicitParams
	completed []string
	action    string
	browser   *browser
}

func (ib *inbox) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	ib.mu.Lock()
	ib.requests = append(ib.requests, req.Params)
	action := ib.action
	ib.mu.Unlock()
	if action == "accept" {
		ib.browser.open(req.Params.URL)
	}
	return &sdk.ElicitResult{Action: action}, nil
}

func (ib *inbox) complete(ctx context.Context, req *sdk.ElicitationCompleteNotificationRequest) {
	ib.mu.Lock()
	ib.completed = append(ib.completed, req.Params.ElicitationID)
	ib.mu.Unlock()
}

type whoIn struct {
	Account string `json:"account,omitempty"`
}

type whoOut struct {
	Email string `json:"email"`
}

// connect runs a server whose tool "who" needs a Google account (signing
// in through elicitation when it must, as gcal and gmail do) and a client
// with ib as its inbox.
func connect(t *testing.T, e *env, ib *inbox) *sdk.ClientSession {
	t.Helper()
	// mcptray's gateway speaks 2025-11-25 to gcal and gmail, which serve
	// no newer version (gcal's retry model: TestSignInRetryModel).
	return connectVersion(t, e, ib, "2025-11-25")
}

// connectVersion is connect with the client on version.
func connectVersion(t *testing.T, e *env, ib *inbox, version string) *sdk.ClientSession {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "g", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "who"}, google.WithInput(func(ctx context.Context, req *sdk.CallToolRequest, in whoIn) (*sdk.CallToolResult, whoOut, error) {
		hc, err := e.acc.Client(ctx, in.Account)
		var sn *google.SignInNeededError
		if errors.As(err, &sn) {
			added, serr := google.SignInByElicitation(google.WithCallRequest(ctx, req), req.Session, e.acc, sn.Email, sn.Reason)
			if serr != nil {
				return nil, whoOut{}, serr
			}
			hc, err = e.acc.Client(ctx, added.Account.Email)
		}
		if err != nil {
			return nil, whoOut{}, err
		}
		resp, err := hc.Get(e.fake.URL + googletest.UserinfoPath)
		if err != nil {
			return nil, whoOut{}, err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, whoOut{}, errors.New(resp.Status)
		}
		emails, _ := e.acc.Emails()
		return nil, whoOut{Email: strings.Join(emails, ",")}, nil
	}))
	ct, st := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler:         ib.elicit,
		ElicitationCompleteHandler: ib.complete,
		Capabilities:               &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{URL: &sdk.URLElicitationCapabilities{}}},
	})
	cs, err := client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "who", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	return text, res.IsError
}

func TestSignInByElicitation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ib := &inbox{action: "accept", browser: e.browser}
	cs := connect(t, e, ib)

	// Before any account exists: the call asks, and proceeds.
	text, isErr := call(t, cs, nil)
	if isErr || !strings.Contains(text, `"email":"ada@example.com"`) {
		t.Fatalf("first call: %v %s", isErr, text)
	}
	if page := e.browser.page(t); !strings.Contains(page, "You can close this tab") {
		t.Errorf("page: %s", page)
	}
	ib.mu.Lock()
	if len(ib.requests) != 1 {
		t.Fatalf("requests: %d", len(ib.requests))
	}
	r := ib.requests[0]
	if r.Mode != "url" || r.Message != "Sign in to Google: no Google account has been added yet" ||
		!strings.HasPrefix(r.URL, e.fake.URL+googletest.AuthPath+"?") || r.ElicitationID == "" || r.Meta[google.InboxMeta] != true {
		t.Errorf("request: %+v", r)
	}
	ib.mu.Unlock()
	waitComplete(t, ib, 1)

	// The refresh token stops working (the Testing expiry): the next call
	// asks to sign in again, saying why, and then succeeds.
	e.fake.FailRefresh("ada@example.com", googletest.ExpiredOrRevoked)
	e.acc = e.accounts() // a restarted server: no access token in RAM
	cs = connect(t, e, ib)
	// The fake issues a new refresh token at sign-in, which works.
	e.fake.SetConsent(googletest.Consent{})
	text, isErr = call(t, cs, map[string]any{"account": "ada@example.com"})
	if isErr || !strings.Contains(text, "ada@example.com") {
		t.Fatalf("call after invalid_grant: %v %s", isErr, text)
	}
	e.browser.page(t)
	ib.mu.Lock()
	r = ib.requests[len(ib.requests)-1]
	ib.mu.Unlock()
	if !strings.HasPrefix(r.Message, "Sign in to Google again for ada@example.com: Google no longer accepts its saved sign-in") ||
		!strings.Contains(r.Message, `publish it "In production"`) || !strings.Contains(r.URL, "login_hint=ada%40example.com") {
		t.Errorf("request: %+v", r)
	}
	waitComplete(t, ib, 2)

	// Declined: the call fails with a message saying so.
	e.fake.FailRefresh("ada@example.com", "Bad Request")
	e.acc = e.accounts()
	cs = connect(t, e, ib)
	ib.mu.Lock()
	ib.action = "decline"
	ib.mu.Unlock()
	text, isErr = call(t, cs, nil)
	if !isErr || !strings.Contains(text, "the Google sign-in was declined") {
		t.Errorf("declined: %v %s", isErr, text)
	}
}

// A client that cannot do URL elicitation gets an error saying how to sign
// in instead.
func TestSignInWithoutURLElicitation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := sdk.NewServer(&sdk.Implementation{Name: "g", Version: "1"}, nil)
	var got error
	sdk.AddTool(srv, &sdk.Tool{Name: "who"}, func(ctx context.Context, req *sdk.CallToolRequest, in whoIn) (*sdk.CallToolResult, whoOut, error) {
		_, got = google.SignInByElicitation(ctx, req.Session, e.acc, "", "")
		return nil, whoOut{}, got
	})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call(t, cs, nil)
	if got == nil || !strings.Contains(got.Error(), "sign in with `mcptray auth google add` instead") {
		t.Errorf("%v", got)
	}
}

func waitComplete(t *testing.T, ib *inbox, n int) {
	t.Helper()
	var ids, sent []string
	if !testkit.Eventually(time.Minute, func() bool {
		ib.mu.Lock()
		defer ib.mu.Unlock()
		ids, sent = append([]string(nil), ib.completed...), nil
		for _, r := range ib.requests {
			sent = append(sent, r.ElicitationID)
		}
		return len(ids) >= n
	}) {
		t.Fatalf("no notifications/elicitation/complete (%d of %d)", len(ids), n)
	}
	if ids[n-1] != sent[n-1] {
		t.Errorf("completed %v for requests %v", ids, sent)
	}
}

// A client on 2026-07-28 takes no request during a call: the sign-in is
// asked in an input_required result (a URL elicitation for the inbox),
// and the call's retry, whose requestState names the sign-in, waits for
// the browser and goes on. No elicitation/complete is sent. Outside a
// tool call such a client cannot be asked.
func TestSignInRetryModel(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ib := &inbox{action: "accept", browser: e.browser}
	cs := connectVersion(t, e, ib, "2026-07-28")
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("session on %s", v)
	}
	text, isErr := call(t, cs, nil)
	if isErr || !strings.Contains(text, `"email":"ada@example.com"`) {
		t.Fatalf("first call: %v %s", isErr, text)
	}
	if page := e.browser.page(t); !strings.Contains(page, "You can close this tab") {
		t.Errorf("page: %s", page)
	}
	ib.mu.Lock()
	if len(ib.requests) != 1 {
		t.Fatalf("requests: %d", len(ib.requests))
	}
	r := ib.requests[0]
	if r.Mode != "url" || r.Message != "Sign in to Google: no Google account has been added yet" ||
		!strings.HasPrefix(r.URL, e.fake.URL+googletest.AuthPath+"?") || r.Meta[google.InboxMeta] != true {
		t.Errorf("request: %+v", r)
	}
	if len(ib.completed) != 0 {
		t.Errorf("elicitation/complete sent: %v", ib.completed)
	}
	ib.mu.Unlock()

	// Declined: the retry fails, saying so.
	e.fake.FailRefresh("ada@example.com", "Bad Request")
	e.acc = e.accounts()
	cs = connectVersion(t, e, ib, "2026-07-28")
	ib.mu.Lock()
	ib.action = "decline"
	ib.mu.Unlock()
	text, isErr = call(t, cs, map[string]any{"account": "ada@example.com"})
	if !isErr || !strings.Contains(text, "the Google sign-in was declined") {
		t.Errorf("declined: %v %s", isErr, text)
	}

	// Outside a tool call (no request in ctx): told to sign in on the
	// command line.
	srv := sdk.NewServer(&sdk.Implementation{Name: "g", Version: "1"}, nil)
	var got error
	sdk.AddTool(srv, &sdk.Tool{Name: "who"}, func(ctx context.Context, req *sdk.CallToolRequest, in whoIn) (*sdk.CallToolResult, whoOut, error) {
		_, got = google.SignInByElicitation(ctx, req.Session, e.acc, "", "")
		return nil, whoOut{}, got
	})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs2, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	call(t, cs2, nil)
	if got == nil || !strings.Contains(got.Error(), "(2026-07-28) cannot be asked to sign in to Google outside a tool call; sign in with `mcptray auth google add`") {
		t.Errorf("%v", got)
	}
}
