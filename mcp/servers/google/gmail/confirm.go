package gmail

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

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

// sessionVersions are the protocol versions gmail serves: not 2026-07-28,
// whose clients take no elicitation during a call and would be asked the
// send confirmation in an input_required result, which the client's
// side could answer itself (see multiRoundTripVersion). A client that
// probes with server/discover (mcptray's, since issue 32) falls back to
// initialize on 2025-11-25, where mcptray's inbox asks the person.
var sessionVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// confirmation is what the person sees before a message goes out.
type confirmation struct {
	From, To, Cc, Bcc, Subject string
	InReplyTo                  string // "Subject" from whom, for a reply
	Body                       string
	// Others are the other versions of the text that say something else
	// than Body (an HTML version, the other parts of a draft's
	// multipart/alternative): a mail app may show one of them instead, so
	// the person sees them all.
	Others      []string
	Attachments []Attachment
	Recipients  int // how many addresses To, Cc and Bcc hold
}

// Limits of the confirmation's text.
const (
	previewLines = 12
	previewChars = 800
	// maxConfirmBytes is the longest confirmation mcptray's inbox takes
	// (app/inbox's MaxMessage, README "Secret inbox"): it answers a longer
	// one cancel without showing it, so such a send is refused here, with
	// an error saying why, before anyone is asked.
	maxConfirmBytes = 16 << 10
)

// headerLine is a header value as it goes out (encodeHeader folds a line
// break into a space): one line, so a subject cannot draw a "To:" line of
// its own in the confirmation. Characters that are invisible or reorder
// the text around them (bidi overrides and isolates, zero-width ones,
// line separators, other controls) are shown as <U+202E>, so a name
// cannot hide or turn around the address next to it.
func headerLine(v string) string {
	var b strings.Builder
	for _, r := range v {
		switch {
		case r == '\r' || r == '\n' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sameText says whether two texts read the same, spacing aside.
func sameText(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}

// preview is the start of a body: previewLines lines, previewChars
// characters at most, saying how long the whole is when cut.
func preview(body string) string {
	body = strings.TrimSpace(body)
	if body == "" {
		return "(no text)"
	}
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
	if cut {
		head += fmt.Sprintf("\n[… %d characters in all]", textLen(body))
	}
	return head
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
	b.WriteString(preview(c.Body))
	for _, o := range c.Others {
		b.WriteString("\n\n[Another version of the text, which mail apps may show instead:]\n")
		b.WriteString(preview(o))
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
	msg := c.message()
	if len(msg) > maxConfirmBytes {
		return fmt.Errorf("the confirmation of this message (%d recipients) is too long for mcptray's inbox to show: "+
			"%d bytes, over its %d; nothing was sent. Send it to fewer recipients at a time, or shorten the subject and attachment names",
			c.Recipients, len(msg), maxConfirmBytes)
	}
	res, err := ss.Elicit(ctx, &sdk.ElicitParams{
		Meta:            sdk.Meta{google.InboxMeta: true, google.AcceptLabelMeta: "Send"},
		Mode:            "form",
		Message:         msg,
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
