package gmail

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strings"

	"github.com/mcptray/mcptray/mcp/servers/google"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	gm "google.golang.org/api/gmail/v1"
)

type draftOut struct {
	DraftID   string `json:"draft_id"`
	MessageID string `json:"message_id"`
	ThreadID  string `json:"thread_id"`
}

func (s *Server) createDraftTool(ctx context.Context, req *sdk.CallToolRequest, in composeIn) (*sdk.CallToolResult, draftOut, error) {
	var zero draftOut
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	m, c, err := s.compose(ctx, req, &email, in, true)
	if err != nil {
		return nil, zero, err
	}
	w, err := s.toWire(m)
	if err != nil {
		return nil, zero, err
	}
	var d *gm.Draft
	err = s.api(ctx, req, &email, func(svc *gm.Service) (err error) {
		call := svc.Users.Drafts.Create("me", &gm.Draft{Message: w.msg}).Context(ctx)
		if w.media != nil {
			call = call.Media(w.upload())
		}
		d, err = call.Do()
		return err
	})
	if err != nil {
		return nil, zero, explain(err, "saving the draft")
	}
	out := draftOut{DraftID: d.Id}
	if d.Message != nil {
		out.MessageID, out.ThreadID = d.Message.Id, d.Message.ThreadId
	}
	to := recipientsText(c)
	if to == "" {
		to = "nobody yet"
	}
	return text(fmt.Sprintf("Saved draft %s: %q to %s.", out.DraftID, m.Subject, to)), out, nil
}

// DraftSummary is one draft of list_drafts.
type DraftSummary struct {
	ID        string `json:"id"`
	MessageID string `json:"message_id"`
	ThreadID  string `json:"thread_id"`
	To        string `json:"to"`
	Subject   string `json:"subject"`
	Snippet   string `json:"snippet"`
}

type listDraftsIn struct {
	accountArg
	Query      string `json:"query,omitempty"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"1-100, default 20"`
	PageToken  string `json:"page_token,omitempty"`
}

type listDraftsOut struct {
	Drafts        []DraftSummary `json:"drafts"`
	NextPageToken string         `json:"next_page_token,omitempty"`
}

func (s *Server) listDraftsTool(ctx context.Context, req *sdk.CallToolRequest, in listDraftsIn) (*sdk.CallToolResult, listDraftsOut, error) {
	var zero listDraftsOut
	max, err := pageSize(in.MaxResults)
	if err != nil {
		return nil, zero, err
	}
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	var list *gm.ListDraftsResponse
	err = s.api(ctx, req, &email, func(svc *gm.Service) (err error) {
		call := svc.Users.Drafts.List("me").Context(ctx).MaxResults(int64(max))
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
		return nil, zero, explain(err, "listing the drafts of "+email)
	}
	out := listDraftsOut{Drafts: []DraftSummary{}, NextPageToken: list.NextPageToken}
	var lines []string
	for _, ref := range list.Drafts {
		var d *gm.Draft
		err := s.try(ctx, email, func(svc *gm.Service) (err error) {
			d, err = svc.Users.Drafts.Get("me", ref.Id).Format("full").Context(ctx).Do()
			return err
		})
		if google.StatusCode(err) == 404 {
			continue // sent or deleted since
		}
		if err != nil {
			return nil, zero, explain(err, "reading draft "+ref.Id)
		}
		sum := DraftSummary{ID: d.Id}
		if m := d.Message; m != nil {
			sum.MessageID, sum.ThreadID, sum.Snippet = m.Id, m.ThreadId, html.UnescapeString(m.Snippet)
			sum.To, sum.Subject = header(m.Payload, "To"), header(m.Payload, "Subject")
		}
		out.Drafts = append(out.Drafts, sum)
		lines = append(lines, fmt.Sprintf("%s: %q to %s", sum.ID, sum.Subject, sum.To))
	}
	head := fmt.Sprintf("%d drafts", len(out.Drafts))
	if out.NextPageToken != "" {
		head += " (more: page_token " + out.NextPageToken + ")"
	}
	return text(strings.Join(append([]string{head}, lines...), "\n")), out, nil
}

type draftIDIn struct {
	accountArg
	DraftID string `json:"draft_id"`
}

// getDraft reads a draft in full; a missing one says where ids come from.
func (s *Server) getDraft(ctx context.Context, req *sdk.CallToolRequest, email *string, id string) (*gm.Draft, error) {
	if id == "" {
		return nil, errors.New("draft_id is required: list_drafts shows the ids")
	}
	var d *gm.Draft
	err := s.api(ctx, req, email, func(svc *gm.Service) (err error) {
		d, err = svc.Users.Drafts.Get("me", id).Format("full").Context(ctx).Do()
		return err
	})
	if code := google.StatusCode(err); code == 404 || code == 400 {
		return nil, fmt.Errorf("there is no draft %q in %s (list_drafts shows the ids)", id, *email)
	}
	if err != nil {
		return nil, explain(err, "reading draft "+id)
	}
	if d.Message == nil {
		d.Message = &gm.Message{}
	}
	return d, nil
}

func (s *Server) sendDraftTool(ctx context.Context, req *sdk.CallToolRequest, in draftIDIn) (*sdk.CallToolResult, sendOut, error) {
	var zero sendOut
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	d, err := s.getDraft(ctx, req, &email, in.DraftID)
	if err != nil {
		return nil, zero, err
	}
	// What goes out is the message confirmed: its bytes, read now, are
	// sent in the request (drafts.send replaces the draft's message with
	// them), so an edit of the draft while the person is asked does not
	// go out unseen.
	w, err := s.draftWire(ctx, req, &email, d)
	if err != nil {
		return nil, zero, err
	}
	p := d.Message.Payload
	c := confirmation{From: headerAll(p, "From"), To: headerAll(p, "To"), Cc: headerAll(p, "Cc"), Bcc: headerAll(p, "Bcc"),
		Subject: header(p, "Subject"), Body: bodyText(p), Attachments: attachments(p)}
	if c.To+c.Cc+c.Bcc == "" {
		return nil, zero, fmt.Errorf("draft %s has no recipient; nothing was sent", in.DraftID)
	}
	for _, l := range []string{c.To, c.Cc, c.Bcc} {
		c.Recipients += len(headerAddresses(l))
	}
	c.Others = otherVersions(p, c.Body)
	if err := s.confirmSend(ctx, req, c); err != nil {
		return nil, zero, err
	}
	var sent *gm.Message
	err = s.api(ctx, req, &email, func(svc *gm.Service) (err error) {
		call := svc.Users.Drafts.Send("me", &gm.Draft{Id: d.Id, Message: w.msg}).Context(ctx)
		if w.media != nil {
			call = call.Media(w.upload())
		}
		sent, err = call.Do()
		return err
	})
	if err != nil {
		return nil, zero, explain(err, "sending draft "+in.DraftID)
	}
	s.log.Info("sent a draft", "account", email, "id", sent.Id)
	out := sendOut{ID: sent.Id, ThreadID: sent.ThreadId}
	return text(fmt.Sprintf("Sent draft %s, %q to %s (id %s, thread %s).", in.DraftID, c.Subject, recipientsText(c), out.ID, out.ThreadID)), out, nil
}

// draftWire reads the bytes of draft d's message (format=raw) for
// sending: the same message as d's (a draft's every edit makes a new
// message id), else an error.
func (s *Server) draftWire(ctx context.Context, req *sdk.CallToolRequest, email *string, d *gm.Draft) (wire, error) {
	var r *gm.Draft
	err := s.api(ctx, req, email, func(svc *gm.Service) (err error) {
		r, err = svc.Users.Drafts.Get("me", d.Id).Format("raw").Context(ctx).Do()
		return err
	})
	if code := google.StatusCode(err); code == 404 || code == 400 {
		return wire{}, fmt.Errorf("draft %s was sent or deleted meanwhile; nothing was sent", d.Id)
	}
	if err != nil {
		return wire{}, explain(err, "reading draft "+d.Id)
	}
	if r.Message == nil || r.Message.Id != d.Message.Id {
		return wire{}, fmt.Errorf("draft %s was changed while it was read; nothing was sent. Try again", d.Id)
	}
	b := decodeData(r.Message.Raw)
	if len(b) == 0 {
		return wire{}, fmt.Errorf("reading draft %s: Gmail gave no message; nothing was sent", d.Id)
	}
	thread := d.Message.ThreadId
	if thread == d.Message.Id {
		thread = "" // a thread of its own, which an edit replaces
	}
	return s.wireOf(b, thread), nil
}

type deleteDraftOut struct {
	Deleted string `json:"deleted"`
}

func (s *Server) deleteDraftTool(ctx context.Context, req *sdk.CallToolRequest, in draftIDIn) (*sdk.CallToolResult, deleteDraftOut, error) {
	var zero deleteDraftOut
	if in.DraftID == "" {
		return nil, zero, errors.New("draft_id is required: list_drafts shows the ids")
	}
	email, err := s.account(in.Account)
	if err != nil {
		return nil, zero, err
	}
	err = s.api(ctx, req, &email, func(svc *gm.Service) error {
		return svc.Users.Drafts.Delete("me", in.DraftID).Context(ctx).Do()
	})
	if code := google.StatusCode(err); code == 404 || code == 400 {
		return nil, zero, fmt.Errorf("there is no draft %q in %s (list_drafts shows the ids)", in.DraftID, email)
	}
	if err != nil {
		return nil, zero, explain(err, "deleting draft "+in.DraftID)
	}
	return text("Deleted draft " + in.DraftID + "."), deleteDraftOut{Deleted: in.DraftID}, nil
}
