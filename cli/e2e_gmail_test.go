//go:build linux

package cli

import (
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testdaemon"
	"github.com/mcptray/mcptray/mcp/servers/google/gmail"
)

// newGmailSetup is ada signed in for Gmail, and mcp.json with the gmail
// entry on, polling every second, downloads into a folder of the test's,
// attachments allowed from roots, and gmailSend set to send ("" for the
// default).
func newGmailSetup(t *testing.T, send string) (s *gcalSetup, downloads, roots string) {
	t.Helper()
	downloads, roots = t.TempDir(), t.TempDir()
	settings := map[string]any{"gmailPoll": "1s", "downloadDir": downloads}
	if send != "" {
		settings["gmailSend"] = send
	}
	s = newGoogleServerSetup(t, "gmail", "gmail", settings, map[string]any{"localRoots": []string{roots}})
	return s, downloads, roots
}

// waitMailSynced waits for the new-mail poller's first poll (its cursor
// file holds the account), after which new mail is announced.
func (s *gcalSetup) waitMailSynced() {
	s.t.Helper()
	waitFor(s.t, "the first Gmail poll", func() bool {
		b, err := os.ReadFile(filepath.Join(s.data, gmail.CursorFile))
		return err == nil && strings.Contains(string(b), "ada@example.com")
	})
}

// lunchMail is bob's mail to ada: a non-ASCII subject (RFC 2047), a text
// body and a PDF attached.
func lunchMail(pdf []byte) []byte {
	return []byte("From: Bob <bob@example.com>\r\n" +
		"To: ada@example.com\r\n" +
		"Subject: =?UTF-8?Q?Caf=C3=A9_tomorrow=3F_=E2=98=95?=\r\n" +
		"Message-ID: <lunch-1@example.com>\r\n" +
		"Date: " + time.Now().Format(time.RFC1123Z) + "\r\n" +
		"MIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=b1\r\n\r\n" +
		"--b1\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\nLunch at the café? Menu attached.\r\n" +
		"--b1\r\nContent-Type: application/pdf; name=menu.pdf\r\nContent-Disposition: attachment; filename=menu.pdf\r\n" +
		"Content-Transfer-Encoding: base64\r\n\r\n" + base64.StdEncoding.EncodeToString(pdf) + "\r\n--b1--\r\n")
}

type mailReply = toolReply[map[string]any]

// The issue's end-to-end run of the Gmail server through a real `mcptray
// daemon` and `mcptray connect`, with an assistant that declares
// elicitation (and would answer any request it got): new mail becomes
// event/new_email; search and read it (a non-ASCII subject, its
// attachment saved to disk, never in the context); a threaded reply that
// the person confirms with `mcptray inbox answer --yes` goes out with the
// right headers in the same thread; a send the person declines sends
// nothing; the assistant is never asked; no token nor the client secret
// is anywhere.
func TestGmailEndToEnd(t *testing.T) {
	s, downloads, _ := newGmailSetup(t, "")
	in := s.daemon("")
	in.WaitFor("gmail ready", states("gmail", "ready"))
	s.waitMailSynced()
	a := startAssistant(t, in, map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}})
	call := func(tool string, args map[string]any) mailReply {
		t.Helper()
		r := parseToolReply[map[string]any](t, a.wait(a.call("gmail__"+tool, args)))
		if r.Result.IsError || r.Result.Structured == nil || len(r.Result.Content) == 0 {
			t.Fatalf("%s: %+v", tool, r.Result)
		}
		return r
	}
	list := a.wait(a.send("tools/list", map[string]any{}))
	for _, tool := range []string{"search", "read_message", "read_thread", "send", "create_draft", "list_drafts",
		"send_draft", "delete_draft", "modify", "trash", "list_labels", "create_label", "download_attachment"} {
		if !strings.Contains(list, `"gmail__`+tool+`"`) {
			t.Errorf("tools/list lacks gmail__%s", tool)
		}
	}

	// New mail: announced.
	pdf := []byte("%PDF-1.4 the menu\n")
	id, err := s.fake.DeliverMessage("ada@example.com", lunchMail(pdf))
	if err != nil {
		t.Fatal(err)
	}
	p := s.waitEvent(in, "event/new_email", id)
	if p["account"] != "ada@example.com" || p["subject"] != "Café tomorrow? ☕" || p["title"] != "Café tomorrow? ☕ — bob@example.com" {
		t.Errorf("event/new_email: %+v", p)
	}

	// Search and read it.
	found := call("search", map[string]any{"query": "from:bob@example.com"})
	if !strings.Contains(fmt.Sprint(found.Result.Structured), id) || !strings.Contains(fmt.Sprint(found.Result.Structured), "has_attachments:true") {
		t.Errorf("search: %+v", found.Result.Structured)
	}
	msg := call("read_message", map[string]any{"id": id}).Result.Structured
	atts, _ := msg["attachments"].([]any)
	if msg["message_id"] != "<lunch-1@example.com>" || msg["subject"] != "Café tomorrow? ☕" ||
		!strings.Contains(fmt.Sprint(msg["body"]), "Lunch at the café?") || len(atts) != 1 {
		t.Fatalf("read_message: %+v", msg)
	}
	att, _ := atts[0].(map[string]any)

	// The attachment goes to a file, not into the context.
	saved := call("download_attachment", map[string]any{"message_id": id, "attachment_id": att["id"]}).Result.Structured
	path, _ := saved["path"].(string)
	if b, err := os.ReadFile(path); err != nil || string(b) != string(pdf) || filepath.Dir(path) != downloads {
		t.Errorf("download_attachment: %+v, file %q %v", saved, b, err)
	}

	// A threaded reply, confirmed by the person in the inbox.
	reply := a.call("gmail__send", map[string]any{"reply_to_message_id": id, "body": "Yes, 12:30 works."})
	l, raw := in.waitRequest("gmail")
	r := l.Requests[0]
	if r.Mode != "form" || len(r.Fields) != 0 || !strings.Contains(raw, `"acceptLabel": "Send"`) {
		t.Fatalf("the send confirmation: %s", raw)
	}
	for _, want := range []string{"From: ada@example.com", "To: Bob <bob@example.com>", "Subject: Re: Café tomorrow? ☕", "Yes, 12:30 works."} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("the confirmation does not show %q:\n%s", want, r.Message)
		}
	}
	if code, out, errs := s.run(in, "inbox", "answer", r.ID, "--yes"); code != 0 {
		t.Fatalf("inbox answer --yes: %d %q %q", code, out, errs)
	}
	if rr := parseToolReply[map[string]any](t, a.wait(reply)); rr.Result.IsError {
		t.Fatalf("send after yes: %+v", rr.Result)
	}
	sent := s.fake.SentMessages("ada@example.com")
	original := s.fake.Messages("ada@example.com")[0]
	if len(sent) != 1 || sent[0].ThreadID != original.ThreadID || sent[0].Subject != "Re: Café tomorrow? ☕" ||
		sent[0].Header.Get("In-Reply-To") != "<lunch-1@example.com>" || !strings.Contains(sent[0].Header.Get("References"), "<lunch-1@example.com>") {
		t.Fatalf("the reply at Google: %+v", sent)
	}

	// Declined: nothing goes out.
	reply = a.call("gmail__send", map[string]any{"to": []string{"carol@example.com"}, "subject": "Plans", "body": "Not yet."})
	l, _ = in.waitRequest("gmail")
	if code, _, errs := s.run(in, "inbox", "answer", l.Requests[0].ID, "--decline"); code != 0 {
		t.Fatalf("inbox answer --decline: %s", errs)
	}
	declined := parseToolReply[map[string]any](t, a.wait(reply))
	if !declined.Result.IsError || len(declined.Result.Content) == 0 || !strings.Contains(declined.Result.Content[0].Text, "nothing was sent") {
		t.Errorf("send after decline: %+v", declined.Result)
	}
	if n := len(s.fake.SentMessages("ada@example.com")); n != 1 {
		t.Errorf("%d messages in SENT after a decline, want 1", n)
	}
	if strings.Contains(a.out.String(), "elicitation/create") {
		t.Errorf("the assistant was asked to confirm a send: %s", a.out.String())
	}

	// Secrets, by value, as for gcal.
	argv := map[string]string{}
	for _, pid := range []int{in.Cmd.Process.Pid, func() int { _, p := state(in.Status(), "gmail"); return p }(), a.cmd.Process.Pid} {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		argv["the argv of process "+strconv.Itoa(pid)] = string(b)
	}
	a.in.Close()
	testdaemon.Stop(t, in.Instance)
	s.searchAll(map[string]string{
		"mcptray's log":      in.Stderr.String(),
		"the upstream bytes": a.out.String(),
		"the CLI's output":   s.outs.String(),
		"argv":               fmt.Sprint(argv),
		"the inbox request":  raw,
	})
}

// gmailSend drafts-only: send and send_draft are not listed, drafts are.
func TestGmailDraftsOnly(t *testing.T) {
	s, _, _ := newGmailSetup(t, "drafts-only")
	in := s.daemon("")
	in.WaitFor("gmail ready", states("gmail", "ready"))
	a := startAssistant(t, in, map[string]any{})
	list := a.wait(a.send("tools/list", map[string]any{}))
	if strings.Contains(list, `"gmail__send"`) || strings.Contains(list, `"gmail__send_draft"`) || !strings.Contains(list, `"gmail__create_draft"`) {
		t.Errorf("drafts-only tools/list: %s", list)
	}
	r := parseToolReply[map[string]any](t, a.wait(a.call("gmail__create_draft", map[string]any{"to": []string{"bob@example.com"}, "subject": "Draft", "body": "later"})))
	if r.Result.IsError {
		t.Errorf("create_draft: %+v", r.Result)
	}
	if n := len(s.fake.SentMessages("ada@example.com")); n != 0 {
		t.Errorf("%d messages sent in drafts-only", n)
	}
}

// Gmail in the real tray binary (whose serve gmail execs mcptray-google):
// new mail becomes a desktop notification under the test session's dunst,
// "gmail: <subject> — <sender>"; a reply the assistant sends pops up the
// confirmation (From, To, Subject, the body; Send and Cancel), which is
// photographed for the README (gmail-send.png in $MCPTRAY_ARTIFACTS), then
// answered; the reply goes out and the popup closes.
func TestGmailInTheTrayApp(t *testing.T) {
	if os.Getenv("DISPLAY") == "" || exec.Command("dunstctl", "count").Run() != nil {
		if os.Getenv("MCPTRAY_TEST_SESSION") == "1" {
			t.Fatal("no X display or no dunst in the desktop session")
		}
		t.Skip("needs an X display and dunst (run in scripts/desktop-session.sh)")
	}
	s, _, _ := newGmailSetup(t, "")
	in, stderr := s.trayApp()
	in.WaitFor("gmail ready", states("gmail", "ready"))
	s.waitMailSynced()
	id, err := s.fake.DeliverMessage("ada@example.com", lunchMail([]byte("menu")))
	if err != nil {
		t.Fatal(err)
	}
	s.waitEvent(in, "event/new_email", id)
	var history []byte
	waitFor(t, "the notification in dunst's history", func() bool {
		exec.Command("dunstctl", "close-all").Run() // what is shown moves to the history
		history, _ = exec.Command("dunstctl", "history").Output()
		return strings.Contains(string(history), "gmail: Café tomorrow? ☕ — bob@example.com")
	})

	a := startAssistant(t, in, map[string]any{})
	reply := a.call("gmail__send", map[string]any{"reply_to_message_id": id,
		"body": "Yes — 12:30 at the café works.\nI'll book a table.\n\nAda"})
	l, _ := in.waitRequest("gmail")
	popup := windowTitled(t, "gmail")
	shotWindow(t, popup, "gmail-send.png")
	if code, _, errs := s.run(in, "inbox", "answer", l.Requests[0].ID, "--yes"); code != 0 {
		t.Fatalf("inbox answer --yes: %s", errs)
	}
	if r := parseToolReply[map[string]any](t, a.wait(reply)); r.Result.IsError {
		t.Fatalf("send after yes: %+v", r.Result)
	}
	waitFor(t, "the popup to close", func() bool { return windowID("gmail") == "" })
	if n := len(s.fake.SentMessages("ada@example.com")); n != 1 {
		t.Errorf("%d messages in SENT, want the reply", n)
	}
	s.searchAll(map[string]string{"the tray app's log": stderr.String(), "dunst's history": string(history)})
}

// windowID is the first visible X window titled title, or "".
func windowID(title string) string {
	o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+title+"$").Output()
	id, _, _ := strings.Cut(strings.TrimSpace(string(o)), "\n")
	return id
}

// windowTitled waits for a visible X window titled title.
func windowTitled(t *testing.T, title string) string {
	t.Helper()
	var id string
	waitFor(t, "a window titled "+title, func() bool { id = windowID(title); return id != "" })
	return id
}

// shotWindow saves X window win as name in $MCPTRAY_ARTIFACTS (make test
// sets it; else the test's temp dir) once two captures in a row are the
// same (drawn, no animation under way).
func shotWindow(t *testing.T, win, name string) {
	t.Helper()
	dir := os.Getenv("MCPTRAY_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	os.MkdirAll(dir, 0o755)
	shot := filepath.Join(dir, name)
	var last []byte
	waitFor(t, name+" to be drawn", func() bool {
		cur, _ := exec.Command("import", "-window", win, "-depth", "8", "rgba:-").Output()
		still := len(cur) > 0 && string(cur) == string(last)
		last = cur
		return still && exec.Command("import", "-window", win, shot).Run() == nil
	})
	t.Logf("screenshot: %s", shot)
}
