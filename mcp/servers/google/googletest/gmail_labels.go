package googletest

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/api/gmail/v1"
)

// systemLabels are the labels every mailbox has, as labels.list shows
// them.
func systemLabels() map[string]*gmail.Label {
	out := map[string]*gmail.Label{}
	for _, l := range []struct{ id, msgVis, labelVis string }{
		{"INBOX", "hide", "labelShow"}, {"SENT", "hide", "labelHide"}, {"DRAFT", "hide", "labelHide"},
		{"TRASH", "hide", "labelHide"}, {"SPAM", "hide", "labelHide"}, {"UNREAD", "hide", "labelHide"},
		{"STARRED", "hide", "labelHide"}, {"IMPORTANT", "hide", "labelHide"}, {"CHAT", "hide", "labelHide"},
		{"CATEGORY_PERSONAL", "", ""}, {"CATEGORY_SOCIAL", "", ""}, {"CATEGORY_PROMOTIONS", "", ""},
		{"CATEGORY_UPDATES", "", ""}, {"CATEGORY_FORUMS", "", ""},
	} {
		out[l.id] = &gmail.Label{Id: l.id, Name: l.id, Type: "system", MessageListVisibility: l.msgVis, LabelListVisibility: l.labelVis}
	}
	return out
}

// Labels no request may add to or take from a message: Gmail applies
// them itself.
var fixedLabels = []string{"DRAFT", "SENT", "CHAT"}

// reservedNames are label names a user label cannot take.
var reservedNames = []string{"inbox", "sent", "draft", "drafts", "trash", "spam", "unread", "starred", "important",
	"chat", "chats", "all mail", "sent mail", "scheduled", "snoozed"}

// checkLabels answers 400 (false) when ids name a label the mailbox does
// not have, or one that settable forbids.
func (mb *mailbox) checkLabels(w http.ResponseWriter, ids []string, settable func(string) bool) bool {
	for _, id := range ids {
		if mb.labels[id] == nil || !settable(id) {
			invalidArgument(w, "Invalid label: "+id)
			return false
		}
	}
	return true
}

func userSettable(id string) bool { return !slices.Contains(fixedLabels, id) }

// labelView is a label as labels.get shows it: with its counts.
func (mb *mailbox) labelView(l *gmail.Label) *gmail.Label {
	out := *l
	threads, unread := map[string]bool{}, map[string]bool{}
	for _, m := range mb.msgs {
		if !m.has(l.Id) {
			continue
		}
		out.MessagesTotal++
		threads[m.threadID] = true
		if m.has("UNREAD") {
			out.MessagesUnread++
			unread[m.threadID] = true
		}
	}
	out.ThreadsTotal, out.ThreadsUnread = int64(len(threads)), int64(len(unread))
	out.ForceSendFields = []string{"MessagesTotal", "MessagesUnread", "ThreadsTotal", "ThreadsUnread"}
	return &out
}

func (g *gmailFake) listLabels(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	out := &gmail.ListLabelsResponse{}
	for _, l := range mb.labels {
		out.Labels = append(out.Labels, l)
	}
	sort.Slice(out.Labels, func(i, j int) bool {
		a, b := out.Labels[i], out.Labels[j]
		if a.Type != b.Type {
			return a.Type == "system"
		}
		return a.Id < b.Id
	})
	writeJSON(w, out)
}

func (g *gmailFake) getLabel(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	l := mb.labels[r.PathValue("id")]
	if l == nil {
		notFound(w)
		return
	}
	writeJSON(w, mb.labelView(l))
}

// checkName answers when name cannot be a user label's (other than
// except's): 400 for an empty or reserved one, 409 for one taken.
func (mb *mailbox) checkName(w http.ResponseWriter, name, except string) bool {
	name = strings.TrimSpace(name)
	if name == "" || slices.Contains(reservedNames, strings.ToLower(name)) || mb.labels[strings.ToUpper(name)] != nil {
		invalidArgument(w, "Invalid label name")
		return false
	}
	for _, l := range mb.labels {
		if l.Id != except && strings.EqualFold(l.Name, name) {
			apiError(w, http.StatusConflict, "Label name exists or conflicts", "aborted", "ABORTED")
			return false
		}
	}
	return true
}

func checkVisibility(w http.ResponseWriter, l *gmail.Label) bool {
	okMsg := l.MessageListVisibility == "" || l.MessageListVisibility == "show" || l.MessageListVisibility == "hide"
	okLabel := slices.Contains([]string{"", "labelShow", "labelShowIfUnread", "labelHide"}, l.LabelListVisibility)
	if !okMsg || !okLabel {
		invalidArgument(w, "Invalid label visibility")
	}
	return okMsg && okLabel
}

func (g *gmailFake) createLabel(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	var in gmail.Label
	if !decodeJSON(w, r, &in) || !mb.checkName(w, in.Name, "") || !checkVisibility(w, &in) {
		return
	}
	mb.labelSeq++
	l := &gmail.Label{Id: "Label_" + strconv.Itoa(mb.labelSeq), Name: strings.TrimSpace(in.Name), Type: "user",
		MessageListVisibility: in.MessageListVisibility, LabelListVisibility: in.LabelListVisibility, Color: in.Color}
	if l.MessageListVisibility == "" {
		l.MessageListVisibility = "show"
	}
	if l.LabelListVisibility == "" {
		l.LabelListVisibility = "labelShow"
	}
	mb.labels[l.Id] = l
	writeJSON(w, l)
}

func (g *gmailFake) patchLabel(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	g.changeLabel(w, r, mb, false)
}

func (g *gmailFake) updateLabel(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	g.changeLabel(w, r, mb, true)
}

// changeLabel is labels.patch, or labels.update (replace) of a user label.
func (g *gmailFake) changeLabel(w http.ResponseWriter, r *http.Request, mb *mailbox, replace bool) {
	l := mb.labels[r.PathValue("id")]
	if l == nil {
		notFound(w)
		return
	}
	var in gmail.Label
	if !decodeJSON(w, r, &in) {
		return
	}
	if l.Type == "system" {
		invalidArgument(w, "Invalid update request")
		return
	}
	if in.Id != "" && in.Id != l.Id {
		invalidArgument(w, "Invalid label id")
		return
	}
	if (replace || in.Name != "") && !mb.checkName(w, in.Name, l.Id) || !checkVisibility(w, &in) {
		return
	}
	next := *l
	if replace {
		next.MessageListVisibility, next.LabelListVisibility, next.Color = in.MessageListVisibility, in.LabelListVisibility, in.Color
	}
	if in.Name != "" {
		next.Name = strings.TrimSpace(in.Name)
	}
	if in.MessageListVisibility != "" {
		next.MessageListVisibility = in.MessageListVisibility
	}
	if in.LabelListVisibility != "" {
		next.LabelListVisibility = in.LabelListVisibility
	}
	if in.Color != nil {
		next.Color = in.Color
	}
	*l = next
	writeJSON(w, l)
}

// deleteLabel deletes a user label, taking it off every message.
func (g *gmailFake) deleteLabel(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	l := mb.labels[r.PathValue("id")]
	if l == nil {
		notFound(w)
		return
	}
	if l.Type == "system" {
		invalidArgument(w, "Invalid delete request")
		return
	}
	for _, m := range mb.sortedMessages() {
		mb.relabel(m, nil, []string{l.Id})
	}
	delete(mb.labels, l.Id)
	w.WriteHeader(http.StatusNoContent)
}

// labelByName finds a label by its name as search writes it
// (case-insensitive; "-" or "_" for a space or "/").
func (mb *mailbox) labelByName(name string) *gmail.Label {
	norm := func(s string) string {
		return strings.NewReplacer(" ", "-", "/", "-", "_", "-").Replace(strings.ToLower(s))
	}
	for _, l := range mb.labels {
		if norm(l.Name) == norm(name) || strings.EqualFold(l.Id, name) {
			return l
		}
	}
	return nil
}
