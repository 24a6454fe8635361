package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/keyring"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/store"
)

// asyncCall sends a tools/call and returns a channel that gets the reply
// line (result or error) once it arrives. One call at a time per rpc.
func asyncCall(c *rpc, tool string, args map[string]any) <-chan string {
	c.id++
	id := c.id
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	c.rw.Write(append(msg, '\n'))
	out := make(chan string, 1)
	go func() {
		for {
			line, err := c.r.ReadBytes('\n')
			if err != nil {
				out <- "read error: " + err.Error()
				return
			}
			var resp struct {
				ID *int `json:"id"`
			}
			json.Unmarshal(line, &resp)
			if resp.ID != nil && *resp.ID == id {
				out <- string(line)
				return
			}
		}
	}()
	return out
}

func waitReply(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(30 * time.Second):
		t.Fatal("no reply to the tool call within 30s")
	}
	return ""
}

// nextEvent waits for the next inbox event of kind.
func nextEvent(t *testing.T, events <-chan inbox.Event, kind inbox.EventKind) inbox.Event {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("inbox events closed")
			}
			if ev.Kind == kind {
				return ev
			}
		case <-deadline:
			t.Fatalf("no inbox event %q within 30s", kind)
		}
	}
}

// records reads what the askers received (MCPTRAY_FAKE_RECORD).
func records(t *testing.T, path string) []string {
	t.Helper()
	b, _ := os.ReadFile(path)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// noSecretUnder fails if secret appears in any file under dir (the
// database and its WAL included).
func noSecretUnder(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), secret) {
			t.Errorf("the secret is in %s", path)
		}
		return nil
	})
}

// memSecrets is a SecretStore in memory.
type memSecrets struct {
	mu sync.Mutex // guards m
	m  map[string]string
}

func (s *memSecrets) Get(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[name]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

func (s *memSecrets) Set(name, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[name] = value
	return nil
}

func (s *memSecrets) Delete(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[name]; !ok {
		return keyring.ErrNotFound
	}
	delete(s.m, name)
	return nil
}

// opener records the URLs the inbox opens.
type opener struct {
	mu   sync.Mutex // guards urls
	urls []string
}

func (o *opener) open(u string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.urls = append(o.urls, u)
	return nil
}

func (o *opener) opened() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.urls...)
}

// The core case: a tool call that needs a password completes end
// to end, the server gets the password, the assistant gets the result with
// the password redacted, and the password is nowhere on disk.
func TestInboxPasswordMidToolCall(t *testing.T) {
	const secret = "s3cret-Pa55word!"
	rec := filepath.Join(t.TempDir(), "record")
	h := startCore(t, servers("ask", fake(t, "asker", "MCPTRAY_FAKE_RECORD", rec)))
	h.wait("ready", stateIs("ask", control.StateReady))
	events, cancel := h.core.SubscribeInbox()
	defer cancel()
	c := openRPC(t, h, "", "")
	reply := asyncCall(c, "ask__login", map[string]any{"user": "ada"})

	req := nextEvent(t, events, inbox.Added).Request
	if req.Server != "ask" || req.Tool != "login" || req.Client != "test" || req.Mode != "form" || req.Source != inbox.SourceServer ||
		req.Message != "Password for ada on prod" || len(req.Fields) != 1 || !req.Fields[0].Secret || !req.Fields[0].Required {
		t.Fatalf("request: %+v", req)
	}
	if d := req.Deadline.Sub(req.Created); d != 5*time.Minute {
		t.Errorf("deadline %s after creation, want 5m", d)
	}
	if got := h.core.Inbox(); len(got) != 1 || got[0].ID != req.ID {
		t.Errorf("Inbox() = %+v", got)
	}
	// An invalid answer is refused and the request stays open.
	err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, By: "test"})
	var inv *inbox.InvalidAnswerError
	if !errors.As(err, &inv) || err.Error() != `field "password" is required` {
		t.Errorf("empty answer: %v", err)
	}
	if len(h.core.Inbox()) != 1 {
		t.Fatal("the request closed after an invalid answer")
	}
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{"password": secret}, By: "test"}); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, events, inbox.Closed)
	if ev.Request.ID != req.ID || ev.Outcome != "accept" || ev.By != "test" {
		t.Errorf("closed event: %+v", ev)
	}
	res := waitReply(t, reply)
	if !strings.Contains(res, "logged in as ada; the server echoes [redacted]") || strings.Contains(res, secret) {
		t.Errorf("tool result upstream: %s", res)
	}
	if got := records(t, rec); len(got) != 1 || !strings.Contains(got[0], `"content":{"password":"`+secret+`"}`) {
		t.Errorf("the server received: %q", got)
	}
	// A second answer finds it closed.
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionDecline}); !errors.Is(err, inbox.ErrRequestClosed) || !strings.Contains(err.Error(), "already closed (accept, by test)") {
		t.Errorf("second answer: %v", err)
	}
	var audit []store.Elicitation
	testkit.WaitFor(t, "the audit row", func() bool { // written just after the answer went out
		audit, err = h.core.store.Elicitations(context.Background(), 0)
		return err != nil || len(audit) > 0
	})
	if err != nil || len(audit) != 1 || audit[0].Server != "ask" || audit[0].Tool != "login" || audit[0].Outcome != "accept" ||
		audit[0].ClosedBy != "test" || strings.Join(audit[0].Fields, ",") != "password" {
		t.Errorf("audit rows: %+v %v", audit, err)
	}
	h.stop()
	noSecretUnder(t, h.data, secret)
}

// Every field type goes through, typed as the schema says.
func TestInboxFormTypes(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "record")
	h := startCore(t, servers("ask", fake(t, "asker", "MCPTRAY_FAKE_RECORD", rec)))
	h.wait("ready", stateIs("ask", control.StateReady))
	events, cancel := h.core.SubscribeInbox()
	defer cancel()
	c := openRPC(t, h, "", "")

	reply := asyncCall(c, "ask__form", map[string]any{"form": "types"})
	req := nextEvent(t, events, inbox.Added).Request
	if len(req.Fields) != 12 || req.Fields[0].Name != "name" || req.Fields[11].Name != "pets" {
		t.Fatalf("fields: %+v", req.Fields)
	}
	err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{"name": "Ada", "age": "200", "color": "red"}})
	if err == nil || err.Error() != `field "age" must be at most 150` {
		t.Errorf("age 200: %v", err)
	}
	err = h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{
		"name": "Ada", "email": "ada@example.com", "site": "https://example.com", "born": "1815-12-10",
		"meeting": "2026-07-03T14:30:00+02:00", "age": "36", "score": 7.5, "subscribe": "no",
		"color": "green", "size": "Small", "tags": "a,b", "pets": []string{"cat", "dog"}}})
	if err != nil {
		t.Fatal(err)
	}
	waitReply(t, reply)
	want := `{"action":"accept","content":{"age":36,"born":"1815-12-10","color":"green","email":"ada@example.com","meeting":"2026-07-03T14:30:00+02:00","name":"Ada","pets":["cat","dog"],"score":7.5,"site":"https://example.com","size":"s","subscribe":false,"tags":["a","b"]}}`
	if got := records(t, rec); len(got) != 1 || !strings.Contains(got[0], want) {
		t.Errorf("the server received %s\nwant %s", got, want)
	}

	// Legacy enumNames, defaults, and an empty form (a yes/no question).
	reply = asyncCall(c, "ask__form", map[string]any{"form": "legacy"})
	req = nextEvent(t, events, inbox.Added).Request
	if o := req.Fields[0].Options; len(o) != 2 || o[1].Title != "Pro" {
		t.Errorf("enumNames: %+v", o)
	}
	h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{"plan": "Pro"}})
	if r := waitReply(t, reply); !strings.Contains(r, `{\"plan\":\"p\"}`) {
		t.Errorf("legacy enum answer: %s", r)
	}
	reply = asyncCall(c, "ask__form", map[string]any{"form": "defaults"})
	req = nextEvent(t, events, inbox.Added).Request
	h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept})
	if r := waitReply(t, reply); !strings.Contains(r, `{\"age\":30,\"name\":\"John Doe\",\"score\":95.5,\"status\":\"active\",\"verified\":true}`) {
		t.Errorf("defaults: %s", r)
	}
	reply = asyncCall(c, "ask__form", map[string]any{"form": "confirm"})
	req = nextEvent(t, events, inbox.Added).Request
	if !req.Confirm || len(req.Fields) != 0 {
		t.Errorf("empty form: %+v", req)
	}
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{"x": 1}}); err == nil || err.Error() != `field "x" is not in the form` {
		t.Errorf("value for a confirmation: %v", err)
	}
	h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept})
	if r := waitReply(t, reply); !strings.Contains(r, `{\"action\":\"accept\"}`) {
		t.Errorf("confirmation: %s", r)
	}
	if err := h.core.Answer("nosuch", inbox.Answer{Action: inbox.ActionAccept}); !errors.Is(err, inbox.ErrRequestClosed) || err.Error() != "no open request nosuch in the inbox: the request is not open" {
		t.Errorf("unknown id: %v", err)
	}
}

// Decline, cancel, an unknown action, and the deadline.
func TestInboxDeclineCancelDeadline(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "record")
	h := startCore(t, `{"mcpServers": {"ask": `+fake(t, "asker", "MCPTRAY_FAKE_RECORD", rec)+`}, "x-mcptray": {"inboxTimeout": "500ms"}}`)
	h.wait("ready", stateIs("ask", control.StateReady))
	events, cancel := h.core.SubscribeInbox()
	defer cancel()
	c := openRPC(t, h, "", "")
	for _, action := range []string{inbox.ActionDecline, inbox.ActionCancel} {
		reply := asyncCall(c, "ask__form", map[string]any{"form": "password"})
		req := nextEvent(t, events, inbox.Added).Request
		if err := h.core.Answer(req.ID, inbox.Answer{Action: "maybe"}); err == nil || err.Error() != `action must be accept, decline or cancel, got "maybe"` {
			t.Errorf("bad action: %v", err)
		}
		if err := h.core.Answer(req.ID, inbox.Answer{Action: action, Content: map[string]any{"password": "ignored-value"}}); err != nil {
			t.Fatal(err)
		}
		if r := waitReply(t, reply); !strings.Contains(r, `{\"action\":\"`+action+`\"}`) {
			t.Errorf("%s: %s", action, r)
		}
	}
	reply := asyncCall(c, "ask__form", map[string]any{"form": "confirm"})
	req := nextEvent(t, events, inbox.Added).Request
	ev := nextEvent(t, events, inbox.Closed)
	if ev.Request.ID != req.ID || ev.Outcome != "timeout" || ev.By != inbox.ClosedByDeadline {
		t.Errorf("deadline: %+v", ev)
	}
	if r := waitReply(t, reply); !strings.Contains(r, `{\"action\":\"cancel\"}`) {
		t.Errorf("after the deadline: %s", r)
	}
	// The audit row is written once the request is closed, which may be
	// just after its answer went out.
	var outcomes []string
	testkit.WaitFor(t, "the audit of all three", func() bool {
		audit, _ := h.core.store.Elicitations(context.Background(), 0)
		outcomes = outcomes[:0]
		for _, a := range audit {
			outcomes = append(outcomes, a.Outcome)
		}
		return len(outcomes) >= 3
	})
	if strings.Join(outcomes, " ") != "timeout cancel decline" {
		t.Errorf("audit outcomes (newest first): %v", outcomes)
	}
	if strings.Contains(string(mustRead(t, LogPath(h.data, "ask"))), "ignored-value") {
		t.Error("a value is in the server's log")
	}
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Two servers ask at once; each gets its own answer.
func TestInboxTwoServersAtOnce(t *testing.T) {
	recA, recB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	h := startCore(t, servers("a", fake(t, "asker", "MCPTRAY_FAKE_RECORD", recA), "b", fake(t, "asker", "MCPTRAY_FAKE_RECORD", recB)))
	h.wait("ready", stateIs("a", control.StateReady, "b", control.StateReady))
	events, cancel := h.core.SubscribeInbox()
	defer cancel()
	ca, cb := openRPC(t, h, "", ""), openRPC(t, h, "", "")
	ra := asyncCall(ca, "a__login", map[string]any{"user": "alice"})
	rb := asyncCall(cb, "b__login", map[string]any{"user": "bob"})
	byServer := map[string]inbox.Request{}
	for range 2 {
		r := nextEvent(t, events, inbox.Added).Request
		byServer[r.Server] = r
	}
	if len(h.core.Inbox()) != 2 {
		t.Fatalf("Inbox() = %+v", h.core.Inbox())
	}
	h.core.Answer(byServer["b"].ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{"password": "pw-for-bob"}})
	h.core.Answer(byServer["a"].ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{"password": "pw-for-alice"}})
	waitReply(t, ra)
	waitReply(t, rb)
	if a, b := records(t, recA), records(t, recB); !strings.Contains(a[0], "pw-for-alice") || !strings.Contains(b[0], "pw-for-bob") {
		t.Errorf("a got %s, b got %s", a, b)
	}
}

// A server that crashes while its request waits: the request closes.
func TestInboxServerCrashClosesRequest(t *testing.T) {
	h := startCore(t, servers("ask", fake(t, "asker")))
	st := h.wait("ready", stateIs("ask", control.StateReady))
	pid := 0
	for _, s := range st.Servers {
		pid = s.PID
	}
	events, cancel := h.core.SubscribeInbox()
	defer cancel()
	c := openRPC(t, h, "", "")
	reply := asyncCall(c, "ask__login", map[string]any{"user": "ada"})
	req := nextEvent(t, events, inbox.Added).Request
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
	ev := nextEvent(t, events, inbox.Closed)
	if ev.Request.ID != req.ID || ev.Outcome != "cancel" || ev.By != inbox.ClosedByServer {
		t.Errorf("closed: %+v", ev)
	}
	if r := waitReply(t, reply); !strings.Contains(r, "stopped during the call") {
		t.Errorf("the call: %s", r)
	}
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{"password": "late"}}); !errors.Is(err, inbox.ErrRequestClosed) {
		t.Errorf("answer after the crash: %v", err)
	}
}

// URL mode: the full URL and its host; accepting opens it; completion
// notifications close open requests; a -32042 error puts its URL in the
// inbox.
func TestInboxURLMode(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "record")
	var op opener
	h := startCore(t, servers("ask", fake(t, "asker", "MCPTRAY_FAKE_RECORD", rec)), func(o *Options) { o.OpenURL = op.open })
	h.wait("ready", stateIs("ask", control.StateReady))
	events, cancel := h.core.SubscribeInbox()
	defer cancel()
	c, c2 := openRPC(t, h, "", ""), openRPC(t, h, "", "")

	const u = "https://auth.example.com:8443/consent?state=xyz"
	reply := asyncCall(c, "ask__url", map[string]any{"url": u, "id": "el-1"})
	req := nextEvent(t, events, inbox.Added).Request
	if req.Mode != "url" || req.URL != u || req.Host != "auth.example.com:8443" || req.Message != "Sign in to continue" {
		t.Fatalf("url request: %+v", req)
	}
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept}); err != nil {
		t.Fatal(err)
	}
	if r := waitReply(t, reply); !strings.Contains(r, `{\"action\":\"accept\"}`) {
		t.Errorf("url accept: %s", r)
	}
	if got := op.opened(); len(got) != 1 || got[0] != u {
		t.Errorf("opened %q", got)
	}
	// The server's completion for the accepted one is announced.
	waitReply(t, asyncCall(c2, "ask__complete", map[string]any{"id": "el-1"}))
	if ev := nextEvent(t, events, inbox.Completed); ev.Request.ID != req.ID {
		t.Errorf("completed: %+v", ev)
	}

	// A completion for a request still open closes it.
	reply = asyncCall(c, "ask__url", map[string]any{"url": "https://auth.example.com/2", "id": "el-2"})
	req = nextEvent(t, events, inbox.Added).Request
	waitReply(t, asyncCall(c2, "ask__complete", map[string]any{"id": "el-2"}))
	if ev := nextEvent(t, events, inbox.Closed); ev.Request.ID != req.ID || ev.By != inbox.ClosedByComplete {
		t.Errorf("closed by completion: %+v", ev)
	}
	waitReply(t, reply)

	// mcptray opens only http(s).
	reply = asyncCall(c, "ask__url", map[string]any{"url": "file:///etc/passwd", "id": "el-3"})
	req = nextEvent(t, events, inbox.Added).Request
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept}); err == nil || err.Error() != "mcptray opens only http and https URLs: decline or cancel this request" {
		t.Errorf("file URL: %v", err)
	}
	h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionDecline})
	waitReply(t, reply)

	// URLElicitationRequired (-32042): the error reaches the assistant
	// unchanged, and the URL waits in the inbox.
	r := waitReply(t, asyncCall(c, "ask__needs_url", map[string]any{"url": "https://auth.example.com/files", "id": "el-4"}))
	if !strings.Contains(r, `"code":-32042`) || !strings.Contains(r, "https://auth.example.com/files") {
		t.Errorf("-32042 upstream: %s", r)
	}
	req = nextEvent(t, events, inbox.Added).Request
	if req.Source != inbox.SourceToolError || req.Tool != "needs_url" || req.URL != "https://auth.example.com/files" || req.Message != "Authorize access to your files" {
		t.Errorf("-32042 request: %+v", req)
	}
	if err := h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept}); err != nil {
		t.Fatal(err)
	}
	if got := op.opened(); len(got) != 2 || got[1] != "https://auth.example.com/files" {
		t.Errorf("opened %q", got)
	}
}

// The 2026-07-28 input_required result from a server that serves both
// revisions: mcptray speaks 2025-11-25 to it (initialize first), where the
// SDK server turns a tool's InputRequests into elicitation/create and
// retries the tool with the answer. A server on 2026-07-28 only: the
// gateway's input loop (mcp/gateway_input.go; cli's
// TestInputRequiredAnsweredByInboxAnswer).
func TestInboxInputRequired(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "record")
	h := startCore(t, servers("vault", fake(t, "asker-mrtr", "MCPTRAY_FAKE_RECORD", rec)))
	h.wait("ready", stateIs("vault", control.StateReady))
	events, cancel := h.core.SubscribeInbox()
	defer cancel()
	c := openRPC(t, h, "", "")
	reply := asyncCall(c, "vault__secret_op", map[string]any{})
	req := nextEvent(t, events, inbox.Added).Request
	if req.Message != "Passphrase for the vault" || len(req.Fields) != 1 || !req.Fields[0].Secret || req.Tool != "secret_op" {
		t.Fatalf("request: %+v", req)
	}
	h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{"passphrase": "open sesame"}})
	if r := waitReply(t, reply); !strings.Contains(r, "action accept, passphrase of 11 characters") {
		t.Errorf("result: %s", r)
	}
}

// ${input:ID}: asked once when the entry first starts (waiting-input
// meanwhile), passwords to the keyring and the rest to the store, kept
// across restarts of mcptray; ForgetInput asks again.
func TestInputVariables(t *testing.T) {
	secrets := &memSecrets{m: map[string]string{}}
	dir := t.TempDir()
	// The server starts only if both values arrived in its environment.
	script := filepath.Join(dir, "check.sh")
	os.WriteFile(script, []byte("#!/bin/sh\n[ \"$API_KEY\" = \"key-typed-in\" ] && [ \"$REGION\" = \"eu-west\" ] || exit 9\nexec \"$0.bin\"\n"), 0o755)
	os.Symlink(testBin(t), script+".bin")
	cfg := fmt.Sprintf(`{
  "servers": {"notes": {"command": %q, "env": {"API_KEY": "${input:notes-key}", "REGION": "${input:region}",
                        "MCPTRAY_FAKE_SERVER": "echo", "MCPTRAY_FAKE_MARK": "${input:notes-key}", "GORACE": "atexit_sleep_ms=0"}}},
  "inputs": [
    {"id": "notes-key", "type": "promptString", "description": "Notes API key", "password": true},
    {"id": "region", "type": "pickString", "description": "Region", "options": ["us-east", "eu-west"], "default": "eu-west"}
  ]
}`, script)
	withSecrets := func(o *Options) { o.Secrets = secrets }
	h := startCore(t, cfg, withSecrets)
	events, cancel := h.core.SubscribeInbox()
	defer cancel()
	h.wait("waiting-input", stateIs("notes", control.StateWaitingInput))
	if s := h.server("notes"); !strings.Contains(s.Error, "waiting for ${input:notes-key}") {
		t.Errorf("status error: %q", s.Error)
	}
	req := nextEvent(t, events, inbox.Added).Request
	if req.Source != inbox.SourceConfig || req.Input != "notes-key" || req.Server != "notes" || req.Message != "Notes API key" ||
		len(req.Fields) != 1 || !req.Fields[0].Secret || req.Fields[0].Name != "notes-key" {
		t.Fatalf("input request: %+v", req)
	}
	h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept, Content: map[string]any{"notes-key": "key-typed-in"}})
	req = nextEvent(t, events, inbox.Added).Request
	if req.Input != "region" || req.Fields[0].Secret || len(req.Fields[0].Options) != 2 || req.Fields[0].Default != "eu-west" {
		t.Fatalf("region request: %+v", req)
	}
	h.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionAccept}) // the default
	h.wait("ready", stateIs("notes", control.StateReady))
	// The server echoing the password input: redacted from its first line
	// on (the mark on stderr at start); the other input is not a secret.
	if log := h.waitLog("notes", "mark: "); !strings.Contains(log, "mark: [redacted]") {
		t.Errorf("notes' log:\n%s", strings.ReplaceAll(log, "key-typed-in", "‹secret›"))
	}
	c := openRPC(t, h, "", "")
	if res := c.call("tools/call", map[string]any{"name": "notes__echo", "arguments": map[string]any{"message": "key-typed-in in eu-west"}}); !strings.Contains(string(res), "[redacted] in eu-west") {
		t.Errorf("echo of the input: %s", res)
	}
	if v, _ := secrets.Get("input/notes-key"); v != "key-typed-in" {
		t.Errorf("keyring input/notes-key = %q", v)
	}
	if v, _ := h.core.store.Input(context.Background(), "region"); v != "eu-west" {
		t.Errorf("stored region = %q", v)
	}
	h.stop()
	noSecretUnder(t, h.data, "key-typed-in")

	// A new mcptray on the same data asks nothing.
	h2 := startCore(t, "", withSecrets, func(o *Options) { o.ConfigPath, o.DataDir = h.cfgPath, h.data })
	h2.cfgPath, h2.data = h.cfgPath, h.data
	h2.wait("ready again", stateIs("notes", control.StateReady))
	if n := len(h2.core.Inbox()); n != 0 {
		t.Errorf("%d requests after a restart", n)
	}
	// Forget asks again.
	events2, cancel2 := h2.core.SubscribeInbox()
	defer cancel2()
	if err := h2.core.ForgetInput("notes-key"); err != nil {
		t.Fatal(err)
	}
	h2.wait("waiting again", stateIs("notes", control.StateWaitingInput))
	stable := openRPC(t, h2, "", "stable")
	if res := stable.call("tools/call", map[string]any{"name": "notes__echo", "arguments": map[string]any{"message": "x"}}); !strings.Contains(string(res), "waits for a value its configuration asks for") {
		t.Errorf("a call while it waits for an input: %s", res)
	}
	req = nextEvent(t, events2, inbox.Added).Request
	if req.Input != "notes-key" {
		t.Errorf("after forget: %+v", req)
	}
	if err := h2.core.ForgetInput("never-given"); !errors.Is(err, inbox.ErrNoInputValue) || err.Error() != "forgetting ${input:never-given}: no value stored" {
		t.Errorf("forget unknown: %v", err)
	}
	// Declined: error, and a restart asks again.
	h2.core.Answer(req.ID, inbox.Answer{Action: inbox.ActionDecline})
	h2.wait("declined", stateIs("notes", control.StateError))
	if s := h2.server("notes"); s.Error != "${input:notes-key} was not given (declined); `mcptray restart notes` asks again" {
		t.Errorf("declined: %q", s.Error)
	}
	h2.core.Restart("notes")
	if req := nextEvent(t, events2, inbox.Added).Request; req.Input != "notes-key" {
		t.Errorf("after restart: %+v", req)
	}
	var audit []store.Elicitation
	testkit.WaitFor(t, "the audit rows", func() bool {
		audit, _ = h2.core.store.Elicitations(context.Background(), 0)
		return len(audit) >= 3
	})
	if len(audit) < 3 || audit[len(audit)-1].Mode != "input" {
		t.Errorf("audit: %+v", audit)
	}
	_ = store.OutcomeAccept
}

// Requests still waiting when mcptray stops are closed, and audited,
// before Run returns.
func TestInboxAuditedAtShutdown(t *testing.T) {
	h := startCore(t, servers("ask", fake(t, "asker")))
	h.wait("ready", stateIs("ask", control.StateReady))
	events, cancel := h.core.SubscribeInbox()
	defer cancel()
	for range 3 {
		asyncCall(openRPC(t, h, "", ""), "ask__form", map[string]any{"form": "confirm"})
		nextEvent(t, events, inbox.Added)
	}
	h.stop()
	st, err := store.Open(dbPath(h.data))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Elicitations(context.Background(), 0)
	if err != nil || len(rows) != 3 {
		t.Fatalf("%d audit rows after Run, want 3 (%v)", len(rows), err)
	}
	for _, r := range rows {
		if r.Outcome != store.OutcomeCancel || r.ClosedBy != inbox.ClosedByServer {
			t.Errorf("row %+v, want cancel by server", r)
		}
	}
}
