package googletest

import (
	"net/http"
	"sort"

	"google.golang.org/api/gmail/v1"
)

// thread finds the path's thread, answering 400 or 404 (nil) when there
// is none.
func (mb *mailbox) thread(w http.ResponseWriter, id string) []*mailMessage {
	if !validID(w, id) {
		return nil
	}
	t := mb.threads[id]
	if len(t) == 0 {
		notFound(w)
	}
	return t
}

// threadHistoryID is the latest historyId of a thread's messages.
func threadHistoryID(t []*mailMessage) uint64 {
	var id uint64
	for _, m := range t {
		id = max(id, m.historyID)
	}
	return id
}

// listThreads is threads.list: the threads with a message that matches,
// the latest first.
func (g *gmailFake) listThreads(w http.ResponseWriter, r *http.Request, mb *mailbox) {
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
	var ids []string
	seen := map[string]bool{}
	for _, m := range found {
		if !seen[m.threadID] {
			seen[m.threadID] = true
			ids = append(ids, m.threadID)
		}
	}
	latest := func(id string) *mailMessage { t := mb.threads[id]; return t[len(t)-1] }
	sort.SliceStable(ids, func(i, j int) bool { return latest(ids[i]).internalDate > latest(ids[j]).internalDate })
	out := &gmail.ListThreadsResponse{ResultSizeEstimate: int64(len(ids)), ForceSendFields: []string{"ResultSizeEstimate"}}
	page, next := cutPage(g, ids, offset, max)
	for _, id := range page {
		out.Threads = append(out.Threads, &gmail.Thread{Id: id, Snippet: latest(id).parsed.snippet(), HistoryId: threadHistoryID(mb.threads[id])})
	}
	out.NextPageToken = next
	writeJSON(w, out)
}

// getThread is threads.get: every message of the thread, oldest first.
func (g *gmailFake) getThread(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	f, ok := format(w, r, []string{"full", "metadata", "minimal"})
	if !ok {
		return
	}
	t := mb.thread(w, r.PathValue("id"))
	if t == nil {
		return
	}
	out := &gmail.Thread{Id: r.PathValue("id"), HistoryId: threadHistoryID(t)}
	for _, m := range t {
		out.Messages = append(out.Messages, m.view(f, r.URL.Query()["metadataHeaders"]))
	}
	writeJSON(w, out)
}

// threadChanged answers a change to a thread: its messages with their labels.
func threadChanged(w http.ResponseWriter, id string, t []*mailMessage) {
	out := &gmail.Thread{Id: id, HistoryId: threadHistoryID(t)}
	for _, m := range t {
		out.Messages = append(out.Messages, m.labelled())
	}
	writeJSON(w, out)
}

func (g *gmailFake) modifyThread(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	var in gmail.ModifyThreadRequest
	if !decodeJSON(w, r, &in) {
		return
	}
	t := mb.thread(w, r.PathValue("id"))
	if t == nil || !mb.labelChange(w, in.AddLabelIds, in.RemoveLabelIds) {
		return
	}
	for _, m := range t {
		mb.relabel(m, in.AddLabelIds, in.RemoveLabelIds)
	}
	threadChanged(w, r.PathValue("id"), t)
}

func (g *gmailFake) trashThread(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	if t := mb.thread(w, r.PathValue("id")); t != nil {
		for _, m := range t {
			mb.trash(m)
		}
		threadChanged(w, r.PathValue("id"), t)
	}
}

func (g *gmailFake) untrashThread(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	if t := mb.thread(w, r.PathValue("id")); t != nil {
		for _, m := range t {
			mb.untrash(m)
		}
		threadChanged(w, r.PathValue("id"), t)
	}
}

func (g *gmailFake) deleteThread(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	if t := mb.thread(w, r.PathValue("id")); t != nil {
		for _, m := range append([]*mailMessage(nil), t...) {
			mb.remove(m)
		}
		w.WriteHeader(http.StatusNoContent)
	}
}
