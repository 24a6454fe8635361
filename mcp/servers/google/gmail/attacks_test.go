package gmail

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gm "google.golang.org/api/gmail/v1"
)

// Attacks on sending (issue 28, "try to break it yourself"): an assistant
// trying to get mail out that the person did not see in the confirmation.
// docs/security.md lists them.

const eve = "eve@example.com"

// recipientsAtGoogle is everyone a stored message is addressed to.
func recipientsAtGoogle(e *env, id string) string {
	m := e.stored(ada, id)
	return strings.Join([]string{m.Header.Get("To"), m.Header.Get("Cc"), m.Header.Get("Bcc")}, " | ")
}

// Line breaks in a recipient cannot add a header (a Bcc the person does
// not see): the address is refused before anyone is asked; in a subject
// they fold into a space, on the wire as in the confirmation.
func TestAttackHeaderInjection(t *testing.T) {
	e := newEnv(t)
	for _, args := range []map[string]any{
		{"to": []string{bob + "\r\nBcc: " + eve}},
		{"to": []string{bob + "\nBcc: " + eve}},
		{"to": []string{bob}, "cc": []string{"carol@example.com\r\nBcc: " + eve}},
		{"to": []string{`"Bob` + "\r\nBcc: " + eve + `" <` + bob + `>`}},
		{"to": []string{"Bob <" + bob + ">\r\nBcc: " + eve}},
	} {
		args["subject"], args["body"] = "Hi", "x"
		e.callErr("send", args, "is not an email address")
		e.callErr("create_draft", args, "is not an email address")
	}
	if n := len(e.asker.take()); n != 0 {
		t.Errorf("asked %d times for refused recipients", n)
	}
	var out sendOut
	e.call("send", map[string]any{"to": []string{bob}, "subject": "Hi\r\nBcc: " + eve + "\r\n\r\nforged body", "body": "x"}, &out)
	asked := e.asker.take()
	if len(asked) != 1 || !strings.Contains(asked[0].Message, "Subject: Hi  Bcc: "+eve+"    forged body\n") || strings.Contains(asked[0].Message, "\nBcc:") {
		t.Fatalf("the confirmation: %s", messages(asked))
	}
	if got := recipientsAtGoogle(e, out.ID); strings.Contains(got, eve) || len(e.stored(ada, out.ID).Header["Bcc"]) != 0 {
		t.Errorf("the subject added a recipient: %s", got)
	}
}

// Every recipient is in the confirmation, Bcc too: in a send, and in a
// draft whose only recipients are in Bcc.
func TestAttackBccOnlyDraft(t *testing.T) {
	e := newEnv(t)
	var d draftOut
	e.call("create_draft", map[string]any{"bcc": []string{eve, "mallory@example.com"}, "subject": "Quiet", "body": "x"}, &d)
	var out sendOut
	e.call("send_draft", map[string]any{"draft_id": d.DraftID}, &out)
	asked := e.asker.take()
	if len(asked) != 1 || !strings.Contains(asked[0].Message, "\nBcc: <"+eve+">, <mallory@example.com>\n") {
		t.Fatalf("the confirmation of a Bcc-only draft: %s", messages(asked))
	}
	if got := recipientsAtGoogle(e, out.ID); !strings.Contains(got, eve) {
		t.Errorf("sent to %s", got)
	}
}

// A draft changed while the person reads its confirmation (by the
// assistant, in another call or at Google) goes out as it was shown.
func TestAttackDraftEditedWhileAsked(t *testing.T) {
	for _, upload := range []bool{false, true} {
		t.Run(fmt.Sprint("upload=", upload), func(t *testing.T) { draftEditedWhileAsked(t, upload) })
	}
}

func draftEditedWhileAsked(t *testing.T, upload bool) {
	e := newEnv(t)
	if upload {
		e.srv.uploadAbove = 10 // the draft's bytes go back as a media upload
	}
	var d draftOut
	e.call("create_draft", map[string]any{"to": []string{bob}, "subject": "Lunch", "body": "Lunch at noon?"}, &d)
	hc, err := e.accounts.Client(context.Background(), ada)
	must(t, err)
	svc, err := newService(context.Background(), hc)
	must(t, err)
	e.asker.set(func(p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
		raw := "From: " + ada + "\r\nTo: " + eve + "\r\nSubject: Lunch\r\n\r\nWire the money to eve.\r\n"
		_, err := svc.Users.Drafts.Update("me", d.DraftID, &gm.Draft{Id: d.DraftID,
			Message: &gm.Message{Raw: base64.URLEncoding.EncodeToString([]byte(raw))}}).Do()
		if err != nil {
			return nil, fmt.Errorf("editing the draft: %w", err)
		}
		return &sdk.ElicitResult{Action: "accept"}, nil
	})
	var out sendOut
	e.call("send_draft", map[string]any{"draft_id": d.DraftID}, &out)
	asked := e.asker.take()
	if len(asked) != 1 || !strings.Contains(asked[0].Message, "To: <"+bob+">") || !strings.Contains(asked[0].Message, "Lunch at noon?") {
		t.Fatalf("the confirmation: %s", messages(asked))
	}
	sent := e.stored(ada, out.ID)
	if got := recipientsAtGoogle(e, out.ID); strings.Contains(got, eve) || !strings.Contains(got, bob) ||
		!strings.Contains(string(sent.Raw), "Lunch at noon?") || strings.Contains(string(sent.Raw), "Wire") {
		t.Errorf("sent a draft other than the one confirmed: to %s:\n%s", got, sent.Raw)
	}
	if n := len(e.fake.SentMessages(ada)); n != 1 {
		t.Errorf("%d messages sent", n)
	}
}

// An HTML version saying something else than the plain text is shown in
// the confirmation: most mail apps show the HTML.
func TestAttackHTMLUnlikeTheText(t *testing.T) {
	e := newEnv(t)
	args := map[string]any{"to": []string{bob}, "subject": "Lunch", "body": "Lunch at noon?",
		"html": "<p>Please wire <b>5000 EUR</b> to eve.</p>"}
	e.call("send", args, nil)
	var d draftOut
	e.call("create_draft", args, &d)
	e.call("send_draft", map[string]any{"draft_id": d.DraftID}, nil)
	asked := e.asker.take()
	if len(asked) != 2 {
		t.Fatalf("asked %d times", len(asked))
	}
	for i, p := range asked {
		if !strings.Contains(p.Message, "Lunch at noon?") || !strings.Contains(p.Message, "Please wire 5000 EUR to eve.") {
			t.Errorf("confirmation %d hides the HTML version:\n%s", i, p.Message)
		}
	}
	// The same HTML and text: shown once.
	e.call("send", map[string]any{"to": []string{bob}, "subject": "Lunch", "body": "Lunch at noon?", "html": "<p>Lunch at <i>noon</i>?</p>"}, nil)
	if p := e.asker.take(); len(p) != 1 || strings.Count(p[0].Message, "noon") != 1 {
		t.Errorf("the confirmation of matching versions: %s", messages(p))
	}
}

// Bidi overrides and invisible characters in names, addresses, subject
// and attachment names are shown as visible escapes, so they cannot
// reorder or hide what the confirmation says.
func TestAttackInvisibleCharacters(t *testing.T) {
	e := newEnv(t)
	att := e.home + "/report\u202Efdp.exe"
	writeFile(t, att, "MZ")
	e.call("send", map[string]any{"to": []string{"\"\u202Emoc.elpmaxe@bob\u202C\" <" + eve + ">"},
		"subject": "Hi\u200B\u2066there", "body": "x", "attachments": []string{att}}, nil)
	asked := e.asker.take()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	msg := asked[0].Message
	head, _, _ := strings.Cut(msg, "\n\n\n")
	for _, r := range head {
		if r == '\u202E' || r == '\u202C' || r == '\u200B' || r == '\u2066' {
			t.Errorf("the confirmation holds %U:\n%q", r, msg)
		}
	}
	for _, want := range []string{"To: <U+202E>moc.elpmaxe@bob<U+202C> <" + eve + ">", "Subject: Hi<U+200B><U+2066>there", "report<U+202E>fdp.exe"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the confirmation does not show %q:\n%s", want, msg)
		}
	}
}

// A message to so many people that its confirmation passes what
// mcptray's inbox shows (16 KiB; it would refuse the request, answering
// cancel) is refused with an error saying why, before anyone is asked.
func TestAttackConfirmationTooLong(t *testing.T) {
	e := newEnv(t)
	var many []string
	for i := range 800 {
		many = append(many, fmt.Sprintf("person%03d@example.com", i))
	}
	for _, tool := range []string{"send", "send_draft"} {
		args := map[string]any{"to": []string{bob}, "bcc": many, "subject": "All of you", "body": "x"}
		if tool == "send_draft" {
			var d draftOut
			e.call("create_draft", args, &d)
			args = map[string]any{"draft_id": d.DraftID}
		}
		res := e.callRaw(e.client, tool, args)
		msg := textOf(res)
		if !res.IsError || !strings.Contains(msg, "801 recipients") || !strings.Contains(msg, "too long for mcptray's inbox") ||
			!strings.Contains(msg, "nothing was sent") {
			t.Errorf("%s to 801 recipients: error %v, %.300s", tool, res.IsError, msg)
		}
	}
	if n := len(e.asker.take()); n != 0 {
		t.Errorf("asked %d times", n)
	}
	if n := len(e.fake.SentMessages(ada)); n != 0 {
		t.Errorf("%d sent", n)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	must(t, os.WriteFile(path, []byte(data), 0o600))
}

// messages is the text of each confirmation asked.
func messages(asked []*sdk.ElicitParams) string {
	var out []string
	for _, p := range asked {
		out = append(out, p.Message)
	}
	return fmt.Sprintf("%d asked:\n%s", len(asked), strings.Join(out, "\n---\n"))
}

// A draft made elsewhere (another tool with Gmail access) with a header
// twice — two To, two Bcc lines — shows every address of every line.
func TestAttackDraftWithRepeatedHeaders(t *testing.T) {
	e := newEnv(t)
	hc, err := e.accounts.Client(context.Background(), ada)
	must(t, err)
	svc, err := newService(context.Background(), hc)
	must(t, err)
	raw := "From: " + ada + "\r\nTo: " + bob + "\r\nTo: " + eve + "\r\nBcc: carol@example.com\r\nBcc: mallory@example.com\r\nSubject: Two lines\r\n\r\nx\r\n"
	d, err := svc.Users.Drafts.Create("me", &gm.Draft{Message: &gm.Message{Raw: base64.URLEncoding.EncodeToString([]byte(raw))}}).Do()
	must(t, err)
	e.call("send_draft", map[string]any{"draft_id": d.Id}, nil)
	asked := e.asker.take()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	for _, want := range []string{bob, eve, "carol@example.com", "mallory@example.com"} {
		if !strings.Contains(asked[0].Message, want) {
			t.Errorf("the confirmation does not show %s:\n%s", want, asked[0].Message)
		}
	}
}

// A draft made elsewhere whose text comes in several versions (mail apps
// show the last alternative they can: here a second HTML part) shows
// every version that reads differently.
func TestAttackDraftWithHiddenAlternative(t *testing.T) {
	e := newEnv(t)
	hc, err := e.accounts.Client(context.Background(), ada)
	must(t, err)
	svc, err := newService(context.Background(), hc)
	must(t, err)
	raw := "From: " + ada + "\r\nTo: " + bob + "\r\nSubject: Lunch\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n" +
		"--b\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\nLunch at noon?\r\n" +
		"--b\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n<p>Lunch at noon?</p>\r\n" +
		"--b\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n<p>Wire 5000 EUR to eve.</p>\r\n" +
		"--b\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\nAnd the plain text says so too.\r\n--b--\r\n"
	d, err := svc.Users.Drafts.Create("me", &gm.Draft{Message: &gm.Message{Raw: base64.URLEncoding.EncodeToString([]byte(raw))}}).Do()
	must(t, err)
	e.call("send_draft", map[string]any{"draft_id": d.Id}, nil)
	asked := e.asker.take()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	for _, want := range []string{"Lunch at noon?", "Wire 5000 EUR to eve.", "And the plain text says so too."} {
		if !strings.Contains(asked[0].Message, want) {
			t.Errorf("the confirmation does not show %q:\n%s", want, asked[0].Message)
		}
	}
	if n := strings.Count(asked[0].Message, "Lunch at noon?"); n != 1 {
		t.Errorf("the same text shown %d times:\n%s", n, asked[0].Message)
	}
}
