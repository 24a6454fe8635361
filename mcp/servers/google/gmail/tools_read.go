package gmail

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gm "google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
)

// accountArg is every tool's optional account.
type accountArg struct {
	Account string `json:"account,omitempty"`
}

// MessageSummary is one message of search.
type MessageSummary struct {
	ID             string   `json:"id"`
	ThreadID       string   `json:"thread_id"`
	From           string   `json:"from"`
	To             string   `json:"to"`
	Subject        string   `json:"subject"`
	Date           string   `json:"date"`
	Snippet        string   `json:"snippet"`
	Labels         []string `json:"labels"`
	HasAttachments bool     `json:"has_attachments"`
}

type searchIn struct {
	accountArg
	Query      string `json:"query,omitempty"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"1-100, default 20"`
	PageToken  string `json:"page_token,omitempty"`
}

type searchOut struct {
	Messages      []MessageSummary `json:"messages"`
	NextPageToken string           `json:"next_page_token,omitempty"`
}

// Message is a message as read_message and read_thread return it.
type Message struct {
	ID          string       `json:"id"`
	ThreadID    string       `json:"thread_id"`
	MessageID   string       `json:"message_id" jsonschema:"RFC Message-ID"`
	From        string       `json:"from"`
	To          string       `json:"to"`
	Cc          string       `json:"cc,omitempty"`
	Bcc         string       `json:"bcc,omitempty"`
	ReplyTo     string       `json:"reply_to,omitempty"`
	Subject     string       `json:"subject"`
	Date        string       `json:"date"`
	Labels      []string     `json:"labels"`
	Body        string       `json:"body"`
	BodyChars   int          `json:"body_chars" jsonschema:"the whole body's length"`
	NextOffset  int          `json:"next_offset,omitempty" jsonschema:"offset of the rest, if cut"`
	Attachments []Attachment `json:"attachments"`
}

type readMessageIn struct {
	accountArg
	ID     string `json:"id" jsonschema:"message id"`
	Offset int    `json:"offset,omitempty" jsonschema:"a next_offset"`
}

type readThreadIn struct {
	accountArg
	ID string `json:"id" jsonschema:"thread id"`
}

type threadOut struct {
	ThreadID string    `json:"thread_id"`
	Messages []Message `json:"messages"`
}

// Limits of the reading tools.
const (
	defaultSearchResults = 20
	maxSearchResults     = 100
	maxBodyChars         = 20000 // of one read_message
	threadBodyChars      = 40000 // of a whole read_thread, shared by its messages
	minThreadBodyChars   = 2000  // of each message of a long thread
	maxTextLines         = 50    // messages in search's text mirror
	fetchers             = 8     // messages read at once
)

// dateOf is when Gmail received m, RFC 3339 in loc; its Date header when
// Gmail gave no time.
func (s *Server) dateOf(m *gm.Message) string {
	if m.InternalDate > 0 {
		return time.UnixMilli(m.InternalDate).In(s.opts.Location).Format(time.RFC3339)
	}
	return header(m.Payload, "Date")
}

// pageSize is a list tool's max_results: defaultSearchResults for 0,
// else 1 to maxSearchResults.
func pageSize(n int) (int, error) {
	if n == 0 {
		return defaultSearchResults, nil
	}
	if n < 0 || n > maxSearchResults {
		return 0, fmt.Errorf("max_results must be between 1 and %d (use page_token for more)", maxSearchResults)
	}
	return n, nil
}

func (s *Server) searchTool(ctx context.Context, req *sdk.CallToolRequest, in searchIn) (*sdk.CallToolResult, searchOut, error) {
	var zero searchOut
	max, err := pageSize(in.MaxResults)
	if err != nil {
		return nil, zero, err
	}
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	var list *gm.ListMessagesResponse
	err = s.api(ctx, req, &email, func(svc *gm.Service) (err error) {
		call := svc.Users.Messages.List("me").Context(ctx).MaxResults(int64(max))
		if in.Query != "" {
			call = call.Q(in.Query)
		}
		if in.PageToken != "" {
			call = call.PageToken(in.PageToken)
		}
		list, err = call.Do()
		return err
	})
	if err != nil {
		return nil, zero, explain(err, "searching the mail of "+email)
	}
	msgs, err := s.getMessages(ctx, email, list.Messages)
	if err != nil {
		return nil, zero, err
	}
	names := s.labelNames(ctx, req, email)
	out := searchOut{Messages: []MessageSummary{}, NextPageToken: list.NextPageToken}
	var b strings.Builder
	fmt.Fprintf(&b, "%d messages", len(msgs))
	if out.NextPageToken != "" {
		b.WriteString(" (more: page_token " + out.NextPageToken + ")")
	}
	for i, m := range msgs {
		sum := MessageSummary{ID: m.Id, ThreadID: m.ThreadId, From: header(m.Payload, "From"), To: header(m.Payload, "To"),
			Subject: header(m.Payload, "Subject"), Date: s.dateOf(m), Snippet: html.UnescapeString(m.Snippet),
			Labels: names(m.LabelIds), HasAttachments: len(attachments(m.Payload)) > 0}
		out.Messages = append(out.Messages, sum)
		if i == maxTextLines {
			fmt.Fprintf(&b, "\n… and %d more (all in the structured result)", len(msgs)-i)
		} else if i < maxTextLines {
			b.WriteString("\n" + sum.line())
		}
	}
	return text(b.String()), out, nil
}

// line is a summary in the text mirror.
func (m MessageSummary) line() string {
	flags := ""
	for _, l := range m.Labels {
		if l == "UNREAD" {
			flags += " [unread]"
		}
	}
	if m.HasAttachments {
		flags += " [attachments]"
	}
	return fmt.Sprintf("%s (thread %s) %s from %s: %s%s", m.ID, m.ThreadID, m.Date, m.From, m.Subject, flags)
}

// summaryFields is what search reads of each message: everything but the
// bodies' data (the parts, four deep, tell whether it has attachments).
var summaryFields = googleapi.Field("id,threadId,labelIds,snippet,internalDate,payload(" + partFields(4) + ")")

func partFields(depth int) string {
	f := "partId,mimeType,filename,headers,body(size,attachmentId)"
	if depth > 0 {
		f += ",parts(" + partFields(depth-1) + ")"
	}
	return f
}

// getMessages reads the messages of a list, a few at a time, in order.
func (s *Server) getMessages(ctx context.Context, email string, refs []*gm.Message) ([]*gm.Message, error) {
	out := make([]*gm.Message, len(refs))
	errs := make([]error, len(refs))
	sem := make(chan struct{}, fetchers)
	var wg sync.WaitGroup
	for i, ref := range refs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			// The list call before signed in if needed: no sign-in from
			// several goroutines here.
			err := s.try(ctx, email, func(svc *gm.Service) (err error) {
				out[i], err = svc.Users.Messages.Get("me", ref.Id).Format("full").Fields(summaryFields).Context(ctx).Do()
				return err
			})
			if google.StatusCode(err) == 404 {
				err = nil // deleted since it was listed
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	var got []*gm.Message
	for i, m := range out {
		if errs[i] != nil {
			return nil, explain(errs[i], "reading message "+refs[i].Id)
		}
		if m != nil {
			got = append(got, m)
		}
	}
	return got, nil
}

// getMessage reads one message in full; a missing one says where ids
// come from.
func (s *Server) getMessage(ctx context.Context, req *sdk.CallToolRequest, email *string, id string) (*gm.Message, error) {
	if id == "" {
		return nil, errors.New("id is required: search shows the message ids")
	}
	var m *gm.Message
	err := s.api(ctx, req, email, func(svc *gm.Service) (err error) {
		m, err = svc.Users.Messages.Get("me", id).Format("full").Context(ctx).Do()
		return err
	})
	if code := google.StatusCode(err); code == 404 || code == 400 {
		return nil, fmt.Errorf("there is no message %q in %s (search shows the message ids; a thread_id is for read_thread)", id, *email)
	}
	if err != nil {
		return nil, explain(err, "reading message "+id)
	}
	return m, nil
}

// messageOf is m as the tools return it, its body from offset on, at
// most max runes.
func (s *Server) messageOf(m *gm.Message, names func([]string) []string, offset, max int) Message {
	p := m.Payload
	body := bodyText(p)
	part, next := cutText(body, offset, max)
	return Message{ID: m.Id, ThreadID: m.ThreadId, MessageID: header(p, "Message-ID"), From: header(p, "From"),
		To: header(p, "To"), Cc: header(p, "Cc"), Bcc: header(p, "Bcc"), ReplyTo: header(p, "Reply-To"),
		Subject: header(p, "Subject"), Date: s.dateOf(m), Labels: names(m.LabelIds), Body: part,
		BodyChars: textLen(body), NextOffset: next, Attachments: attachments(p)}
}

// text is the message as the text mirror shows it: headers, body,
// attachments.
func (m Message) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "id: %s  thread: %s\n", m.ID, m.ThreadID)
	for _, h := range [][2]string{{"Message-ID", m.MessageID}, {"From", m.From}, {"To", m.To}, {"Cc", m.Cc},
		{"Bcc", m.Bcc}, {"Reply-To", m.ReplyTo}, {"Subject", m.Subject}, {"Date", m.Date}} {
		if h[1] != "" {
			fmt.Fprintf(&b, "%s: %s\n", h[0], h[1])
		}
	}
	if len(m.Labels) > 0 {
		fmt.Fprintf(&b, "Labels: %s\n", strings.Join(m.Labels, ", "))
	}
	b.WriteString("\n" + m.Body + "\n")
	if m.NextOffset > 0 {
		fmt.Fprintf(&b, "[… %d of %d characters shown; read_message with offset %d goes on]\n", m.NextOffset, m.BodyChars, m.NextOffset)
	}
	for _, a := range m.Attachments {
		fmt.Fprintf(&b, "Attachment %s: %s (%s, %s)\n", a.ID, a.Name, a.Type, sizeText(a.Size))
	}
	return strings.TrimRight(b.String(), "\n")
}

func (s *Server) readMessageTool(ctx context.Context, req *sdk.CallToolRequest, in readMessageIn) (*sdk.CallToolResult, Message, error) {
	if in.Offset < 0 {
		return nil, Message{}, errors.New("offset must be 0 or more")
	}
	email, err := s.account(in.Account)
	if err != nil {
		return nil, Message{}, err
	}
	m, err := s.getMessage(ctx, req, &email, in.ID)
	if err != nil {
		return nil, Message{}, err
	}
	out := s.messageOf(m, s.labelNames(ctx, req, email), in.Offset, maxBodyChars)
	if in.Offset > 0 && in.Offset >= out.BodyChars {
		return nil, Message{}, fmt.Errorf("offset %d is past the body's end (%d characters)", in.Offset, out.BodyChars)
	}
	return text(out.text()), out, nil
}

func (s *Server) readThreadTool(ctx context.Context, req *sdk.CallToolRequest, in readThreadIn) (*sdk.CallToolResult, threadOut, error) {
	var zero threadOut
	if in.ID == "" {
		return nil, zero, errors.New("id is required: the thread_id of a message from search")
	}
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	var th *gm.Thread
	err = s.api(ctx, req, &email, func(svc *gm.Service) (err error) {
		th, err = svc.Users.Threads.Get("me", in.ID).Format("full").Context(ctx).Do()
		return err
	})
	if code := google.StatusCode(err); code == 404 || code == 400 {
		return nil, zero, fmt.Errorf("there is no thread %q in %s (a message's thread_id, from search)", in.ID, email)
	}
	if err != nil {
		return nil, zero, explain(err, "reading thread "+in.ID)
	}
	names := s.labelNames(ctx, req, email)
	each := maxBodyChars
	if n := len(th.Messages); n > 0 {
		each = min(maxBodyChars, max(minThreadBodyChars, threadBodyChars/n))
	}
	out := threadOut{ThreadID: th.Id, Messages: []Message{}}
	var texts []string
	for _, m := range th.Messages {
		msg := s.messageOf(m, names, 0, each)
		out.Messages = append(out.Messages, msg)
		texts = append(texts, msg.text())
	}
	head := fmt.Sprintf("Thread %s, %d messages", th.Id, len(out.Messages))
	return text(head + "\n\n" + strings.Join(texts, "\n\n---\n\n")), out, nil
}

// sizeText is a size for people: 532 B, 12 KB, 3.4 MB.
func sizeText(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%d KB", (n+500)/1000)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
}
