package googletest

import (
	"net/http"
	"slices"
	"sort"
	"strconv"

	"google.golang.org/api/gmail/v1"
)

// The history types of history.list.
const (
	historyAdded        = "messageAdded"
	historyDeleted      = "messageDeleted"
	historyLabelAdded   = "labelAdded"
	historyLabelRemoved = "labelRemoved"
)

// historyRecord is one change to one message.
type historyRecord struct {
	id              uint64
	kind            string // one of the history types
	msgID, threadID string
	labels          []string // the message's labels after the change (before a deletion)
	changed         []string // the labels added or removed
}

// record bumps the mailbox's historyId, with gaps as Google's have, and
// keeps a record of the change to m.
func (mb *mailbox) record(kind string, m *mailMessage, changed []string) {
	mb.historyID += 1 + mb.historyID%3
	m.historyID = mb.historyID
	mb.history = append(mb.history, historyRecord{id: mb.historyID, kind: kind, msgID: m.id, threadID: m.threadID,
		labels: slices.Clone(m.labels), changed: changed})
}

// add stores m in its thread, recording messageAdded.
func (mb *mailbox) add(m *mailMessage) {
	mb.msgs[m.id] = m
	t := append(mb.threads[m.threadID], m)
	sort.SliceStable(t, func(i, j int) bool { return t[i].internalDate < t[j].internalDate })
	mb.threads[m.threadID] = t
	mb.record(historyAdded, m, nil)
}

// remove deletes m for good, recording messageDeleted.
func (mb *mailbox) remove(m *mailMessage) {
	delete(mb.msgs, m.id)
	t := slices.DeleteFunc(mb.threads[m.threadID], func(x *mailMessage) bool { return x == m })
	if len(t) == 0 {
		delete(mb.threads, m.threadID)
	} else {
		mb.threads[m.threadID] = t
	}
	for d, id := range mb.drafts {
		if id == m.id {
			delete(mb.drafts, d)
		}
	}
	mb.record(historyDeleted, m, nil)
}

// relabel adds, then removes labels, recording labelAdded and
// labelRemoved for what changed. It reports whether anything did.
func (mb *mailbox) relabel(m *mailMessage, add, remove []string) bool {
	var added, removed []string
	for _, id := range add {
		if !m.has(id) && !slices.Contains(added, id) {
			added = append(added, id)
		}
	}
	m.labels = append(m.labels, added...)
	for _, id := range remove {
		if m.has(id) {
			removed = append(removed, id)
		}
	}
	m.labels = slices.DeleteFunc(m.labels, func(id string) bool { return slices.Contains(removed, id) })
	if len(added) > 0 {
		mb.record(historyLabelAdded, m, added)
	}
	if len(removed) > 0 {
		mb.record(historyLabelRemoved, m, removed)
	}
	return len(added)+len(removed) > 0
}

func (h historyRecord) view() *gmail.History {
	ref := func(labels []string) *gmail.Message {
		return &gmail.Message{Id: h.msgID, ThreadId: h.threadID, LabelIds: labels}
	}
	out := &gmail.History{Id: h.id, Messages: []*gmail.Message{ref(nil)}}
	switch h.kind {
	case historyAdded:
		out.MessagesAdded = []*gmail.HistoryMessageAdded{{Message: ref(h.labels)}}
	case historyDeleted:
		out.MessagesDeleted = []*gmail.HistoryMessageDeleted{{Message: ref(nil)}}
	case historyLabelAdded:
		out.LabelsAdded = []*gmail.HistoryLabelAdded{{Message: ref(h.labels), LabelIds: h.changed}}
	case historyLabelRemoved:
		out.LabelsRemoved = []*gmail.HistoryLabelRemoved{{Message: ref(h.labels), LabelIds: h.changed}}
	}
	return out
}

// listHistory is history.list: the records after startHistoryId, of the
// types asked, touching labelId. A startHistoryId from before what the
// fake keeps (ExpireHistory) is 404, as Google answers; so is one beyond
// the mailbox's historyId, which Google's documentation counts as
// invalid.
func (g *gmailFake) listHistory(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	q := r.URL.Query()
	start, err := strconv.ParseUint(q.Get("startHistoryId"), 10, 64)
	if err != nil || start == 0 {
		invalidArgument(w, "Missing/invalid parameter: startHistoryId")
		return
	}
	for _, t := range q["historyTypes"] {
		if !slices.Contains([]string{historyAdded, historyDeleted, historyLabelAdded, historyLabelRemoved}, t) {
			invalidArgument(w, "Invalid value at 'history_types': \""+t+"\"")
			return
		}
	}
	max, offset, ok := g.paging(w, q)
	if !ok {
		return
	}
	if start < mb.floor || start > mb.historyID {
		notFound(w)
		return
	}
	var recs []*gmail.History
	label := q.Get("labelId")
	for _, h := range mb.history {
		if h.id <= start || (len(q["historyTypes"]) > 0 && !slices.Contains(q["historyTypes"], h.kind)) {
			continue
		}
		if label != "" && !slices.Contains(h.labels, label) && !slices.Contains(h.changed, label) {
			continue
		}
		recs = append(recs, h.view())
	}
	out := &gmail.ListHistoryResponse{HistoryId: mb.historyID}
	out.History, out.NextPageToken = cutPage(g, recs, offset, max)
	writeJSON(w, out)
}
