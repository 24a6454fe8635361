//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A send to so many people that its confirmation passes the inbox's
// 16 KiB message limit, through the real daemon: the inbox would refuse
// the request and answer cancel, so nothing could be sent and the only
// word was "the person did not confirm" (who was never asked). The Gmail
// server refuses it first, with an error saying why, and nothing is
// sent; the inbox stays empty.
func TestGmailConfirmationOverTheInboxLimit(t *testing.T) {
	s, _, _ := newGmailSetup(t, "")
	in := s.daemon("")
	in.WaitFor("gmail ready", states("gmail", "ready"))
	a := startAssistant(t, in, map[string]any{"elicitation": map[string]any{"form": map[string]any{}}})
	var many []string
	for i := range 800 {
		many = append(many, fmt.Sprintf("person%03d@example.com", i))
	}
	r := parseToolReply[map[string]any](t, a.wait(a.call("gmail__send",
		map[string]any{"to": []string{"bob@example.com"}, "bcc": many, "subject": "All of you", "body": "Hello everyone."})))
	msg := ""
	if len(r.Result.Content) > 0 {
		msg = r.Result.Content[0].Text
	}
	for _, want := range []string{"801 recipients", "too long for mcptray's inbox", "nothing was sent", "fewer recipients"} {
		if !r.Result.IsError || !strings.Contains(msg, want) {
			t.Errorf("the send's error does not say %q: %.400s", want, msg)
		}
	}
	if n := len(s.fake.SentMessages("ada@example.com")); n != 0 {
		t.Errorf("%d messages sent", n)
	}
	if code, out, errs := s.run(in, "inbox", "--json"); code != 0 || strings.Contains(out, `"id"`) {
		t.Errorf("inbox --json: %d %s %s", code, out, errs)
	}
}

// A JSON-RPC batch of sends from the assistant: each message is its own
// confirmation in the inbox, answered on its own; one yes sends one.
func TestGmailBatchAsksForEach(t *testing.T) {
	s, _, _ := newGmailSetup(t, "")
	in := s.daemon("")
	in.WaitFor("gmail ready", states("gmail", "ready"))
	a := startAssistant(t, in, map[string]any{"elicitation": map[string]any{"form": map[string]any{}}})
	var batch []map[string]any
	for i, to := range []string{"bob@example.com", "carol@example.com"} {
		batch = append(batch, map[string]any{"jsonrpc": "2.0", "id": 101 + i, "method": "tools/call", "params": map[string]any{
			"name": "gmail__send", "arguments": map[string]any{"to": []string{to}, "subject": fmt.Sprint("Batch ", i), "body": "x"}}})
	}
	b, _ := json.Marshal(batch)
	a.in.Write(append(b, '\n'))
	var l inboxJSON
	deadline := time.Now().Add(time.Minute)
	for len(l.Requests) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the inbox holds %d requests, want 2", len(l.Requests))
		}
		_, out, _ := s.run(in, "inbox", "--json")
		l = inboxJSON{}
		json.Unmarshal([]byte(out), &l)
	}
	for _, r := range l.Requests {
		answer := "--decline"
		if strings.Contains(r.Message, "To: bob@example.com\n") {
			answer = "--yes"
		}
		if code, _, errs := s.run(in, "inbox", "answer", r.ID, answer); code != 0 {
			t.Fatalf("inbox answer %s: %s", answer, errs)
		}
	}
	replies := a.waitAll(101, 102)
	yes := parseToolReply[map[string]any](t, replies[101])
	no := parseToolReply[map[string]any](t, replies[102])
	if yes.Result.IsError || !no.Result.IsError {
		t.Errorf("the batch's replies: %+v / %+v", yes.Result, no.Result)
	}
	sent := s.fake.SentMessages("ada@example.com")
	var to []string
	for _, m := range sent {
		to = append(to, m.Header.Get("To"))
	}
	if len(sent) != 1 || !strings.Contains(to[0], "bob@example.com") {
		t.Errorf("sent to %q, want bob alone", to)
	}
}
