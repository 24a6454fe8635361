package googletest

import (
	"errors"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"time"

	"google.golang.org/api/gmail/v1"
)

// gmailError is a refusal of the Gmail part: the status and message Google
// answers with.
type gmailError struct {
	code int
	msg  string
}

func (e *gmailError) Error() string { return e.msg }

func (e *gmailError) write(w http.ResponseWriter) {
	if e.code == http.StatusNotFound {
		notFound(w)
		return
	}
	invalidArgument(w, e.msg)
}

// writeErr answers with err, a *gmailError.
func writeErr(w http.ResponseWriter, err error) {
	var ge *gmailError
	if errors.As(err, &ge) {
		ge.write(w)
		return
	}
	apiError(w, http.StatusInternalServerError, err.Error(), "backendError", "INTERNAL")
}

// errNoRaw is Google's answer to a message without its RFC 822 bytes.
var errNoRaw = &gmailError{http.StatusBadRequest, "'raw' RFC822 payload message string or uploading message via /upload/* URL required"}

// messageBytes is a request's message: the upload's media, else its raw
// field decoded.
func messageBytes(media []byte, in *gmail.Message) ([]byte, error) {
	if media != nil {
		return media, nil
	}
	if in == nil || in.Raw == "" {
		return nil, errNoRaw
	}
	raw, err := decodeRaw(in.Raw)
	if err != nil {
		return nil, &gmailError{http.StatusBadRequest, "Invalid value for ByteString: " + in.Raw[:min(len(in.Raw), 20)]}
	}
	return raw, nil
}

// newMessage parses raw into a message of mb with labels, in the thread
// it joins (threadFor); it is not stored yet. date 0 means now.
func (g *gmailFake) newMessage(mb *mailbox, raw []byte, labels []string, threadID string, date int64) (*mailMessage, error) {
	e, err := parseMessage(raw)
	if err != nil {
		return nil, &gmailError{http.StatusBadRequest, "Invalid raw message: " + err.Error()}
	}
	tid, err := mb.threadFor(e, threadID)
	if err != nil {
		return nil, err
	}
	if date == 0 {
		date = g.s.clock().UnixMilli()
	}
	m := &mailMessage{id: g.newID(), raw: raw, parsed: e, labels: slices.Clone(labels), internalDate: date, threadID: tid}
	if m.threadID == "" {
		m.threadID = m.id
	}
	return m, nil
}

// normSubject is a subject as threading compares it: without Re:, Fwd:
// and the like, case and spaces ignored.
func normSubject(s string) string {
	s = strings.ToLower(strings.TrimSpace(decodeHeader(s)))
	for {
		cut := false
		for _, p := range []string{"re:", "fwd:", "fw:", "aw:", "wg:", "sv:", "vs:"} {
			if rest, ok := strings.CutPrefix(s, p); ok {
				s, cut = strings.TrimSpace(rest), true
			}
		}
		if !cut {
			return strings.Join(strings.Fields(s), " ")
		}
	}
}

// threadFor finds the thread a new message joins, as Gmail threads: the
// requested one if its subject matches; else, with none requested, the
// thread of a stored message it names in In-Reply-To or References whose
// subject matches. "" means a new thread; an unknown requested thread is
// 404.
func (mb *mailbox) threadFor(e *entity, requested string) (string, error) {
	subject := normSubject(e.header.get("Subject"))
	if requested != "" {
		t := mb.threads[requested]
		if len(t) == 0 {
			return "", &gmailError{http.StatusNotFound, "Requested entity was not found."}
		}
		if normSubject(t[0].parsed.header.get("Subject")) == subject {
			return requested, nil
		}
		return "", nil
	}
	refs := append(messageIDs(e.header.get("In-Reply-To")), messageIDs(e.header.get("References"))...)
	if len(refs) == 0 {
		return "", nil
	}
	for _, m := range mb.sortedMessages() {
		id := strings.TrimSpace(m.parsed.header.get("Message-ID"))
		if id != "" && slices.Contains(refs, id) && normSubject(m.parsed.header.get("Subject")) == subject {
			return m.threadID, nil
		}
	}
	return "", nil
}

// insertMessage is messages.insert: stored as given (IMAP APPEND), dated
// when received unless internalDateSource says dateHeader.
func (g *gmailFake) insertMessage(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	g.putMessage(w, r, mb, "receivedTime")
}

// importMessage is messages.import: as insert, dated by its Date header
// by default.
func (g *gmailFake) importMessage(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	g.putMessage(w, r, mb, "dateHeader")
}

func (g *gmailFake) putMessage(w http.ResponseWriter, r *http.Request, mb *mailbox, dateSource string) {
	var in gmail.Message
	media, ok := readRequest(w, r, &in)
	if !ok {
		return
	}
	if s := r.URL.Query().Get("internalDateSource"); s != "" {
		if s != "receivedTime" && s != "dateHeader" {
			invalidArgument(w, "Invalid value at 'internal_date_source': \""+s+"\"")
			return
		}
		dateSource = s
	}
	raw, err := messageBytes(media, &in)
	if err != nil {
		writeErr(w, err)
		return
	}
	if !mb.checkLabels(w, in.LabelIds, func(id string) bool { return id != "DRAFT" && id != "CHAT" }) {
		return
	}
	var date int64
	if dateSource == "dateHeader" {
		if e, err := parseMessage(raw); err == nil {
			if t, err := mail.ParseDate(e.header.get("Date")); err == nil {
				date = t.UnixMilli()
			}
		}
	}
	m, err := g.newMessage(mb, raw, in.LabelIds, in.ThreadId, date)
	if err != nil {
		writeErr(w, err)
		return
	}
	mb.add(m)
	writeJSON(w, m.labelled())
}

// outgoing checks and completes a message about to be sent, as Gmail
// does: it needs a recipient; From becomes the account's address unless
// it is one of its send-as addresses (Google rewrites it, it does not
// refuse); Date and Message-ID are added when missing.
func (g *gmailFake) outgoing(mb *mailbox, raw []byte) ([]byte, error) {
	e, err := parseMessage(raw)
	if err != nil {
		return nil, &gmailError{http.StatusBadRequest, "Invalid raw message: " + err.Error()}
	}
	recipients := 0
	for _, h := range []string{"To", "Cc", "Bcc"} {
		v := e.header.get(h)
		if strings.TrimSpace(v) == "" {
			continue
		}
		list, err := mail.ParseAddressList(v)
		if err != nil {
			return nil, &gmailError{http.StatusBadRequest, "Invalid " + h + " header"}
		}
		recipients += len(list)
	}
	if recipients == 0 {
		return nil, &gmailError{http.StatusBadRequest, "Recipient address required"}
	}
	from, err := mail.ParseAddress(e.header.get("From"))
	if err != nil || mb.sendAs(from.Address) == nil {
		name := ""
		if from != nil {
			name = from.Name
		}
		raw = setField(raw, "From", (&mail.Address{Name: name, Address: mb.email}).String())
	}
	if e.header.get("Date") == "" {
		raw = setField(raw, "Date", g.s.clock().Format(time.RFC1123Z))
	}
	if e.header.get("Message-ID") == "" {
		raw = setField(raw, "Message-ID", "<CA"+randomHex(20)+"@mail.gmail.com>")
	}
	return raw, nil
}

// send stores an outgoing message as sent: SENT, and INBOX too when it
// is addressed to the account itself.
func (g *gmailFake) send(mb *mailbox, raw []byte, threadID string) (*mailMessage, error) {
	raw, err := g.outgoing(mb, raw)
	if err != nil {
		return nil, err
	}
	labels := []string{"SENT"}
	e, _ := parseMessage(raw)
	for _, h := range []string{"To", "Cc", "Bcc"} {
		for _, a := range addresses(e.header.get(h)) {
			if mb.sendAs(a.Address) != nil && !slices.Contains(labels, "INBOX") {
				labels = append(labels, "INBOX")
			}
		}
	}
	m, err := g.newMessage(mb, raw, labels, threadID, 0)
	if err != nil {
		return nil, err
	}
	mb.add(m)
	return m, nil
}

// sendMessage is messages.send.
func (g *gmailFake) sendMessage(w http.ResponseWriter, r *http.Request, mb *mailbox) {
	var in gmail.Message
	media, ok := readRequest(w, r, &in)
	if !ok {
		return
	}
	raw, err := messageBytes(media, &in)
	if err == nil {
		var m *mailMessage
		if m, err = g.send(mb, raw, in.ThreadId); err == nil {
			writeJSON(w, m.labelled())
			return
		}
	}
	writeErr(w, err)
}
