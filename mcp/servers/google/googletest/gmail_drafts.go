package googletest

import (
	"net/http"
	"strconv"

	"google.golang.org/api/gmail/v1"
)

// Drafts: a draft is a stable id over a message labelled DRAFT only;
// updating it replaces the message (a new message id), sending it
// deletes it and stores a new SENT message, as Google's guide says.

// newDraftID makes a draft id as Gmail's look ("r" and a signed number).
func newDraftID() string {
	n, _ := strconv.ParseUint(randomHex(8), 16, 64)
	return "r" + strconv.FormatInt(int64(n), 10)
}

// draftMessage is a draft's message, answering 404 (nil) for an unknown draft.
func (mb *mailbox) draftMessage(w http.ResponseWriter, id string) *mailMessage {
	m := mb.msgs[mb.drafts[id]]
	if m == nil {
		notFound(w)
	}
	return m
}

func draftRef(id string, m *mailMessage) *gmail.Draft {
	return &gmail.Draft{Id: id, Message: m.labelled()}
}

// readDraft reads a draft request: the draft and its message's bytes
// (nil when it carries none).
func readDraft(w http.ResponseWriter, r *http.Request) (*gmail.Draft, []byte, bool) {
	var in gmail.Draft
	media, ok := readRequest(w, r, &in)
	if !ok {
		return nil, nil, false
	}
	if media == nil && (in.Message == nil || in.Message.Raw == "") {
		return &in, nil, true
	}
	raw, err := messageBytes(media, in.Message)
	if err != nil {
		writeErr(w, err)
		return nil, nil, false
	}
	return &in, raw, true
}

func threadOf(d *gmail.Draft) string {
	if d.Message == nil {
		return ""
	}
	return d.Message.ThreadId
}

func (g *gmailFake) createDraft(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	in, raw, ok := readDraft(w, r)
	if !ok {
		return
	}
	if raw == nil {
		invalidArgument(w, "Missing draft message")
		return
	}
	m, err := g.newMessage(mb, raw, []string{"DRAFT"}, threadOf(in), 0)
	if err != nil {
		writeErr(w, err)
		return
	}
	id := newDraftID()
	mb.add(m)
	mb.drafts[id] = m.id
	writeJSON(w, draftRef(id, m))
}

// updateDraft replaces a draft's message; without a threadId the new one
// stays in the old one's thread if its subject allows.
func (g *gmailFake) updateDraft(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	id := r.PathValue("id")
	old := mb.draftMessage(w, id)
	if old == nil {
		return
	}
	in, raw, ok := readDraft(w, r)
	if !ok {
		return
	}
	if raw == nil {
		invalidArgument(w, "Missing draft message")
		return
	}
	thread := threadOf(in)
	if thread == "" && old.threadID != old.id {
		thread = old.threadID
	}
	m, err := g.newMessage(mb, raw, []string{"DRAFT"}, thread, 0)
	if err != nil {
		writeErr(w, err)
		return
	}
	mb.remove(old)
	mb.add(m)
	mb.drafts[id] = m.id
	writeJSON(w, draftRef(id, m))
}

func (g *gmailFake) deleteDraft(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	if m := mb.draftMessage(w, r.PathValue("id")); m != nil {
		mb.remove(m)
		w.WriteHeader(http.StatusNoContent)
	}
}

func (g *gmailFake) getDraft(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	f, ok := format(w, r, messageFormats)
	if !ok {
		return
	}
	if m := mb.draftMessage(w, r.PathValue("id")); m != nil {
		writeJSON(w, &gmail.Draft{Id: r.PathValue("id"), Message: m.view(f, nil)})
	}
}

// listDrafts is drafts.list: the drafts whose message matches q, the
// latest first.
func (g *gmailFake) listDrafts(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	q := r.URL.Query()
	max, offset, ok := g.paging(w, q)
	if !ok {
		return
	}
	spamTrash, ok := strictBool(w, q, "includeSpamTrash")
	if !ok {
		return
	}
	found, err := mb.search(g.s.clock(), q.Get("q"), nil, spamTrash)
	if err != nil {
		invalidArgument(w, err.Error())
		return
	}
	byMessage := map[string]string{}
	for d, m := range mb.drafts {
		byMessage[m] = d
	}
	var drafts []*gmail.Draft
	for _, m := range found {
		if d, ok := byMessage[m.id]; ok {
			drafts = append(drafts, &gmail.Draft{Id: d, Message: m.ref()})
		}
	}
	out := &gmail.ListDraftsResponse{ResultSizeEstimate: int64(len(drafts)), ForceSendFields: []string{"ResultSizeEstimate"}}
	out.Drafts, out.NextPageToken = cutPage(g, drafts, offset, max)
	writeJSON(w, out)
}

// sendDraft is drafts.send: the draft (its message replaced first when
// the request carries one) is sent and deleted.
func (g *gmailFake) sendDraft(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	in, raw, ok := readDraft(w, r)
	if !ok {
		return
	}
	if in.Id == "" {
		invalidArgument(w, "Invalid draft id")
		return
	}
	old := mb.draftMessage(w, in.Id)
	if old == nil {
		return
	}
	thread := threadOf(in)
	if raw == nil {
		raw = old.raw
	}
	if thread == "" && old.threadID != old.id {
		thread = old.threadID
	}
	// Checked before the draft goes: a refused send leaves it as it was.
	if _, err := g.outgoing(mb, raw); err != nil {
		writeErr(w, err)
		return
	}
	if thread != "" && len(mb.threads[thread]) == 0 {
		notFound(w)
		return
	}
	if thread != "" && len(mb.threads[thread]) == 1 && mb.threads[thread][0] == old {
		thread = "" // the draft was its thread's only message
	}
	mb.remove(old)
	m, err := g.send(mb, raw, thread)
	if err != nil {
		writeErr(w, err)
		return
	}
	writeJSON(w, m.labelled())
}
