package gmail

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gm "google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
)

// composeIn is what send and create_draft take.
type composeIn struct {
	accountArg
	To               []string `json:"to,omitempty"`
	Cc               []string `json:"cc,omitempty"`
	Bcc              []string `json:"bcc,omitempty"`
	Subject          string   `json:"subject,omitempty"`
	Body             string   `json:"body,omitempty" jsonschema:"plain text"`
	HTML             string   `json:"html,omitempty" jsonschema:"HTML version of body"`
	Attachments      []string `json:"attachments,omitempty" jsonschema:"local file paths"`
	ReplyToMessageID string   `json:"reply_to_message_id,omitempty"`
	ReplyAll         bool     `json:"reply_all,omitempty"`
}

type sendOut struct {
	ID       string `json:"id"`
	ThreadID string `json:"thread_id"`
}

// senderInfo is an account's send-as addresses as last read.
type senderInfo struct {
	from *mail.Address // the default send-as address, with its name
	own  []string      // every address of the account
	at   time.Time
}

// sendersTTL is how long an account's send-as addresses are kept.
const sendersTTL = 10 * time.Minute

// sender returns the account's default send-as address (with its display
// name) and all its addresses (users.settings.sendAs.list).
func (s *Server) sender(ctx context.Context, req *sdk.CallToolRequest, email *string) (senderInfo, error) {
	s.mu.Lock()
	si, ok := s.senders[*email]
	s.mu.Unlock()
	if ok && s.opts.Now().Sub(si.at) < sendersTTL {
		return si, nil
	}
	var res *gm.ListSendAsResponse
	err := s.api(ctx, req, email, func(svc *gm.Service) (err error) {
		res, err = svc.Users.Settings.SendAs.List("me").Context(ctx).Do()
		return err
	})
	if err != nil {
		return senderInfo{}, explain(err, "reading the send-as addresses of "+*email)
	}
	si = senderInfo{from: &mail.Address{Address: *email}, own: []string{*email}, at: s.opts.Now()}
	var primary *gm.SendAs
	found := false
	for _, a := range res.SendAs {
		si.own = append(si.own, a.SendAsEmail)
		if a.IsPrimary {
			primary = a
		}
		if a.IsDefault && !found {
			si.from, found = &mail.Address{Name: a.DisplayName, Address: a.SendAsEmail}, true
		}
	}
	if !found && primary != nil {
		si.from = &mail.Address{Name: primary.DisplayName, Address: primary.SendAsEmail}
	}
	s.mu.Lock()
	s.senders[*email] = si
	s.mu.Unlock()
	return si, nil
}

// maxAttachBytes bounds the files of one message (Gmail's limit).
const maxAttachBytes = 25 << 20

// compose builds the message of a send or create_draft, and what the
// person is shown before it goes out; a draft may lack recipients.
func (s *Server) compose(ctx context.Context, req *sdk.CallToolRequest, email *string, in composeIn, draft bool) (*outgoing, confirmation, error) {
	var c confirmation
	to, err := parseAddresses("to", in.To)
	if err != nil {
		return nil, c, err
	}
	cc, err := parseAddresses("cc", in.Cc)
	if err != nil {
		return nil, c, err
	}
	bcc, err := parseAddresses("bcc", in.Bcc)
	if err != nil {
		return nil, c, err
	}
	if in.ReplyAll && in.ReplyToMessageID == "" {
		return nil, c, errors.New("reply_all needs reply_to_message_id: the message replied to")
	}
	files, err := s.loadAttachments(in.Attachments)
	if err != nil {
		return nil, c, err
	}
	si, err := s.sender(ctx, req, email)
	if err != nil {
		return nil, c, err
	}
	m := &outgoing{From: si.from, Subject: in.Subject, Text: in.Body, HTML: in.HTML, Attachments: files}
	if in.ReplyToMessageID != "" {
		orig, err := s.getMessage(ctx, req, email, in.ReplyToMessageID)
		if err != nil {
			return nil, c, fmt.Errorf("reply_to_message_id: %w", err)
		}
		p := orig.Payload
		m.ThreadID = orig.ThreadId
		m.InReplyTo, m.References = replyReferences(header(p, "Message-ID"), header(p, "References"), header(p, "In-Reply-To"))
		rTo, rCc := replyRecipients(header(p, "From"), header(p, "Reply-To"), header(p, "To"), header(p, "Cc"), si.own, in.ReplyAll)
		if len(to) == 0 {
			to = rTo
		} else if in.ReplyAll {
			rCc = append(append([]*mail.Address{}, rTo...), rCc...)
		}
		cc = mergeAddresses(cc, rCc, to)
		if strings.TrimSpace(m.Subject) == "" {
			m.Subject = header(p, "Subject")
		}
		m.Subject = replySubject(m.Subject)
		c.InReplyTo = fmt.Sprintf("%q from %s", header(p, "Subject"), header(p, "From"))
	}
	if len(to)+len(cc)+len(bcc) == 0 && !draft {
		return nil, c, errors.New("to is required: at least one recipient (to, cc or bcc)")
	}
	m.To, m.Cc, m.Bcc = to, cc, bcc
	if m.Text == "" && m.HTML != "" {
		m.Text = htmlToText(m.HTML)
	}
	c.From, c.To, c.Cc, c.Bcc = addressText([]*mail.Address{m.From}), addressText(to), addressText(cc), addressText(bcc)
	c.Subject, c.Body, c.Recipients = m.Subject, m.Text, len(to)+len(cc)+len(bcc)
	if m.HTML != "" {
		if t := htmlToText(m.HTML); !sameText(t, m.Text) {
			c.Others = []string{t}
		}
	}
	for _, f := range files {
		c.Attachments = append(c.Attachments, Attachment{Name: f.Name, Type: f.Type, Size: int64(len(f.Data))})
	}
	return m, c, nil
}

// mergeAddresses is list with more added, leaving out duplicates and
// those in not.
func mergeAddresses(list, more, not []*mail.Address) []*mail.Address {
	seen := map[string]bool{}
	for _, a := range not {
		seen[strings.ToLower(a.Address)] = true
	}
	var out []*mail.Address
	for _, a := range append(list, more...) {
		if k := strings.ToLower(a.Address); !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	return out
}

// addressText is addresses for people to read (names not encoded).
func addressText(list []*mail.Address) string {
	var parts []string
	for _, a := range list {
		if a.Name != "" {
			parts = append(parts, fmt.Sprintf("%s <%s>", a.Name, a.Address))
		} else {
			parts = append(parts, a.Address)
		}
	}
	return strings.Join(parts, ", ")
}

// uploadAbove is the size from which a message goes as a media upload
// (message/rfc822) rather than in the request's raw field: Google's
// JSON requests are for small messages, its uploads take 35 MB.
const uploadAbove = 4 << 20

// wire is a composed message as the API takes it.
type wire struct {
	msg   *gm.Message // the thread, and the raw field when small
	media []byte      // the RFC 822 bytes when uploaded, else nil
}

// toWire composes m for the API: in the raw field (base64url) up to
// s.uploadAbove bytes, as an upload beyond.
func (s *Server) toWire(m *outgoing) (wire, error) {
	b, err := m.compose()
	if err != nil {
		return wire{}, fmt.Errorf("composing the message: %w", err)
	}
	return s.wireOf(b, m.ThreadID), nil
}

// wireOf is the RFC 822 bytes b, in thread, as the API takes them.
func (s *Server) wireOf(b []byte, thread string) wire {
	if len(b) > s.uploadAbove {
		return wire{msg: &gm.Message{ThreadId: thread}, media: b}
	}
	return wire{msg: &gm.Message{Raw: base64.URLEncoding.EncodeToString(b), ThreadId: thread}}
}

// upload is w's message as a media upload (a new reader for each try).
func (w wire) upload() (io.Reader, googleapi.MediaOption) {
	return bytes.NewReader(w.media), googleapi.ContentType("message/rfc822")
}

func (s *Server) sendTool(ctx context.Context, req *sdk.CallToolRequest, in composeIn) (*sdk.CallToolResult, sendOut, error) {
	var zero sendOut
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	m, c, err := s.compose(ctx, req, &email, in, false)
	if err != nil {
		return nil, zero, err
	}
	w, err := s.toWire(m)
	if err != nil {
		return nil, zero, err
	}
	if err := s.confirmSend(ctx, req, c); err != nil {
		return nil, zero, err
	}
	var sent *gm.Message
	err = s.api(ctx, req, &email, func(svc *gm.Service) (err error) {
		call := svc.Users.Messages.Send("me", w.msg).Context(ctx)
		if w.media != nil {
			call = call.Media(w.upload())
		}
		sent, err = call.Do()
		return err
	})
	if err != nil {
		return nil, zero, explain(err, "sending the message")
	}
	s.log.Info("sent a message", "account", email, "id", sent.Id)
	out := sendOut{ID: sent.Id, ThreadID: sent.ThreadId}
	return text(fmt.Sprintf("Sent %q to %s (id %s, thread %s).", m.Subject, recipientsText(c), out.ID, out.ThreadID)), out, nil
}

// recipientsText is everyone a message goes to, for the text mirror.
func recipientsText(c confirmation) string {
	var all []string
	for _, l := range []string{c.To, c.Cc, c.Bcc} {
		if l != "" {
			all = append(all, l)
		}
	}
	return strings.Join(all, ", ")
}
