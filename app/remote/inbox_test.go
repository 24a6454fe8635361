package remote_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/app/inbox"
	"github.com/mcptray/mcptray/app/remote"
	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

// session is an assistant's MCP session with the instance's gateway, over
// the control socket (what `mcptray connect` relays).
type session struct {
	t  *testing.T
	rw io.ReadWriteCloser
	r  *bufio.Reader
	id int
}

// openSession opens and initializes one, with no capabilities: the
// servers' questions go to the inbox.
func openSession(t *testing.T, data string) *session {
	t.Helper()
	cl, err := control.Dial(data)
	if err != nil {
		t.Fatal(err)
	}
	rw, err := cl.OpenMCP(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rw.Close() })
	s := &session{t: t, rw: rw, r: bufio.NewReader(rw)}
	<-s.send("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "test", "version": "1"}})
	s.rw.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	return s
}

// send sends a request and returns a channel that gets its reply line.
// One request at a time.
func (s *session) send(method string, params any) <-chan string {
	s.id++
	id := s.id
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	s.rw.Write(append(msg, '\n'))
	out := make(chan string, 1)
	go func() {
		for {
			line, err := s.r.ReadBytes('\n')
			if err != nil {
				out <- "read error: " + err.Error()
				return
			}
			var resp struct{ ID *int }
			json.Unmarshal(line, &resp)
			if resp.ID != nil && *resp.ID == id {
				out <- string(line)
				return
			}
		}
	}()
	return out
}

// next waits for the next inbox event of kind.
func next(t *testing.T, evs <-chan inbox.Event, kind inbox.EventKind) inbox.Event {
	t.Helper()
	deadline := time.NewTimer(testkit.Deadline)
	defer deadline.Stop()
	for {
		select {
		case ev, ok := <-evs:
			if !ok {
				t.Fatalf("the inbox channel closed while waiting for %q", kind)
			}
			if ev.Kind == kind {
				return ev
			}
		case <-deadline.C:
			t.Fatalf("no inbox event %q", kind)
		}
	}
}

// receive waits for a value of ch.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	var v T
	testkit.Within(t, testkit.Deadline, what, func() { v = <-ch })
	return v
}

// noSecretUnder fails if secret is in any file under dir.
func noSecretUnder(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("the secret is in %s", path)
		}
		return nil
	})
}

// TestInboxRoundTrip: a server asks for a password, the window (over the
// socket) sees the request and answers it, the server gets the value, and
// no log has it.
func TestInboxRoundTrip(t *testing.T) {
	const secret = "s3cret-hunter2-9f8e7d"
	dir := testkit.TempDir(t)
	rec := filepath.Join(dir, "record.jsonl")
	d := newDirs(t, servers("a", fake(t, "asker", mcptest.RecordEnv, rec)))
	in := start(t, d)
	var logs testkit.Buffer
	c, err := remote.Dial(context.Background(), d.cfg, d.data, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	updates, cancelStatus := c.Subscribe()
	defer cancelStatus()
	waitStatus(t, updates, "a ready", func(st control.Status) bool { return state(st, "a") == control.StateReady })

	evs, cancel := c.SubscribeInbox()
	s := openSession(t, d.data)
	reply := s.send("tools/call", map[string]any{"name": "a__login", "arguments": map[string]any{"user": "root"}})
	added := next(t, evs, inbox.Added)
	if added.Request.Server != "a" || !strings.Contains(added.Request.Message, "Password for root") {
		t.Fatalf("Added %+v", added.Request)
	}
	// The core lists the same request.
	if l := in.core.Inbox(); len(l) != 1 || l[0].ID != added.Request.ID {
		t.Errorf("the core's inbox = %+v", l)
	}
	var inv *inbox.InvalidAnswerError
	if err := c.Answer(added.Request.ID, inbox.Answer{Action: "accept", Content: map[string]any{"nope": 1}}); !errors.As(err, &inv) {
		t.Errorf("an answer without the password = %v, want an *inbox.InvalidAnswerError", err)
	}
	if err := c.Answer(added.Request.ID, inbox.Answer{Action: "accept", By: "ui", Content: map[string]any{"password": secret}}); err != nil {
		t.Fatal(err)
	}
	closed := next(t, evs, inbox.Closed)
	if closed.Request.ID != added.Request.ID || closed.Outcome != "accept" {
		t.Errorf("Closed %+v", closed)
	}
	if r := receive(t, reply, "the tool's reply"); !strings.Contains(r, "logged in as root") || strings.Contains(r, secret) {
		t.Errorf("the tool's reply: %s", r)
	}
	if b, _ := os.ReadFile(rec); !strings.Contains(string(b), secret) {
		t.Errorf("the server did not get the password: %s", b)
	}
	if err := c.Answer(added.Request.ID, inbox.Answer{Action: "cancel"}); !errors.Is(err, inbox.ErrRequestClosed) {
		t.Errorf("answering it again = %v, want inbox.ErrRequestClosed", err)
	}
	cancel()
	for range evs { // closed after cancel
	}
	c.Close()
	in.stop()
	for what, text := range map[string]string{"the window's log": logs.String(), "the instance's log": in.logs.String()} {
		if strings.Contains(text, secret) {
			t.Errorf("the password is in %s", what)
		}
	}
	noSecretUnder(t, d.data, secret)
}
