package gmail

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// allTools are the tool names, and whether each is read-only.
var allTools = map[string]bool{"search": true, "read_message": true, "read_thread": true, "send": false,
	"create_draft": false, "list_drafts": true, "send_draft": false, "delete_draft": false, "modify": false,
	"trash": false, "list_labels": true, "create_label": false, "download_attachment": false}

// TestEveryToolIsDescribed: the exact tool names, each with every hint
// set and an output schema; tools/list stays small.
func TestEveryToolIsDescribed(t *testing.T) {
	e := newEnv(t)
	res, err := e.client.ListTools(t.Context(), nil)
	must(t, err)
	if len(res.Tools) != len(allTools) {
		t.Errorf("%d tools, want %d", len(res.Tools), len(allTools))
	}
	for _, tool := range res.Tools {
		ro, ok := allTools[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil || a.ReadOnlyHint != ro || a.Title == "" {
			t.Errorf("%s: annotations %+v, want readOnly %v and every hint set", tool.Name, a, ro)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
	}
	b, _ := json.Marshal(res)
	t.Logf("tools/list: %d bytes", len(b))
	if len(b) > 12000 {
		t.Errorf("tools/list is %d bytes: keep the descriptions and schemas short", len(b))
	}
	for _, name := range []string{"trash", "delete_draft"} {
		i := slices.IndexFunc(res.Tools, func(x *sdk.Tool) bool { return x.Name == name })
		if !*res.Tools[i].Annotations.DestructiveHint {
			t.Errorf("%s is not marked destructive", name)
		}
	}
}

// drafts-only: send and send_draft are not listed at all.
func TestDraftsOnlyHidesSending(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.Send = SendDraftsOnly })
	res, err := e.client.ListTools(t.Context(), nil)
	must(t, err)
	for _, tool := range res.Tools {
		if tool.Name == "send" || tool.Name == "send_draft" {
			t.Errorf("%s is listed under drafts-only", tool.Name)
		}
	}
	if len(res.Tools) != len(allTools)-2 {
		t.Errorf("%d tools under drafts-only", len(res.Tools))
	}
	var d draftOut
	e.call("create_draft", map[string]any{"to": []string{bob}, "subject": "Only a draft", "body": "x"}, &d)
	res2, err := e.client.CallTool(t.Context(), &sdk.CallToolParams{Name: "send", Arguments: map[string]any{"to": []string{bob}}})
	if err == nil && !res2.IsError {
		t.Errorf("send answered under drafts-only: %s", textOf(res2))
	}
	if n := len(e.fake.SentMessages(ada)); n != 0 || len(e.asker.take()) != 0 {
		t.Errorf("%d sent", n)
	}
}

const lunchMail = `From: Bob <bob@example.com>
To: Ada <ada@example.com>, carol@example.com
Cc: dan@example.com
Subject: Lunch on Friday?
Date: Thu, 03 Dec 2026 09:00:00 +0000
Message-ID: <lunch-1@example.com>
References: <plan-0@example.com>
Content-Type: text/plain; charset=UTF-8

Shall we meet at noon?
`

const reportMail = `From: =?UTF-8?Q?Zo=C3=AB?= <zoe@example.com>
To: ada@example.com
Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe_und_der_Bericht?=
Date: Thu, 03 Dec 2026 10:00:00 +0000
Message-ID: <report-1@example.com>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="b1"

--b1
Content-Type: text/html; charset=ISO-8859-1
Content-Transfer-Encoding: quoted-printable

<html><head><style>p{}</style></head><body><p>Gr=FC=DFe, see <a href=3D"https://example.com/r">the report</a>.</p></body></html>
--b1
Content-Type: application/pdf; name="report.pdf"
Content-Disposition: attachment; filename="report.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PD4+CmVuZG9iagp0cmFpbGVyCjw8Pj4KJSVFT0YK
--b1--
`

// reportPDF is reportMail's attachment.
const reportPDF = "%PDF-1.4\n%\xc7\xec\x8f\xa2\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n"

func TestSearchAndRead(t *testing.T) {
	e := newEnv(t)
	lunch := e.deliver(ada, lunchMail)
	report := e.deliver(ada, reportMail)
	var out searchOut
	txt := e.call("search", nil, &out)
	if len(out.Messages) != 2 || out.Messages[0].ID != report || out.Messages[1].ID != lunch {
		t.Fatalf("search, newest first: %+v", out.Messages)
	}
	r := out.Messages[0]
	if r.Subject != "Grüße und der Bericht" || r.From != "Zoë <zoe@example.com>" || !r.HasAttachments ||
		!slices.Contains(r.Labels, "INBOX") || !slices.Contains(r.Labels, "UNREAD") || r.ThreadID == "" || r.Date == "" {
		t.Errorf("the report's summary: %+v", r)
	}
	if l := out.Messages[1]; l.HasAttachments || l.To != "Ada <ada@example.com>, carol@example.com" || l.Snippet == "" {
		t.Errorf("lunch's summary: %+v", l)
	}
	if !strings.Contains(txt, report) || !strings.Contains(txt, "[attachments]") {
		t.Errorf("text mirror: %s", txt)
	}
	e.call("search", map[string]any{"query": "from:bob lunch"}, &out)
	if len(out.Messages) != 1 || out.Messages[0].ID != lunch {
		t.Errorf("query: %+v", out.Messages)
	}
	e.call("search", map[string]any{"max_results": 1}, &out)
	if len(out.Messages) != 1 || out.NextPageToken == "" {
		t.Fatalf("max_results 1: %+v", out)
	}
	e.call("search", map[string]any{"max_results": 1, "page_token": out.NextPageToken}, &out)
	if len(out.Messages) != 1 || out.Messages[0].ID != lunch || out.NextPageToken != "" {
		t.Errorf("second page: %+v", out)
	}
	e.callErr("search", map[string]any{"max_results": 500}, "max_results must be between 1 and 100")
	for _, r := range e.fake.RecordedGmailRequests() {
		if r.Pattern == "GET /gmail/v1/users/{userId}/messages/{id}" && !strings.Contains(r.Query.Get("fields"), "body(size,attachmentId)") {
			t.Errorf("search read a message whole: %v", r.Query)
		}
	}

	var m Message
	txt = e.call("read_message", map[string]any{"id": report}, &m)
	if m.MessageID != "<report-1@example.com>" || m.Subject != "Grüße und der Bericht" || m.Body != "Grüße, see the report (https://example.com/r)." ||
		m.NextOffset != 0 || m.BodyChars != textLen(m.Body) {
		t.Errorf("read_message: %+v", m)
	}
	if len(m.Attachments) != 1 || m.Attachments[0].Name != "report.pdf" || m.Attachments[0].Type != "application/pdf" ||
		m.Attachments[0].Size != int64(len(reportPDF)) || m.Attachments[0].ID == "" {
		t.Errorf("attachments: %+v", m.Attachments)
	}
	for _, want := range []string{"Message-ID: <report-1@example.com>", "Subject: Grüße und der Bericht", "the report (https://example.com/r)", "report.pdf (application/pdf"} {
		if !strings.Contains(txt, want) {
			t.Errorf("read_message's text lacks %q:\n%s", want, txt)
		}
	}
	e.callErr("read_message", map[string]any{"id": "nope"}, `there is no message "nope"`, "search shows")
	e.callErr("read_message", map[string]any{}, `missing properties: ["id"]`)
	e.callErr("read_message", map[string]any{"id": ""}, "id is required")
}

// A long body comes in pieces: offset goes on where the last one ended.
func TestReadMessageOffsets(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("ä", maxBodyChars-5) + "0123456789" + strings.Repeat("b", 100)
	id := e.deliver(ada, "From: bob@example.com\nTo: ada@example.com\nSubject: Long\nContent-Type: text/plain; charset=UTF-8\n\n"+long+"\n")
	var m Message
	txt := e.call("read_message", map[string]any{"id": id}, &m)
	if textLen(m.Body) != maxBodyChars || m.NextOffset != maxBodyChars || m.BodyChars != textLen(long) || !strings.HasSuffix(m.Body, "01234") {
		t.Fatalf("first piece: %d characters, next %d, of %d", textLen(m.Body), m.NextOffset, m.BodyChars)
	}
	if !strings.Contains(txt, "read_message with offset 20000 goes on") {
		t.Errorf("the text mirror does not say how to go on: …%s", txt[len(txt)-200:])
	}
	e.call("read_message", map[string]any{"id": id, "offset": m.NextOffset}, &m)
	if m.Body != "56789"+strings.Repeat("b", 100) || m.NextOffset != 0 {
		t.Errorf("second piece %q, next %d", m.Body, m.NextOffset)
	}
	e.callErr("read_message", map[string]any{"id": id, "offset": 50000}, "past the body's end")
}

func TestReadThread(t *testing.T) {
	e := newEnv(t)
	first := e.deliver(ada, lunchMail)
	second := e.deliver(ada, "From: Carol <carol@example.com>\nTo: bob@example.com, ada@example.com\nSubject: Re: Lunch on Friday?\n"+
		"Message-ID: <lunch-2@example.com>\nIn-Reply-To: <lunch-1@example.com>\nReferences: <plan-0@example.com> <lunch-1@example.com>\n\nNoon works.\n")
	var m Message
	e.call("read_message", map[string]any{"id": first}, &m)
	var th threadOut
	txt := e.call("read_thread", map[string]any{"id": m.ThreadID}, &th)
	if th.ThreadID != m.ThreadID || len(th.Messages) != 2 || th.Messages[0].ID != first || th.Messages[1].ID != second ||
		th.Messages[1].Body != "Noon works." || th.Messages[0].Body != "Shall we meet at noon?" {
		t.Errorf("thread: %+v", th)
	}
	if !strings.Contains(txt, "2 messages") || !strings.Contains(txt, "Noon works.") {
		t.Errorf("text: %s", txt)
	}
	e.callErr("read_thread", map[string]any{"id": "nope"}, `there is no thread "nope"`)
}

// The confirmation: a form with an empty schema, kept in mcptray's inbox,
// its button labelled Send; what it shows; accepted, the message goes
// out.
func TestSendConfirmedGoesOut(t *testing.T) {
	e := newEnv(t)
	body := "Hallo Bob,\n\nthe numbers are in.\n" + strings.Repeat("line\n", 20)
	var out sendOut
	txt := e.call("send", map[string]any{"to": []string{"Bob <bob@example.com>"}, "cc": []string{"carol@example.com"}, "bcc": []string{"dan@example.com"},
		"subject": "Zahlen für März ✓", "body": body}, &out)
	asked := e.asker.take()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	p := asked[0]
	schema, _ := json.Marshal(p.RequestedSchema)
	if p.Mode != "form" || string(schema) != `{"properties":{},"type":"object"}` || p.Meta[google.InboxMeta] != true || p.Meta[google.AcceptLabelMeta] != "Send" {
		t.Errorf("the confirmation: mode %q schema %s meta %v", p.Mode, schema, p.Meta)
	}
	for _, want := range []string{"From: ada@example.com", "To: Bob <bob@example.com>", "Cc: carol@example.com", "Bcc: dan@example.com",
		"Subject: Zahlen für März ✓", "Hallo Bob,", "the numbers are in.", "characters in all]"} {
		if !strings.Contains(p.Message, want) {
			t.Errorf("the confirmation does not show %q:\n%s", want, p.Message)
		}
	}
	if strings.Count(p.Message, "line") > previewLines {
		t.Errorf("the confirmation shows the whole body:\n%s", p.Message)
	}
	sent := e.fake.SentMessages(ada)
	if len(sent) != 1 || sent[0].ID != out.ID || sent[0].ThreadID != out.ThreadID {
		t.Fatalf("sent %+v, result %+v", sent, out)
	}
	if sent[0].Subject != "Zahlen für März ✓" || !strings.HasPrefix(sent[0].Header.Get("Subject"), "=?UTF-8?") {
		t.Errorf("the subject did not go out encoded and come back whole: %q (%q)", sent[0].Subject, sent[0].Header.Get("Subject"))
	}
	if !strings.Contains(txt, "Sent \"Zahlen für März ✓\"") || !strings.Contains(txt, out.ID) {
		t.Errorf("text: %s", txt)
	}
	// The search tool reads it back, whole.
	var m Message
	e.call("read_message", map[string]any{"id": out.ID}, &m)
	if m.Subject != "Zahlen für März ✓" || m.Body != strings.TrimSpace(body) || !slices.Contains(m.Labels, "SENT") {
		t.Errorf("read back: %+v", m)
	}
}

// Declined, cancelled or failed: nothing goes out, and the tool says so.
func TestSendNotConfirmed(t *testing.T) {
	e := newEnv(t)
	for _, answer := range []func(*sdk.ElicitParams) (*sdk.ElicitResult, error){
		answerWith("decline"), answerWith("cancel"),
		func(*sdk.ElicitParams) (*sdk.ElicitResult, error) { return nil, os.ErrDeadlineExceeded },
	} {
		e.asker.set(answer)
		e.callErr("send", map[string]any{"to": []string{bob}, "subject": "No", "body": "x"}, notConfirmed)
		if len(e.asker.take()) != 1 {
			t.Error("not asked")
		}
	}
	d := draftOut{}
	e.asker.set(nil)
	e.call("create_draft", map[string]any{"to": []string{bob}, "subject": "Draft", "body": "x"}, &d)
	if len(e.asker.take()) != 0 {
		t.Error("a draft asked for confirmation")
	}
	e.asker.set(answerWith("decline"))
	e.callErr("send_draft", map[string]any{"draft_id": d.DraftID}, notConfirmed)
	if n := len(e.fake.SentMessages(ada)); n != 0 {
		t.Errorf("%d messages sent", n)
	}
	var list listDraftsOut
	e.call("list_drafts", nil, &list)
	if len(list.Drafts) != 1 {
		t.Errorf("the declined draft is gone: %+v", list)
	}
}

// A client that cannot be asked cannot send; allow sends without asking.
func TestSendWithoutAsking(t *testing.T) {
	e := newEnv(t)
	plain := e.connect(nil)
	e.callErrOn(plain, "send", map[string]any{"to": []string{bob}, "subject": "x", "body": "x"},
		"sending needs the person's yes through mcptray", "nothing was sent", "create_draft")
	if n := len(e.fake.SentMessages(ada)); n != 0 {
		t.Errorf("%d sent", n)
	}

	allow := newEnv(t, func(o *Options) { o.Send = SendAllow })
	plain = allow.connect(nil)
	var out sendOut
	allow.callOn(plain, "send", map[string]any{"to": []string{bob}, "subject": "Allowed", "body": "x"}, &out)
	allow.call("send", map[string]any{"to": []string{bob}, "subject": "Allowed too", "body": "x"}, &out)
	if n := len(allow.fake.SentMessages(ada)); n != 2 || len(allow.asker.take()) != 0 {
		t.Errorf("allow: %d sent", n)
	}
	res, err := allow.client.ListTools(t.Context(), nil)
	must(t, err)
	for _, tool := range res.Tools {
		if tool.Name == "send" && strings.Contains(tool.Description, "confirms") {
			t.Errorf("under allow send says %q", tool.Description)
		}
	}
}

// A reply threads: threadId, In-Reply-To and References from the
// original, "Re: " once, to the sender; reply_all adds To and Cc, never
// the account itself.
func TestThreadedReply(t *testing.T) {
	e := newEnv(t)
	e.fake.AddSendAs(ada, "ada@work.example")
	orig := e.deliver(ada, lunchMail)
	var o Message
	e.call("read_message", map[string]any{"id": orig}, &o)
	var out sendOut
	e.call("send", map[string]any{"reply_to_message_id": orig, "body": "Yes, noon."}, &out)
	if c := e.asker.take(); len(c) != 1 || !strings.Contains(c[0].Message, `In reply to: "Lunch on Friday?" from Bob <bob@example.com>`) {
		t.Errorf("the confirmation of a reply: %+v", c)
	}
	r := e.stored(ada, out.ID)
	if r.ThreadID != o.ThreadID || out.ThreadID != o.ThreadID {
		t.Errorf("the reply is in thread %s, the original in %s", r.ThreadID, o.ThreadID)
	}
	h := r.Header
	if h.Get("In-Reply-To") != "<lunch-1@example.com>" || strings.Join(strings.Fields(h.Get("References")), " ") != "<plan-0@example.com> <lunch-1@example.com>" ||
		h.Get("Subject") != "Re: Lunch on Friday?" || h.Get("To") != `"Bob" <bob@example.com>` || h.Get("Cc") != "" {
		t.Errorf("reply headers: %v", h)
	}
	if !slices.Contains(r.Labels, "SENT") {
		t.Errorf("labels %v", r.Labels)
	}

	// Reply all, to a subject that is a reply already.
	second := e.deliver(ada, "From: Carol <carol@example.com>\nTo: bob@example.com, ada@work.example\nCc: ada@example.com, dan@example.com\n"+
		"Subject: RE: Lunch on Friday?\nMessage-ID: <lunch-2@example.com>\nIn-Reply-To: <lunch-1@example.com>\n\nNoon works.\n")
	e.call("send", map[string]any{"reply_to_message_id": second, "reply_all": true, "body": "See you."}, &out)
	h = e.stored(ada, out.ID).Header
	if h.Get("Subject") != "RE: Lunch on Friday?" || h.Get("To") != `"Carol" <carol@example.com>` ||
		h.Get("Cc") != "<bob@example.com>, <dan@example.com>" || h.Get("References") != "<lunch-1@example.com> <lunch-2@example.com>" {
		t.Errorf("reply all: %v", h)
	}
	if e.stored(ada, out.ID).ThreadID != o.ThreadID {
		t.Error("reply all left the thread")
	}
	e.callErr("send", map[string]any{"reply_to_message_id": "nope", "body": "x"}, "reply_to_message_id", `no message "nope"`)
	e.callErr("send", map[string]any{"reply_all": true, "to": []string{bob}}, "reply_all needs reply_to_message_id")
	e.callErr("send", map[string]any{"subject": "to nobody"}, "to is required")
	e.callErr("send", map[string]any{"to": []string{"bob"}}, `to: "bob" is not an email address`)
}

// The From is the account's default send-as address, with its name.
func TestSendAsDefault(t *testing.T) {
	e := newEnv(t)
	e.fake.AddSendAs(ada, "ada@work.example")
	email := ada
	si, err := e.srv.sender(t.Context(), nil, &email)
	must(t, err)
	if si.from.Address != ada || !slices.Contains(si.own, "ada@work.example") {
		t.Errorf("sender %+v", si)
	}
	if n := e.fake.GmailRequests("GET /gmail/v1/users/{userId}/settings/sendAs"); n != 1 {
		t.Errorf("%d sendAs requests", n)
	}
}

func TestDrafts(t *testing.T) {
	e := newEnv(t)
	orig := e.deliver(ada, lunchMail)
	var d draftOut
	txt := e.call("create_draft", map[string]any{"reply_to_message_id": orig, "body": "Draft reply"}, &d)
	if d.DraftID == "" || d.MessageID == "" || !strings.Contains(txt, "Saved draft "+d.DraftID) {
		t.Fatalf("create_draft: %+v %s", d, txt)
	}
	var o Message
	e.call("read_message", map[string]any{"id": orig}, &o)
	if d.ThreadID != o.ThreadID {
		t.Errorf("the draft reply is in thread %s, not %s", d.ThreadID, o.ThreadID)
	}
	var d2 draftOut
	e.call("create_draft", map[string]any{"to": []string{"carol@example.com"}, "subject": "Other", "body": "x"}, &d2)
	var list listDraftsOut
	e.call("list_drafts", nil, &list)
	if len(list.Drafts) != 2 {
		t.Fatalf("drafts %+v", list)
	}
	i := slices.IndexFunc(list.Drafts, func(x DraftSummary) bool { return x.ID == d.DraftID })
	if i < 0 || list.Drafts[i].Subject != "Re: Lunch on Friday?" || list.Drafts[i].To != `"Bob" <bob@example.com>` && list.Drafts[i].To != "Bob <bob@example.com>" {
		t.Errorf("listed %+v", list.Drafts)
	}

	var out sendOut
	e.call("send_draft", map[string]any{"draft_id": d.DraftID}, &out)
	if c := e.asker.take(); len(c) != 1 || !strings.Contains(c[0].Message, "Subject: Re: Lunch on Friday?") || !strings.Contains(c[0].Message, "Draft reply") {
		t.Errorf("send_draft's confirmation: %+v", c)
	}
	sent := e.fake.SentMessages(ada)
	if len(sent) != 1 || sent[0].ID != out.ID || sent[0].ThreadID != o.ThreadID || sent[0].Header.Get("In-Reply-To") != "<lunch-1@example.com>" {
		t.Errorf("sent %+v", sent)
	}
	e.call("delete_draft", map[string]any{"draft_id": d2.DraftID}, nil)
	e.call("list_drafts", nil, &list)
	if len(list.Drafts) != 0 {
		t.Errorf("drafts left: %+v", list.Drafts)
	}
	e.callErr("delete_draft", map[string]any{"draft_id": d2.DraftID}, "there is no draft")
	// A draft may wait for its recipients; sending it then says so.
	var d3 draftOut
	if txt := e.call("create_draft", map[string]any{"subject": "Ideas", "body": "later"}, &d3); !strings.Contains(txt, "to nobody yet") {
		t.Errorf("create_draft without recipients: %s", txt)
	}
	e.callErr("send_draft", map[string]any{"draft_id": d3.DraftID}, "has no recipient", "nothing was sent")
	e.callErr("send_draft", map[string]any{"draft_id": "nope"}, `there is no draft "nope"`, "list_drafts")
}

func TestLabelsModifyTrash(t *testing.T) {
	e := newEnv(t)
	a := e.deliver(ada, lunchMail)
	b := e.deliver(ada, reportMail)
	var cl createLabelOut
	e.call("create_label", map[string]any{"name": "Projects/Q4"}, &cl)
	if !cl.Created || cl.Label.Name != "Projects/Q4" || cl.Label.ID == "" {
		t.Errorf("create_label: %+v", cl)
	}
	id := cl.Label.ID
	e.call("create_label", map[string]any{"name": "projects/q4"}, &cl)
	if cl.Created || cl.Label.ID != id {
		t.Errorf("create_label again: %+v", cl)
	}
	var ll listLabelsOut
	e.call("list_labels", nil, &ll)
	if !slices.ContainsFunc(ll.Labels, func(l Label) bool { return l.ID == "INBOX" && l.Type == "system" }) ||
		!slices.ContainsFunc(ll.Labels, func(l Label) bool { return l.ID == id && l.Type == "user" }) {
		t.Errorf("labels %+v", ll.Labels)
	}

	var mo modifyOut
	e.call("modify", map[string]any{"ids": []string{a, b}, "add_labels": []string{"projects/q4"}, "read": true, "star": true, "archive": true}, &mo)
	if mo.Modified != 2 || !slices.Contains(mo.Added, id) || !slices.Contains(mo.Added, "STARRED") || !slices.Contains(mo.Removed, "UNREAD") || !slices.Contains(mo.Removed, "INBOX") {
		t.Errorf("modify: %+v", mo)
	}
	for _, m := range []string{a, b} {
		labels := e.stored(ada, m).Labels
		if !slices.Contains(labels, id) || !slices.Contains(labels, "STARRED") || slices.Contains(labels, "UNREAD") || slices.Contains(labels, "INBOX") {
			t.Errorf("%s labels %v", m, labels)
		}
	}
	var s searchOut
	e.call("search", map[string]any{"query": "label:projects-q4 is:starred"}, &s)
	if len(s.Messages) != 2 || !slices.Contains(s.Messages[0].Labels, "Projects/Q4") {
		t.Errorf("search by the new label: %+v", s.Messages)
	}
	var m Message
	e.call("read_message", map[string]any{"id": a}, &m)
	if !slices.Contains(m.Labels, "Projects/Q4") {
		t.Errorf("labels are not named: %v", m.Labels)
	}
	e.call("modify", map[string]any{"ids": []string{a}, "read": false, "star": false, "remove_labels": []string{id}}, &mo)
	if labels := e.stored(ada, a).Labels; !slices.Contains(labels, "UNREAD") || slices.Contains(labels, "STARRED") || slices.Contains(labels, id) {
		t.Errorf("undone: %v", labels)
	}
	e.callErr("modify", map[string]any{"ids": []string{a}, "add_labels": []string{"Nope"}}, `add_labels: there is no label "Nope"`, "create_label")
	e.callErr("modify", map[string]any{"ids": []string{a}}, "nothing to change")
	e.callErr("modify", map[string]any{"ids": []string{}}, "ids is required")
	e.callErr("modify", map[string]any{"ids": make([]string, 1001)}, "at most 1000")
	e.callErr("modify", map[string]any{"ids": []string{a}, "add_labels": []string{"STARRED"}, "star": false}, "both added and removed")

	var tr trashOut
	e.call("trash", map[string]any{"ids": []string{a, "nope"}}, &tr)
	if len(tr.Trashed) != 1 || tr.Trashed[0] != a || len(tr.Failed) != 1 || !strings.Contains(tr.Failed[0], "nope") {
		t.Errorf("trash: %+v", tr)
	}
	if labels := e.stored(ada, a).Labels; !slices.Contains(labels, "TRASH") {
		t.Errorf("trashed labels %v", labels)
	}
	if len(e.fake.Messages(ada)) != 2 {
		t.Error("a message was deleted for good")
	}
	e.callErr("trash", map[string]any{"ids": []string{"nope"}}, "nothing was trashed")
}

// Attachments go out from files inside the local roots and come back
// into files in the download folder, never over an existing one; their
// bytes are never in a result.
func TestAttachmentsAsFiles(t *testing.T) {
	e := newEnv(t)
	file := filepath.Join(e.home, "Übersicht.pdf")
	must(t, os.WriteFile(file, []byte(reportPDF), 0o600))
	outside := filepath.Join(t.TempDir(), "secret.txt")
	must(t, os.WriteFile(outside, []byte("secret"), 0o600))

	e.callErr("send", map[string]any{"to": []string{bob}, "subject": "x", "attachments": []string{outside}},
		"is outside the folders mcptray may read (x-mcptray.localRoots: "+e.home+")")
	e.callErr("create_draft", map[string]any{"to": []string{bob}, "subject": "x", "attachments": []string{outside}}, "outside the folders")
	if len(e.asker.take()) != 0 || len(e.fake.SentMessages(ada)) != 0 {
		t.Error("a refused attachment was asked about or sent")
	}

	var out sendOut
	e.call("send", map[string]any{"to": []string{bob}, "subject": "The report", "body": "Attached.", "attachments": []string{"~/Übersicht.pdf"}}, &out)
	if c := e.asker.take(); len(c) != 1 || !strings.Contains(c[0].Message, "Attachments: Übersicht.pdf (") {
		t.Errorf("the confirmation does not list the attachment: %+v", c)
	}
	var m Message
	e.call("read_message", map[string]any{"id": out.ID}, &m)
	if len(m.Attachments) != 1 || m.Attachments[0].Name != "Übersicht.pdf" || m.Attachments[0].Type != "application/pdf" {
		t.Fatalf("sent attachments: %+v", m.Attachments)
	}

	// A large message goes as an upload (message/rfc822), a draft too.
	e.srv.uploadAbove = 1000
	big := filepath.Join(e.home, "big.bin")
	must(t, os.WriteFile(big, make([]byte, 5000), 0o600))
	e.call("send", map[string]any{"to": []string{bob}, "subject": "Big", "attachments": []string{big}}, &out)
	var d draftOut
	e.call("create_draft", map[string]any{"to": []string{bob}, "subject": "Big draft", "attachments": []string{big}}, &d)
	e.asker.take()
	if n := e.fake.GmailRequests("POST /upload/gmail/v1/users/me/messages/send") + e.fake.GmailRequests("POST /upload/gmail/v1/users/me/drafts"); n != 2 {
		t.Errorf("%d uploads, want 2", n)
	}
	e.call("read_message", map[string]any{"id": out.ID}, &m)
	if len(m.Attachments) != 1 || m.Attachments[0].Size != 5000 || m.Subject != "Big" {
		t.Errorf("the uploaded message: %+v", m)
	}

	in := e.deliver(ada, reportMail)
	e.call("read_message", map[string]any{"id": in}, &m)
	var dl downloadOut
	res := e.callRaw(e.client, "download_attachment", map[string]any{"message_id": in, "attachment_id": m.Attachments[0].ID})
	b, _ := json.Marshal(res)
	if res.IsError || strings.Contains(string(b), "JVBERi") || strings.Contains(string(b), "%PDF") {
		t.Fatalf("download_attachment: %s", b)
	}
	must(t, json.Unmarshal(must2(json.Marshal(res.StructuredContent)), &dl))
	got, _ := os.ReadFile(dl.Path)
	if dl.Path != filepath.Join(e.download, "report.pdf") || string(got) != reportPDF || dl.Size != int64(len(reportPDF)) || dl.Type != "application/pdf" {
		t.Errorf("downloaded %+v: %q", dl, got)
	}
	e.call("download_attachment", map[string]any{"message_id": in, "attachment_id": m.Attachments[0].ID}, &dl)
	if dl.Path != filepath.Join(e.download, "report (1).pdf") {
		t.Errorf("the second download is %s", dl.Path)
	}
	if got2, _ := os.ReadFile(filepath.Join(e.download, "report.pdf")); string(got2) != reportPDF {
		t.Error("the first download was overwritten")
	}
	e.callErr("download_attachment", map[string]any{"message_id": in, "attachment_id": "9"}, `has no attachment "9"`, "report.pdf")
}

func must2(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// A 429 and a 403 userRateLimitExceeded are retried; five in a row fail
// saying to wait.
func TestRateLimitsAreRetried(t *testing.T) {
	e := newEnv(t)
	e.deliver(ada, lunchMail)
	e.fake.InjectRateLimits(googletest.RateLimit{Code: http.StatusTooManyRequests, RetryAfter: "1", API: googletest.APIGmail},
		googletest.RateLimit{Code: http.StatusForbidden, Reason: "userRateLimitExceeded", API: googletest.APIGmail})
	var out searchOut
	e.call("search", nil, &out)
	if len(out.Messages) != 1 {
		t.Errorf("messages %+v", out.Messages)
	}
	if n := e.fake.GmailRequests("GET /gmail/v1/users/{userId}/messages"); n != 3 {
		t.Errorf("%d list requests, want 2 refused and 1 answered", n)
	}
	limits := make([]googletest.RateLimit, 5)
	for i := range limits {
		limits[i] = googletest.RateLimit{Code: http.StatusTooManyRequests, API: googletest.APIGmail}
	}
	e.fake.InjectRateLimits(limits...)
	e.callErr("list_labels", nil, "rate-limited", "5 times", "try again")
}

// Without the Gmail scope the error says how to grant it.
func TestMissingScopeSaysHowToFix(t *testing.T) {
	e := newEnv(t)
	e.accounts.scopes = []string{googletest.CalendarScope}
	e.callErr("search", nil, "has not granted Gmail access", "mcptray auth google add --scopes gmail")
}

// A call whose account must sign in asks SignIn once and succeeds after
// it; without SignIn it says how to sign in; an unknown account is named.
func TestSignInThenRetry(t *testing.T) {
	var asked []string
	var e *env
	e = newEnv(t, func(o *Options) {
		o.SignIn = func(_ context.Context, ss *sdk.ServerSession, email string, why error) error {
			if ss == nil {
				t.Error("SignIn without a session")
			}
			asked = append(asked, email)
			e.accounts.signIn(email)
			return nil
		}
	})
	e.accounts.needSignIn[ada] = true
	e.call("list_labels", nil, nil)
	if len(asked) != 1 || asked[0] != ada {
		t.Errorf("sign-ins asked: %v", asked)
	}
	e.accounts.emails = nil
	asked = nil
	e.accounts.signInAs = bob
	var out searchOut
	e.call("search", nil, &out)
	if len(asked) != 1 || asked[0] != "" {
		t.Errorf("first sign-in: asked %q", asked)
	}
	e.callErr("search", map[string]any{"account": "eve@example.com"}, "no Google account eve@example.com", bob)

	plain := newEnv(t)
	plain.accounts.needSignIn[ada] = true
	plain.callErr("search", nil, "needs to sign in again", "mcptray auth google add")
}
