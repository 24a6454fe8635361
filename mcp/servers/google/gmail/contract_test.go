package gmail

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// TestContractWithDiscovery: every path and query parameter the tools
// send (through the real gmail/v1 client, recorded by the fake) is a
// method and parameter of Google's discovery document.
func TestContractWithDiscovery(t *testing.T) {
	doc, err := googletest.LoadDiscovery("gmail/v1/gmail-api.json")
	must(t, err)
	e := newEnv(t)
	exerciseEverything(e)
	reqs := e.fake.RecordedGmailRequests()
	for _, p := range doc.CheckRequests(reqs) {
		t.Error(p)
	}
	var ids []string
	for _, r := range reqs {
		if m, _ := doc.Match(r.Method, r.Path); m != nil && !slices.Contains(ids, m.ID) {
			ids = append(ids, m.ID)
		}
	}
	slices.Sort(ids)
	want := "gmail.users.drafts.create gmail.users.drafts.delete gmail.users.drafts.get gmail.users.drafts.list gmail.users.drafts.send " +
		"gmail.users.labels.create gmail.users.labels.list gmail.users.messages.attachments.get gmail.users.messages.batchModify " +
		"gmail.users.messages.get gmail.users.messages.list gmail.users.messages.send gmail.users.messages.trash " +
		"gmail.users.settings.sendAs.list gmail.users.threads.get"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("methods used:\n%s\nwant (the test must exercise every call the code makes):\n%s", got, want)
	}
}

// exerciseEverything calls every tool.
func exerciseEverything(e *env) {
	file := filepath.Join(e.home, "a.txt")
	must(e.t, os.WriteFile(file, []byte("a"), 0o600))
	in := e.deliver(ada, reportMail)
	var s searchOut
	e.call("search", map[string]any{"query": "Bericht", "max_results": 5}, &s)
	var m Message
	e.call("read_message", map[string]any{"id": in}, &m)
	e.call("read_thread", map[string]any{"id": m.ThreadID}, nil)
	e.call("download_attachment", map[string]any{"message_id": in, "attachment_id": m.Attachments[0].ID}, nil)
	e.call("send", map[string]any{"reply_to_message_id": in, "reply_all": true, "body": "Danke", "attachments": []string{file}}, nil)
	var d draftOut
	e.call("create_draft", map[string]any{"to": []string{bob}, "subject": "d", "html": "<p>hi</p>"}, &d)
	e.call("list_drafts", map[string]any{"query": "d"}, nil)
	e.call("send_draft", map[string]any{"draft_id": d.DraftID}, nil)
	e.srv.uploadAbove = 100 // this one as an upload
	e.call("create_draft", map[string]any{"to": []string{bob}, "subject": "gone"}, &d)
	e.call("delete_draft", map[string]any{"draft_id": d.DraftID}, nil)
	e.call("create_label", map[string]any{"name": "L"}, nil)
	e.call("list_labels", nil, nil)
	e.call("modify", map[string]any{"ids": []string{in}, "add_labels": []string{"L"}, "read": true}, nil)
	e.call("trash", map[string]any{"ids": []string{in}}, nil)
}

// TestNoTokenLeaks: after every tool and a few failures (rate limits, an
// unknown id, an expired access token), the access token is in no tool
// result nor log line.
func TestNoTokenLeaks(t *testing.T) {
	e := newEnv(t)
	exerciseEverything(e)
	limits := make([]googletest.RateLimit, 5)
	for i := range limits {
		limits[i] = googletest.RateLimit{Code: http.StatusTooManyRequests, API: googletest.APIGmail}
	}
	e.fake.InjectRateLimits(limits...)
	e.callErr("search", nil, "rate-limited")
	e.callErr("read_message", map[string]any{"id": "nosuchmessage"})
	e.accounts.mu.Lock()
	token := e.accounts.tokens[ada]
	e.accounts.tokens[ada] = "ya29.expired-or-unknown"
	e.accounts.mu.Unlock()
	e.callErr("list_labels", nil, "did not accept the account's sign-in", "mcptray auth google add")
	if token == "" {
		t.Fatal("no token was issued")
	}
	for what, s := range map[string]string{"tool results": e.results.String(), "the log": e.logs.String()} {
		if strings.Contains(s, token) || strings.Contains(s, "ya29.") {
			t.Errorf("an access token is in %s", what)
		}
	}
}
