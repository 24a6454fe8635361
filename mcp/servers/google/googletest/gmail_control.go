package googletest

import (
	"bytes"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"google.golang.org/api/gmail/v1"
)

// What tests do to the Gmail part of the fake "from another device" or
// from the outside world, and what they read back.

// StoredMessage is a message as the fake stores it.
type StoredMessage struct {
	ID, ThreadID string
	Labels       []string
	Raw          []byte      // the RFC 822 bytes, as sent or delivered (with what Gmail added)
	Header       mail.Header // Raw's header, values as written
	Subject      string      // the Subject, RFC 2047 decoded
	InternalDate time.Time
}

func (m *mailMessage) stored() StoredMessage {
	out := StoredMessage{ID: m.id, ThreadID: m.threadID, Labels: slices.Clone(m.labels), Raw: slices.Clone(m.raw),
		Subject: decodeHeader(m.parsed.header.get("Subject")), InternalDate: time.UnixMilli(m.internalDate)}
	if msg, err := mail.ReadMessage(bytes.NewReader(m.raw)); err == nil {
		out.Header = msg.Header
	} else {
		out.Header = mail.Header{}
		for _, f := range m.parsed.header {
			k := strings.ToLower(f.name)
			out.Header[k] = append(out.Header[k], f.value)
		}
	}
	return out
}

// DeliverMessage delivers an incoming message to email's mailbox: INBOX
// and UNREAD, plus labelIds, threaded by its In-Reply-To and References.
// It returns the message's id.
func (s *Server) DeliverMessage(email string, raw []byte, labelIds ...string) (string, error) {
	g := s.gmail
	g.mu.Lock()
	defer g.mu.Unlock()
	mb := g.mailbox(email)
	labels := []string{"INBOX", "UNREAD"}
	for _, id := range labelIds {
		if mb.labels[id] == nil {
			return "", fmt.Errorf("delivering to %s: no label %s", email, id)
		}
		if !slices.Contains(labels, id) {
			labels = append(labels, id)
		}
	}
	m, err := g.newMessage(mb, raw, labels, "", 0)
	if err != nil {
		return "", fmt.Errorf("delivering to %s: %w", email, err)
	}
	mb.add(m)
	return m.id, nil
}

// ChangeLabels adds and removes labels of a message as another device
// would (marking it read there, say).
func (s *Server) ChangeLabels(email, id string, add, remove []string) error {
	g := s.gmail
	g.mu.Lock()
	defer g.mu.Unlock()
	mb := g.mailbox(email)
	m := mb.msgs[id]
	if m == nil {
		return fmt.Errorf("no message %s in %s", id, email)
	}
	for _, l := range append(slices.Clone(add), remove...) {
		if mb.labels[l] == nil {
			return fmt.Errorf("no label %s in %s", l, email)
		}
	}
	mb.relabel(m, add, remove)
	return nil
}

// DeleteMessage deletes a message for good as another device would.
func (s *Server) DeleteMessage(email, id string) error {
	g := s.gmail
	g.mu.Lock()
	defer g.mu.Unlock()
	mb := g.mailbox(email)
	m := mb.msgs[id]
	if m == nil {
		return fmt.Errorf("no message %s in %s", id, email)
	}
	mb.remove(m)
	return nil
}

// AddGmailLabel makes a user label in email's mailbox, or finds the one
// with that name; it returns its id.
func (s *Server) AddGmailLabel(email, name string) string {
	g := s.gmail
	g.mu.Lock()
	defer g.mu.Unlock()
	mb := g.mailbox(email)
	for _, l := range mb.labels {
		if strings.EqualFold(l.Name, name) {
			return l.Id
		}
	}
	mb.labelSeq++
	id := fmt.Sprintf("Label_%d", mb.labelSeq)
	mb.labels[id] = &gmail.Label{Id: id, Name: name, Type: "user", MessageListVisibility: "show", LabelListVisibility: "labelShow"}
	return id
}

// AddSendAs adds a send-as alias to email's account: messages sent from
// it keep their From.
func (s *Server) AddSendAs(email, alias string) {
	g := s.gmail
	g.mu.Lock()
	defer g.mu.Unlock()
	mb := g.mailbox(email)
	if mb.sendAs(alias) == nil {
		mb.aliases = append(mb.aliases, alias)
	}
}

// ExpireHistory drops the history email's mailbox keeps: history.list
// from any earlier historyId is 404 notFound, as when Google's history
// has expired.
func (s *Server) ExpireHistory(email string) {
	g := s.gmail
	g.mu.Lock()
	defer g.mu.Unlock()
	mb := g.mailbox(email)
	mb.floor, mb.history = mb.historyID, nil
}

// GmailHistoryID is email's mailbox's latest historyId.
func (s *Server) GmailHistoryID(email string) uint64 {
	g := s.gmail
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mailbox(email).historyID
}

// Messages returns every message of email's mailbox, oldest first.
func (s *Server) Messages(email string) []StoredMessage {
	return s.storedMessages(email, "")
}

// SentMessages returns the messages of email's mailbox labelled SENT,
// oldest first.
func (s *Server) SentMessages(email string) []StoredMessage {
	return s.storedMessages(email, "SENT")
}

func (s *Server) storedMessages(email, label string) []StoredMessage {
	g := s.gmail
	g.mu.Lock()
	defer g.mu.Unlock()
	all := g.mailbox(email).sortedMessages()
	var out []StoredMessage
	for i := len(all) - 1; i >= 0; i-- {
		if label == "" || all[i].has(label) {
			out = append(out, all[i].stored())
		}
	}
	return out
}

// GmailRequests counts the Gmail requests answered (or refused) so far
// that match key: a route pattern ("GET
// /gmail/v1/users/{userId}/history") or a method and path ("GET
// /gmail/v1/users/me/history").
func (s *Server) GmailRequests(key string) int { return s.gmail.reqs.count(key) }

// RecordedGmailRequests returns every Gmail request so far.
func (s *Server) RecordedGmailRequests() []Request { return s.gmail.reqs.all() }
