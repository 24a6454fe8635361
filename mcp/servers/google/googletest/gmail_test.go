package googletest

import (
	"context"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/gmail/v1"
	"google.golang.org/api/option"
)

const (
	ada = "ada@example.com"
	bob = "bob@example.org"
)

// gmailService is the real gmail/v1 client of email on the fake, with an
// access token for scopes (gmail.modify when none is given).
func gmailService(t *testing.T, s *Server, email string, scopes ...string) *gmail.Service {
	t.Helper()
	if len(scopes) == 0 {
		scopes = []string{GmailModifyScope}
	}
	tok := s.IssueAccessToken(email, scopes, time.Hour)
	svc, err := gmail.NewService(context.Background(), option.WithHTTPClient(&http.Client{Transport: calBearer(tok)}),
		option.WithEndpoint(s.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// rawMail is a plain-text message; extra are more header lines.
func rawMail(from, to, subject, body string, extra ...string) []byte {
	var b strings.Builder
	b.WriteString("From: " + from + "\r\n")
	if to != "" {
		b.WriteString("To: " + to + "\r\n")
	}
	b.WriteString("Subject: " + subject + "\r\n")
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("Content-Type: text/plain; charset=UTF-8\r\n\r\n" + body + "\r\n")
	return []byte(b.String())
}

func b64(raw []byte) string { return base64.URLEncoding.EncodeToString(raw) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func deliver(t *testing.T, s *Server, email string, raw []byte, labels ...string) string {
	t.Helper()
	id, err := s.DeliverMessage(email, raw, labels...)
	must(t, err)
	return id
}

func header(p *gmail.MessagePart, name string) string {
	for _, h := range p.Headers {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

func ids(msgs []*gmail.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Id)
	}
	return out
}

func TestGmailScopes(t *testing.T) {
	s := newTestServer(t)
	id := deliver(t, s, ada, rawMail(bob, ada, "hi", "hello"))

	_, err := gmailService(t, s, ada, "openid").Users.Messages.List("me").Do()
	wantAPIError(t, err, 403, "insufficient authentication scopes")

	ro := gmailService(t, s, ada, GmailReadonlyScope)
	if _, err := ro.Users.Messages.Get("me", id).Do(); err != nil {
		t.Errorf("gmail.readonly reads: %v", err)
	}
	_, err = ro.Users.Messages.Modify("me", id, &gmail.ModifyMessageRequest{AddLabelIds: []string{"STARRED"}}).Do()
	wantAPIError(t, err, 403, "insufficient")
	_, err = ro.Users.Messages.Send("me", &gmail.Message{Raw: b64(rawMail(ada, bob, "x", "y"))}).Do()
	wantAPIError(t, err, 403, "insufficient")

	mod := gmailService(t, s, ada)
	err = mod.Users.Messages.Delete("me", id).Do()
	wantAPIError(t, err, 403, "insufficient")
	err = mod.Users.Messages.BatchDelete("me", &gmail.BatchDeleteMessagesRequest{Ids: []string{id}}).Do()
	wantAPIError(t, err, 403, "insufficient")
	err = mod.Users.Threads.Delete("me", id).Do()
	wantAPIError(t, err, 403, "insufficient")

	meta := gmailService(t, s, ada, GmailMetadataScope)
	_, err = meta.Users.Messages.List("me").Q("hello").Do()
	wantAPIError(t, err, 403, "Metadata scope does not support 'q' parameter")
	_, err = meta.Users.Messages.Get("me", id).Do()
	wantAPIError(t, err, 403, "Metadata scope doesn't allow format FULL")
	if m, err := meta.Users.Messages.Get("me", id).Format("metadata").Do(); err != nil || header(m.Payload, "Subject") != "hi" {
		t.Errorf("metadata with gmail.metadata: %+v, %v", m, err)
	}

	if _, err := meta.Users.Labels.Get("me", "INBOX").Do(); err != nil {
		t.Errorf("labels.get with gmail.metadata: %v", err)
	}
	_, err = meta.Users.Messages.Attachments.Get("me", id, "x").Do()
	wantAPIError(t, err, 403, "insufficient")

	_, err = mod.Users.Messages.List(bob).Do()
	wantAPIError(t, err, 403, "Delegation denied")
	if _, err := mod.Users.Messages.List(ada).Do(); err != nil {
		t.Errorf("the account's own address as userId: %v", err)
	}
	bad, _ := gmail.NewService(context.Background(), option.WithHTTPClient(&http.Client{Transport: calBearer("ya29.unknown")}),
		option.WithEndpoint(s.URL+"/"))
	_, err = bad.Users.GetProfile("me").Do()
	wantAPIError(t, err, 401, "invalid authentication")

	full := gmailService(t, s, ada, GmailFullScope)
	must(t, full.Users.Messages.Delete("me", id).Do())
	if n := len(s.Messages(ada)); n != 0 {
		t.Errorf("%d messages after the delete", n)
	}
}

const multipartMail = "From: =?UTF-8?Q?Jos=C3=A9_Bl=C3=A1?= <jose@example.net>\r\n" +
	"To: Ada <ada@example.com>\r\n" +
	"Subject: =?UTF-8?B?UmU6IENhZsOpIOKYlSBtZWV0aW5n?=\r\n" +
	"Message-ID: <m1@example.net>\r\n" +
	"Date: Tue, 01 Dec 2026 09:00:00 +0100\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/mixed; boundary=\"outer\"\r\n" +
	"\r\n" +
	"preamble\r\n" +
	"--outer\r\n" +
	"Content-Type: multipart/alternative; boundary=inner\r\n" +
	"\r\n" +
	"--inner\r\n" +
	"Content-Type: text/plain; charset=UTF-8\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n" +
	"\r\n" +
	"Caf=C3=A9 at <10>, don't be late =\r\n" +
	"& bring the \"slides\".\r\n" +
	"--inner\r\n" +
	"Content-Type: text/html; charset=UTF-8\r\n" +
	"\r\n" +
	"<p>Café at 10</p>\r\n" +
	"--inner--\r\n" +
	"--outer\r\n" +
	"Content-Type: application/pdf; name=\"agenda.pdf\"\r\n" +
	"Content-Disposition: attachment; filename=\"agenda.pdf\"\r\n" +
	"Content-Transfer-Encoding: base64\r\n" +
	"\r\n" +
	"JVBERi0xLjQKJcOkw7zDtsOfCg==\r\n" +
	"--outer--\r\n" +
	"epilogue\r\n"

func TestGmailMessageFormats(t *testing.T) {
	s := newTestServer(t)
	svc := gmailService(t, s, ada)
	id := deliver(t, s, ada, []byte(multipartMail))

	m, err := svc.Users.Messages.Get("me", id).Do()
	must(t, err)
	p := m.Payload
	if m.ThreadId != id || !slices.Contains(m.LabelIds, "INBOX") || !slices.Contains(m.LabelIds, "UNREAD") ||
		m.SizeEstimate != int64(len(multipartMail)) || m.HistoryId == 0 || m.InternalDate == 0 {
		t.Errorf("message %+v", m)
	}
	if m.Snippet != "Café at &lt;10&gt;, don&#39;t be late &amp; bring the &quot;slides&quot;." {
		t.Errorf("snippet %q", m.Snippet)
	}
	if header(p, "Subject") != "Re: Café ☕ meeting" || header(p, "From") != "José Blá <jose@example.net>" {
		t.Errorf("decoded headers %q, %q", header(p, "Subject"), header(p, "From"))
	}
	if p.PartId != "" || p.MimeType != "multipart/mixed" || len(p.Parts) != 2 || p.Body.Size != 0 || p.Body.Data != "" {
		t.Fatalf("payload %+v", p)
	}
	alt, att := p.Parts[0], p.Parts[1]
	if alt.PartId != "0" || alt.MimeType != "multipart/alternative" || len(alt.Parts) != 2 ||
		alt.Parts[0].PartId != "0.0" || alt.Parts[1].PartId != "0.1" {
		t.Fatalf("alternative %+v", alt)
	}
	text, _ := base64.URLEncoding.DecodeString(alt.Parts[0].Body.Data)
	if string(text) != "Café at <10>, don't be late & bring the \"slides\"." || alt.Parts[0].Body.Size != int64(len(text)) {
		t.Errorf("text part %q (%d)", text, alt.Parts[0].Body.Size)
	}
	if att.PartId != "1" || att.Filename != "agenda.pdf" || att.MimeType != "application/pdf" ||
		att.Body.AttachmentId == "" || att.Body.Data != "" || att.Body.Size != 19 {
		t.Errorf("attachment part %+v %+v", att, att.Body)
	}
	body, err := svc.Users.Messages.Attachments.Get("me", id, att.Body.AttachmentId).Do()
	must(t, err)
	if data, _ := base64.URLEncoding.DecodeString(body.Data); string(data) != "%PDF-1.4\n%äüöß\n" || body.Size != 19 {
		t.Errorf("attachment %q %d", data, body.Size)
	}
	_, err = svc.Users.Messages.Attachments.Get("me", id, "ANGjdJnope").Do()
	wantAPIError(t, err, 400, "Invalid attachment token")

	m, err = svc.Users.Messages.Get("me", id).Format("metadata").MetadataHeaders("subject", "Message-ID").Do()
	must(t, err)
	if len(m.Payload.Headers) != 2 || m.Payload.Parts != nil || m.Payload.Body != nil || m.Snippet == "" {
		t.Errorf("metadata %+v", m.Payload)
	}
	m, err = svc.Users.Messages.Get("me", id).Format("minimal").Do()
	if err != nil || m.Payload != nil || m.Raw != "" || len(m.LabelIds) == 0 {
		t.Errorf("minimal %+v, %v", m, err)
	}
	m, err = svc.Users.Messages.Get("me", id).Format("raw").Do()
	must(t, err)
	if raw, _ := base64.URLEncoding.DecodeString(m.Raw); string(raw) != multipartMail || m.Payload != nil {
		t.Errorf("raw does not round-trip: %q", raw)
	}
	_, err = svc.Users.Messages.Get("me", id).Format("html").Do()
	wantAPIError(t, err, 400, "Invalid value at 'format'")
	_, err = svc.Users.Messages.Get("me", "18c0000000000000").Do()
	wantAPIError(t, err, 404, "Requested entity was not found.")
	_, err = svc.Users.Messages.Get("me", "nope").Do()
	wantAPIError(t, err, 400, "Invalid id value")

	latin := deliver(t, s, ada, []byte("From: bob@example.org\r\nSubject: =?ISO-8859-1?Q?Caf=E9?=\r\n"+
		"Content-Type: text/plain; charset=ISO-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n\r\nun caf\xe9\r\n"))
	m, err = svc.Users.Messages.Get("me", latin).Do()
	if err != nil || m.Snippet != "un café" || header(m.Payload, "Subject") != "Café" {
		t.Errorf("a Latin-1 message: snippet %q, subject %q, %v", m.Snippet, header(m.Payload, "Subject"), err)
	}

	// An RFC 2047 subject sent by the client comes back decoded, and its
	// raw bytes as sent.
	subj := "=?UTF-8?Q?Gr=C3=BC=C3=9Fe_aus_K=C3=B6ln?="
	sent, err := svc.Users.Messages.Send("me", &gmail.Message{Raw: b64(rawMail(ada, bob, subj, "Servus"))}).Do()
	must(t, err)
	got, err := svc.Users.Messages.Get("me", sent.Id).Format("metadata").Do()
	must(t, err)
	if header(got.Payload, "Subject") != "Grüße aus Köln" {
		t.Errorf("subject %q", header(got.Payload, "Subject"))
	}
	if st := s.SentMessages(ada); len(st) != 1 || st[0].Subject != "Grüße aus Köln" || st[0].Header.Get("Subject") != subj {
		t.Errorf("stored %+v", st)
	}
	list, err := svc.Users.Messages.List("me").Q(`subject:"grüße aus"`).Do()
	if err != nil || len(list.Messages) != 1 {
		t.Errorf("search by a non-ASCII subject: %+v, %v", list, err)
	}
}
