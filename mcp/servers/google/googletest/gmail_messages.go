package googletest

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/api/gmail/v1"
)

// The formats of messages.get (threads.get takes all but raw).
var messageFormats = []string{"full", "metadata", "minimal", "raw"}

// format reads the format parameter (default full), answering 400 (false)
// for one not in allowed.
func format(w http.ResponseWriter, r *http.Request, allowed []string) (string, bool) {
	f := r.URL.Query().Get("format")
	if f == "" {
		return "full", true
	}
	if !slices.Contains(allowed, f) {
		invalidArgument(w, "Invalid value at 'format' (type.googleapis.com/google.apps.gmail.v1.Format), \""+f+"\"")
		return "", false
	}
	return f, true
}

// view is a message as Gmail shows it in a format; metadata shows only
// the headers named (all when none is).
func (m *mailMessage) view(format string, metadataHeaders []string) *gmail.Message {
	out := &gmail.Message{Id: m.id, ThreadId: m.threadID, LabelIds: slices.Clone(m.labels), Snippet: m.parsed.snippet(),
		SizeEstimate: int64(len(m.raw)), HistoryId: m.historyID, InternalDate: m.internalDate}
	switch format {
	case "full":
		out.Payload = m.parsed.payload(m.id)
	case "metadata":
		out.Payload = &gmail.MessagePart{MimeType: m.parsed.mediaType}
		for _, h := range m.parsed.decodedHeaders() {
			if len(metadataHeaders) == 0 || slices.ContainsFunc(metadataHeaders, func(n string) bool { return strings.EqualFold(n, h.Name) }) {
				out.Payload.Headers = append(out.Payload.Headers, h)
			}
		}
	case "raw":
		out.Raw = encodeRaw(m.raw)
	}
	return out
}

// ref is a message as lists and changes show it.
func (m *mailMessage) ref() *gmail.Message { return &gmail.Message{Id: m.id, ThreadId: m.threadID} }

// labelled is a message as modify and trash answer it.
func (m *mailMessage) labelled() *gmail.Message {
	return &gmail.Message{Id: m.id, ThreadId: m.threadID, LabelIds: slices.Clone(m.labels)}
}

func (e *entity) decodedHeaders() []*gmail.MessagePartHeader {
	out := make([]*gmail.MessagePartHeader, 0, len(e.header))
	for _, f := range e.header {
		out = append(out, &gmail.MessagePartHeader{Name: f.name, Value: decodeHeader(f.value), ForceSendFields: []string{"Value"}})
	}
	return out
}

// payload is an entity as format=full shows it: text inline, attachments
// by id only.
func (e *entity) payload(msgID string) *gmail.MessagePart {
	p := &gmail.MessagePart{PartId: e.partID, MimeType: e.mediaType, Filename: e.filename, Headers: e.decodedHeaders(),
		ForceSendFields: []string{"PartId", "Filename"}}
	switch {
	case e.parts != nil:
		p.Body = &gmail.MessagePartBody{ForceSendFields: []string{"Size"}}
		for _, c := range e.parts {
			p.Parts = append(p.Parts, c.payload(msgID))
		}
	case e.attachment:
		p.Body = &gmail.MessagePartBody{AttachmentId: attachmentID(msgID, e.partID), Size: int64(len(e.body)), ForceSendFields: []string{"Size"}}
	default:
		p.Body = &gmail.MessagePartBody{Size: int64(len(e.body)), ForceSendFields: []string{"Size"}}
		if len(e.body) > 0 {
			p.Body.Data = encodeRaw(e.body)
		}
	}
	return p
}

// attachmentID is the id of a message's part, opaque as Google's.
func attachmentID(msgID, partID string) string {
	sum := sha256.Sum256([]byte(msgID + "/" + partID))
	return "ANGjdJ" + base64.RawURLEncoding.EncodeToString(sum[:])
}

// validID says whether id can be a message or thread id (hex digits):
// Google answers 400 for one that cannot, 404 for one it does not have.
func validID(w http.ResponseWriter, id string) bool {
	_, err := strconv.ParseUint(id, 16, 64)
	if err != nil {
		invalidArgument(w, "Invalid id value")
	}
	return err == nil
}

// message finds the path's message, answering 400 or 404 (nil) when
// there is none.
func (mb *mailbox) message(w http.ResponseWriter, id string) *mailMessage {
	if !validID(w, id) {
		return nil
	}
	m := mb.msgs[id]
	if m == nil {
		notFound(w)
	}
	return m
}

// sortedMessages is every message, newest first.
func (mb *mailbox) sortedMessages() []*mailMessage {
	out := make([]*mailMessage, 0, len(mb.msgs))
	for _, m := range mb.msgs {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].internalDate != out[j].internalDate {
			return out[i].internalDate > out[j].internalDate
		}
		return out[i].id > out[j].id
	})
	return out
}

func (g *gmailFake) getMessage(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	f, ok := format(w, r, messageFormats)
	if !ok {
		return
	}
	if m := mb.message(w, r.PathValue("id")); m != nil {
		writeJSON(w, m.view(f, r.URL.Query()["metadataHeaders"]))
	}
}

// listMessages is messages.list: newest first, q and labelIds applied.
func (g *gmailFake) listMessages(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	q := r.URL.Query()
	max, offset, ok := g.paging(w, q)
	if !ok {
		return
	}
	spamTrash, ok := strictBool(w, q, "includeSpamTrash")
	if !ok {
		return
	}
	found, err := mb.search(g.s.clock(), q.Get("q"), q["labelIds"], spamTrash)
	if err != nil {
		invalidArgument(w, err.Error())
		return
	}
	out := &gmail.ListMessagesResponse{ResultSizeEstimate: int64(len(found)), ForceSendFields: []string{"ResultSizeEstimate"}}
	page, next := cutPage(g, found, offset, max)
	for _, m := range page {
		out.Messages = append(out.Messages, m.ref())
	}
	out.NextPageToken = next
	writeJSON(w, out)
}

func (g *gmailFake) getAttachment(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	m := mb.message(w, r.PathValue("messageId"))
	if m == nil {
		return
	}
	var found *entity
	m.parsed.walk(func(e *entity) {
		if e.attachment && attachmentID(m.id, e.partID) == r.PathValue("id") {
			found = e
		}
	})
	if found == nil {
		invalidArgument(w, "Invalid attachment token")
		return
	}
	writeJSON(w, &gmail.MessagePartBody{AttachmentId: r.PathValue("id"), Size: int64(len(found.body)),
		Data: encodeRaw(found.body), ForceSendFields: []string{"Size"}})
}

// labelChange reads a modify request's labels, answering 400 (false) when
// there are none or a label cannot be set.
func (mb *mailbox) labelChange(w http.ResponseWriter, add, remove []string) bool {
	if len(add)+len(remove) == 0 {
		invalidArgument(w, "No label add or removes specified")
		return false
	}
	return mb.checkLabels(w, add, userSettable) && mb.checkLabels(w, remove, userSettable)
}

func (g *gmailFake) modifyMessage(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	var in gmail.ModifyMessageRequest
	if !decodeJSON(w, r, &in) {
		return
	}
	m := mb.message(w, r.PathValue("id"))
	if m == nil || !mb.labelChange(w, in.AddLabelIds, in.RemoveLabelIds) {
		return
	}
	mb.relabel(m, in.AddLabelIds, in.RemoveLabelIds)
	writeJSON(w, m.labelled())
}

// batchModify changes the labels of up to 1000 messages; ids of no
// message are skipped, as Google does.
func (g *gmailFake) batchModify(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	var in gmail.BatchModifyMessagesRequest
	if !decodeJSON(w, r, &in) {
		return
	}
	if len(in.Ids) > 1000 {
		invalidArgument(w, "Number of ids cannot exceed 1000")
		return
	}
	if !mb.labelChange(w, in.AddLabelIds, in.RemoveLabelIds) {
		return
	}
	for _, id := range in.Ids {
		if m := mb.msgs[id]; m != nil {
			mb.relabel(m, in.AddLabelIds, in.RemoveLabelIds)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// trash moves a message to the trash: TRASH on, INBOX off (untrash does
// not bring it back to the inbox, as with Google).
func (mb *mailbox) trash(m *mailMessage) { mb.relabel(m, []string{"TRASH"}, []string{"INBOX", "SPAM"}) }

func (mb *mailbox) untrash(m *mailMessage) { mb.relabel(m, nil, []string{"TRASH"}) }

func (g *gmailFake) trashMessage(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	if m := mb.message(w, r.PathValue("id")); m != nil {
		mb.trash(m)
		writeJSON(w, m.labelled())
	}
}

func (g *gmailFake) untrashMessage(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	if m := mb.message(w, r.PathValue("id")); m != nil {
		mb.untrash(m)
		writeJSON(w, m.labelled())
	}
}

func (g *gmailFake) deleteMessage(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	if m := mb.message(w, r.PathValue("id")); m != nil {
		mb.remove(m)
		w.WriteHeader(http.StatusNoContent)
	}
}

func (g *gmailFake) batchDelete(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	var in gmail.BatchDeleteMessagesRequest
	if !decodeJSON(w, r, &in) {
		return
	}
	if len(in.Ids) > 1000 {
		invalidArgument(w, "Number of ids cannot exceed 1000")
		return
	}
	for _, id := range in.Ids {
		if m := mb.msgs[id]; m != nil {
			mb.remove(m)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
