package gmail

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/mcp/servers/google"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// notConfirmed is the tool error when the person did not say yes.
const notConfirmed = "The person did not confirm sending this message; nothing was sent."

// errNoConfirm is the tool error when nobody can be asked.
var errNoConfirm = errors.New("sending needs the person's yes through mcptray, and this client cannot ask them " +
	"(it does not take elicitation requests during a call); nothing was sent. " +
	"Use the server through mcptray, or save the message with create_draft for the person to send")

// multiRoundTripVersion is the first protocol version whose clients answer
// requests during a call by retrying the call with the answer in its
// arguments: a yes the assistant's side could write itself, so such a
// client is not asked.
const multiRoundTripVersion = "2026-07-28"

// confirmation is what the person sees before a message goes out.
type confirmation struct {
	From, To, Cc, Bcc, Subject string
	InReplyTo                  string // "Subject" from whom, for a reply
	Body                       string
	Attachments                []Attachment
}

// Limits of the confirmation's text.
const (
	previewLines = 12
	previewChars = 800
)

// headerLine is a header value as it goes out (encodeHeader folds a line
// break into a space): one line, so a subject cannot draw a "To:" line of
// its own in the confirmation.
func headerLine(v string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' {
			return ' '
		}
		return r
	}, v)
}

// message is the confirmation's text.
func (c confirmation) message() string {
	var b strings.Builder
	b.WriteString("Send this email?\n\n")
	for _, h := range [][2]string{{"From", c.From}, {"To", c.To}, {"Cc", c.Cc}, {"Bcc", c.Bcc}, {"Subject", c.Subject}, {"In reply to", c.InReplyTo}} {
		if h[1] != "" || h[0] == "To" || h[0] == "Subject" {
			fmt.Fprintf(&b, "%s: %s\n", h[0], headerLine(h[1]))
		}
	}
	if len(c.Attachments) > 0 {
		var names []string
		for _, a := range c.Attachments {
			names = append(names, fmt.Sprintf("%s (%s)", headerLine(a.Name), sizeText(a.Size)))
		}
		fmt.Fprintf(&b, "Attachments: %s\n", strings.Join(names, ", "))
	}
	b.WriteString("\n")
	body := strings.TrimSpace(c.Body)
	lines := strings.Split(body, "\n")
	cut := len(lines) > previewLines
	if cut {
		lines = lines[:previewLines]
	}
	head := strings.Join(lines, "\n")
	if textLen(head) > previewChars {
		head, _ = cutText(head, 0, previewChars)
		cut = true
	}
	if body == "" {
		head = "(no text)"
	}
	b.WriteString(head)
	if cut {
		fmt.Fprintf(&b, "\n[… %d characters in all]", textLen(body))
	}
	return b.String()
}

// confirmSend asks the person, under SendConfirm, whether c may go out:
// a form-mode elicitation with an empty schema (a yes/no) that mcptray
// keeps in its own inbox (google.InboxMeta), its accept button labelled
// Send. Only an accept returns nil.
func (s *Server) confirmSend(ctx context.Context, req *sdk.CallToolRequest, c confirmation) error {
	switch s.opts.Send {
	case SendAllow:
		return nil
	case SendDraftsOnly:
		return errors.New("sending is off (x-mcptray.google.gmailSend is drafts-only); create_draft saves it for the person to send")
	}
	if req == nil || req.Session == nil {
		return errNoConfirm
	}
	ss := req.Session
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil || ip.ProtocolVersion >= multiRoundTripVersion {
		return errNoConfirm
	}
	if caps := ip.Capabilities.Elicitation; caps.Form == nil && caps.URL != nil {
		return errNoConfirm
	}
	res, err := ss.Elicit(ctx, &sdk.ElicitParams{
		Meta:            sdk.Meta{google.InboxMeta: true, google.AcceptLabelMeta: "Send"},
		Mode:            "form",
		Message:         c.message(),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	})
	if err != nil {
		s.log.Warn("asking to confirm sending", "err", err)
		//lint:ignore ST1005 the tool's result, a sentence the model reads
		return errors.New(notConfirmed)
	}
	if res.Action != "accept" {
		//lint:ignore ST1005 the tool's result, a sentence the model reads
		return errors.New(notConfirmed)
	}
	return nil
}
