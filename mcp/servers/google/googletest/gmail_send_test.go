package googletest

import (
	"bytes"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"testing"

	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
)

func TestGmailSendThreading(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	in := deliver(t, s, ada, rawMail(bob, ada, "Dinner", "Friday?", "Message-ID: <d1@example.org>"))

	// A new message: SENT, in a thread of its own, with what Gmail adds.
	m, err := svc.Users.Messages.Send("me", &gmail.Message{Raw: b64(rawMail("Ada <ada@example.com>", bob, "Hello", "hi"))}).Do()
	if err != nil || m.ThreadId != m.Id || !slices.Equal(m.LabelIds, []string{"SENT"}) {
		t.Fatalf("sent %+v, %v", m, err)
	}
	sent := s.SentMessages(ada)
	if len(sent) != 1 || !strings.HasSuffix(sent[0].Header.Get("Message-ID"), "@mail.gmail.com>") || sent[0].Header.Get("Date") == "" ||
		sent[0].Header.Get("From") != "Ada <ada@example.com>" {
		t.Errorf("stored %+v", sent)
	}

	// By threadId with a matching subject.
	r1, err := svc.Users.Messages.Send("me", &gmail.Message{ThreadId: in,
		Raw: b64(rawMail(ada, bob, "Re: Dinner", "yes", "In-Reply-To: <d1@example.org>", "References: <d1@example.org>"))}).Do()
	if err != nil || r1.ThreadId != in {
		t.Errorf("reply by threadId: %+v, %v", r1, err)
	}
	// A threadId with another subject starts a thread, as Google requires
	// the subjects to match.
	r2, err := svc.Users.Messages.Send("me", &gmail.Message{ThreadId: in, Raw: b64(rawMail(ada, bob, "Something else", "x"))}).Do()
	if err != nil || r2.ThreadId != r2.Id {
		t.Errorf("subject mismatch: %+v, %v", r2, err)
	}
	// By References alone, naming a stored Message-ID.
	r3, err := svc.Users.Messages.Send("me", &gmail.Message{
		Raw: b64(rawMail(ada, bob, "Fwd: RE: dinner", "fwd", "References: <x@y> <d1@example.org>"))}).Do()
	if err != nil || r3.ThreadId != in {
		t.Errorf("reply by References: %+v, %v", r3, err)
	}
	// By In-Reply-To naming a message Gmail gave its Message-ID.
	sentID := sent[0].Header.Get("Message-ID")
	r4, err := svc.Users.Messages.Send("me", &gmail.Message{Raw: b64(rawMail(ada, bob, "Re: Hello", "again", "In-Reply-To: "+sentID))}).Do()
	if err != nil || r4.ThreadId != m.Id {
		t.Errorf("reply by In-Reply-To: %+v, %v", r4, err)
	}
	th, _ := svc.Users.Threads.Get("me", in).Format("minimal").Do()
	if !slices.Equal(ids(th.Messages), []string{in, r1.Id, r3.Id}) {
		t.Errorf("thread %v", ids(th.Messages))
	}

	_, err = svc.Users.Messages.Send("me", &gmail.Message{ThreadId: "0000000000000001", Raw: b64(rawMail(ada, bob, "x", "y"))}).Do()
	wantAPIError(t, err, 404, "not found")
	_, err = svc.Users.Messages.Send("me", &gmail.Message{Raw: b64(rawMail(ada, "", "x", "y"))}).Do()
	wantAPIError(t, err, 400, "Recipient address required")
	_, err = svc.Users.Messages.Send("me", &gmail.Message{Raw: b64(rawMail(ada, "bob@@", "x", "y"))}).Do()
	wantAPIError(t, err, 400, "Invalid To header")
	_, err = svc.Users.Messages.Send("me", &gmail.Message{}).Do()
	wantAPIError(t, err, 400, "'raw' RFC822 payload")
	if n := len(s.SentMessages(ada)); n != 5 {
		t.Errorf("%d sent after refusals", n)
	}
}

func TestGmailSendAs(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	s.AddSendAs(ada, "ada@work.example")
	list, err := svc.Users.Settings.SendAs.List("me").Do()
	if err != nil || len(list.SendAs) != 2 || list.SendAs[0].SendAsEmail != ada || !list.SendAs[0].IsPrimary ||
		!list.SendAs[0].IsDefault || list.SendAs[1].SendAsEmail != "ada@work.example" || list.SendAs[1].IsDefault {
		t.Errorf("sendAs %+v, %v", list, err)
	}
	if _, err := svc.Users.Settings.SendAs.Get("me", "ada@work.example").Do(); err != nil {
		t.Error(err)
	}
	_, err = svc.Users.Settings.SendAs.Get("me", "eve@example.com").Do()
	wantAPIError(t, err, 404, "not found")

	for _, from := range []string{"Ada at work <ada@work.example>", "Eve <eve@example.com>", ""} {
		raw := rawMail(from, bob, "from "+from, "x")
		if from == "" {
			raw = []byte("To: " + bob + "\r\nSubject: no from\r\n\r\nx\r\n")
		}
		_, err := svc.Users.Messages.Send("me", &gmail.Message{Raw: b64(raw)}).Do()
		must(t, err)
	}
	var froms []string
	for _, m := range s.SentMessages(ada) {
		froms = append(froms, m.Header.Get("From"))
	}
	// An address that is no send-as alias is replaced by the account's,
	// as Gmail does; a missing From is added.
	if want := []string{"Ada at work <ada@work.example>", `"Eve" <ada@example.com>`, "<ada@example.com>"}; !slices.Equal(froms, want) {
		t.Errorf("From headers %q, want %q", froms, want)
	}

	// Mail to oneself also lands in the inbox.
	m, err := svc.Users.Messages.Send("me", &gmail.Message{Raw: b64(rawMail(ada, "Me <ada@work.example>", "note", "x"))}).Do()
	if err != nil || !slices.Contains(m.LabelIds, "INBOX") {
		t.Errorf("sent to self: %+v, %v", m, err)
	}
	p, err := svc.Users.GetProfile("me").Do()
	if err != nil || p.EmailAddress != ada || p.MessagesTotal != 4 || p.ThreadsTotal != 4 || p.HistoryId != s.GmailHistoryID(ada) {
		t.Errorf("profile %+v, %v", p, err)
	}
}

func TestGmailDrafts(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	in := deliver(t, s, ada, rawMail(bob, ada, "Trip", "when?", "Message-ID: <t1@example.org>"))
	d, err := svc.Users.Drafts.Create("me", &gmail.Draft{Message: &gmail.Message{ThreadId: in,
		Raw: b64(rawMail(ada, bob, "Re: Trip", "draft one", "In-Reply-To: <t1@example.org>"))}}).Do()
	if err != nil || !strings.HasPrefix(d.Id, "r") || d.Message.ThreadId != in || !slices.Equal(d.Message.LabelIds, []string{"DRAFT"}) {
		t.Fatalf("draft %+v, %v", d, err)
	}
	first := d.Message.Id
	if l, _ := svc.Users.Messages.List("me").Q("in:drafts").Do(); !slices.Equal(ids(l.Messages), []string{first}) {
		t.Errorf("draft message not listed: %v", ids(l.Messages))
	}
	upd, err := svc.Users.Drafts.Update("me", d.Id, &gmail.Draft{Message: &gmail.Message{
		Raw: b64(rawMail(ada, bob, "Re: Trip", "draft two", "In-Reply-To: <t1@example.org>"))}}).Do()
	if err != nil || upd.Id != d.Id || upd.Message.Id == first || upd.Message.ThreadId != in {
		t.Errorf("updated %+v, %v", upd, err)
	}
	got, err := svc.Users.Drafts.Get("me", d.Id).Format("raw").Do()
	if raw, _ := decodeRaw(got.Message.Raw); err != nil || !bytes.Contains(raw, []byte("draft two")) {
		t.Errorf("draft raw %q, %v", raw, err)
	}
	got, err = svc.Users.Drafts.Get("me", d.Id).Do()
	if err != nil || got.Message.Payload == nil || got.Message.Snippet != "draft two" {
		t.Errorf("draft full %+v, %v", got, err)
	}
	other, err := svc.Users.Drafts.Create("me", &gmail.Draft{Message: &gmail.Message{Raw: b64(rawMail(ada, "", "Idea", "no recipient yet"))}}).Do()
	must(t, err)
	list, err := svc.Users.Drafts.List("me").Do()
	if err != nil || len(list.Drafts) != 2 || list.ResultSizeEstimate != 2 {
		t.Errorf("drafts %+v, %v", list, err)
	}
	list, err = svc.Users.Drafts.List("me").Q("subject:idea").Do()
	if err != nil || len(list.Drafts) != 1 || list.Drafts[0].Id != other.Id || list.Drafts[0].Message.Id != other.Message.Id {
		t.Errorf("drafts q %+v, %v", list, err)
	}

	// Sending needs a recipient, and a refused send leaves the draft.
	_, err = svc.Users.Drafts.Send("me", &gmail.Draft{Id: other.Id}).Do()
	wantAPIError(t, err, 400, "Recipient address required")
	if _, err := svc.Users.Drafts.Get("me", other.Id).Do(); err != nil {
		t.Errorf("the refused draft is gone: %v", err)
	}
	m, err := svc.Users.Drafts.Send("me", &gmail.Draft{Id: d.Id}).Do()
	if err != nil || m.Id == upd.Message.Id || m.ThreadId != in || !slices.Equal(m.LabelIds, []string{"SENT"}) {
		t.Errorf("sent draft %+v, %v", m, err)
	}
	_, err = svc.Users.Drafts.Get("me", d.Id).Do()
	wantAPIError(t, err, 404, "not found")
	// Sending with a new message replaces the draft's first.
	m, err = svc.Users.Drafts.Send("me", &gmail.Draft{Id: other.Id, Message: &gmail.Message{Raw: b64(rawMail(ada, bob, "Idea", "final"))}}).Do()
	if err != nil || m.ThreadId != m.Id {
		t.Errorf("sent replaced draft %+v, %v", m, err)
	}
	sent := s.SentMessages(ada)
	if len(sent) != 2 || !bytes.Contains(sent[1].Raw, []byte("final")) || slices.Contains(sent[0].Labels, "DRAFT") {
		t.Errorf("sent %+v", sent)
	}

	d3, err := svc.Users.Drafts.Create("me", &gmail.Draft{Message: &gmail.Message{Raw: b64(rawMail(ada, bob, "bin", "x"))}}).Do()
	must(t, err)
	must(t, svc.Users.Drafts.Delete("me", d3.Id).Do())
	err = svc.Users.Drafts.Delete("me", d3.Id).Do()
	wantAPIError(t, err, 404, "not found")
	_, err = svc.Users.Drafts.Create("me", &gmail.Draft{}).Do()
	wantAPIError(t, err, 400, "Missing draft message")
	if n := len(s.Messages(ada)); n != 3 {
		t.Errorf("%d messages: the incoming and the two sent", n)
	}
}

func TestGmailUploads(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	// A message with a large attachment, sent with Media: multipart when
	// it fits one chunk, resumable in chunks when it does not.
	var b strings.Builder
	b.WriteString("From: ada@example.com\r\nTo: bob@example.org\r\nSubject: big\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n--b\r\n" +
		"Content-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=blob.bin\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	for i := range 12000 {
		fmt.Fprintf(&b, "%076d\r\n", i)
	}
	b.WriteString("--b--\r\n")
	raw := []byte(b.String())

	m, err := svc.Users.Messages.Send("me", &gmail.Message{}).Media(bytes.NewReader(raw), googleapi.ContentType("message/rfc822")).Do()
	must(t, err)
	m2, err := svc.Users.Messages.Send("me", &gmail.Message{ThreadId: m.Id}).
		Media(bytes.NewReader(raw), googleapi.ContentType("message/rfc822"), googleapi.ChunkSize(256*1024)).Do()
	must(t, err)
	if m2.ThreadId != m.Id {
		t.Errorf("the resumable upload's threadId was lost: %+v", m2)
	}
	for _, st := range s.SentMessages(ada) {
		if _, err := mail.ReadMessage(bytes.NewReader(st.Raw)); err != nil || len(st.Raw) < len(raw) || !bytes.HasSuffix(st.Raw, raw[len(raw)-200:]) {
			t.Errorf("uploaded message stored %d bytes, %v", len(st.Raw), err)
		}
	}
	if n := s.GmailRequests("POST /upload/gmail/v1/users/{userId}/messages/send"); n < 3 {
		t.Errorf("%d upload requests: want one multipart, then a resumable start and its chunks", n)
	}
	full, err := svc.Users.Messages.Get("me", m2.Id).Do()
	must(t, err)
	att := full.Payload.Parts[1]
	body, err := svc.Users.Messages.Attachments.Get("me", m2.Id, att.Body.AttachmentId).Do()
	if err != nil || att.Filename != "blob.bin" || body.Size != att.Body.Size || body.Size < 600000 {
		t.Errorf("attachment %+v / %d, %v", att, body.Size, err)
	}

	d, err := svc.Users.Drafts.Create("me", &gmail.Draft{}).Media(bytes.NewReader(rawMail(ada, bob, "up", "draft"))).Do()
	must(t, err)
	d, err = svc.Users.Drafts.Update("me", d.Id, &gmail.Draft{}).
		Media(bytes.NewReader(raw), googleapi.ContentType("message/rfc822"), googleapi.ChunkSize(256*1024)).Do()
	must(t, err)
	got, err := svc.Users.Drafts.Get("me", d.Id).Format("metadata").Do()
	if err != nil || header(got.Message.Payload, "Subject") != "big" {
		t.Errorf("draft updated by a resumable upload: %+v, %v", got, err)
	}
	ins, err := svc.Users.Messages.Insert("me", &gmail.Message{LabelIds: []string{"INBOX"}}).Media(bytes.NewReader(rawMail(bob, ada, "ins", "x"))).Do()
	if err != nil || !slices.Equal(ins.LabelIds, []string{"INBOX"}) {
		t.Errorf("insert upload %+v, %v", ins, err)
	}
}
