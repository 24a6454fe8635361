package cli

import (
	"fmt"
	"strings"
	"testing"
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
