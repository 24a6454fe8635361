package gmail

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// outgoing is a message to compose: what send and create_draft build.
type outgoing struct {
	From        *mail.Address
	To, Cc, Bcc []*mail.Address
	Subject     string
	Text        string // the plain-text body
	HTML        string // an HTML alternative; "" for text only
	Attachments []fileAttachment
	InReplyTo   string   // the original's Message-ID, for a reply
	References  []string // the thread's Message-IDs, oldest first
	MessageID   string   // "" makes one
	Date        time.Time
	ThreadID    string // Gmail's thread of a reply (not a header)
}

// fileAttachment is a file to attach.
type fileAttachment struct {
	Name string // the file's name, no folder
	Type string // its MIME type
	Data []byte
}

// lineLen is where header lines are folded and base64 wrapped (RFC 2045's
// 76 characters).
const lineLen = 76

// compose renders m as an RFC 5322 message with CRLF line ends: header
// values RFC 2047-encoded where not ASCII, UTF-8 bodies (quoted-printable
// when not plain 7-bit text), multipart/alternative for an HTML body,
// multipart/mixed with base64 parts for attachments.
func (m *outgoing) compose() ([]byte, error) {
	var h bytes.Buffer
	if m.Date.IsZero() {
		m.Date = time.Now()
	}
	if m.MessageID == "" {
		m.MessageID = newMessageID(m.From)
	}
	if m.From != nil {
		writeHeader(&h, "From", m.From.String())
	}
	for _, f := range []struct {
		name string
		list []*mail.Address
	}{{"To", m.To}, {"Cc", m.Cc}, {"Bcc", m.Bcc}} {
		if len(f.list) > 0 {
			writeHeader(&h, f.name, addressList(f.list))
		}
	}
	writeHeader(&h, "Subject", encodeHeader(m.Subject))
	writeHeader(&h, "Date", m.Date.Format(time.RFC1123Z))
	writeHeader(&h, "Message-ID", m.MessageID)
	if m.InReplyTo != "" {
		writeHeader(&h, "In-Reply-To", m.InReplyTo)
	}
	if len(m.References) > 0 {
		writeHeader(&h, "References", strings.Join(m.References, " "))
	}
	writeHeader(&h, "MIME-Version", "1.0")

	var body bytes.Buffer
	var ctype string
	var err error
	if len(m.Attachments) == 0 {
		ctype, err = m.writeContent(&h, &body)
		if err != nil {
			return nil, err
		}
		if ctype != "" {
			writeHeader(&h, "Content-Type", ctype)
		}
	} else {
		mw := multipart.NewWriter(&body)
		writeHeader(&h, "Content-Type", mime.FormatMediaType("multipart/mixed", map[string]string{"boundary": mw.Boundary()}))
		if err := m.writeContentPart(mw); err != nil {
			return nil, err
		}
		for _, a := range m.Attachments {
			if err := writeAttachment(mw, a); err != nil {
				return nil, err
			}
		}
		if err := mw.Close(); err != nil {
			return nil, err
		}
	}
	h.WriteString("\r\n")
	h.Write(body.Bytes())
	return h.Bytes(), nil
}

// writeContent writes the message's text (and HTML) as the whole body:
// the single part's own headers go to h; it returns the Content-Type for
// a multipart body ("" when it wrote it to h).
func (m *outgoing) writeContent(h, body *bytes.Buffer) (string, error) {
	if m.HTML == "" {
		enc, data := textBody(m.Text)
		writeHeader(h, "Content-Type", "text/plain; charset=UTF-8")
		writeHeader(h, "Content-Transfer-Encoding", enc)
		body.Write(data)
		return "", nil
	}
	mw := multipart.NewWriter(body)
	if err := m.writeAlternatives(mw); err != nil {
		return "", err
	}
	return mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": mw.Boundary()}), mw.Close()
}

// writeContentPart writes the text (and HTML) as the first part of mw.
func (m *outgoing) writeContentPart(mw *multipart.Writer) error {
	if m.HTML == "" {
		return writeTextPart(mw, "text/plain", m.Text)
	}
	var inner bytes.Buffer
	alt := multipart.NewWriter(&inner)
	if err := m.writeAlternatives(alt); err != nil {
		return err
	}
	if err := alt.Close(); err != nil {
		return err
	}
	hdr := textproto.MIMEHeader{}
	hdr.Set("Content-Type", mime.FormatMediaType("multipart/alternative", map[string]string{"boundary": alt.Boundary()}))
	w, err := mw.CreatePart(hdr)
	if err != nil {
		return err
	}
	_, err = w.Write(inner.Bytes())
	return err
}

func (m *outgoing) writeAlternatives(mw *multipart.Writer) error {
	if err := writeTextPart(mw, "text/plain", m.Text); err != nil {
		return err
	}
	return writeTextPart(mw, "text/html", m.HTML)
}

func writeTextPart(mw *multipart.Writer, ctype, text string) error {
	enc, data := textBody(text)
	hdr := textproto.MIMEHeader{}
	hdr.Set("Content-Type", ctype+"; charset=UTF-8")
	hdr.Set("Content-Transfer-Encoding", enc)
	w, err := mw.CreatePart(hdr)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// textBody encodes a UTF-8 text with CRLF line ends: as is ("7bit") when
// it is ASCII in short lines, else quoted-printable.
func textBody(text string) (encoding string, data []byte) {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	if plain7bit(text) {
		return "7bit", []byte(strings.ReplaceAll(text, "\n", "\r\n"))
	}
	var b bytes.Buffer
	w := quotedprintable.NewWriter(&b)
	io.WriteString(w, text)
	w.Close()
	return "quoted-printable", b.Bytes()
}

// plain7bit says whether text can go unencoded: printable ASCII (and
// tabs) in lines of at most 76 characters, none starting "From " or a
// lone ".", none ending in a space.
func plain7bit(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		if len(line) > lineLen || strings.HasPrefix(line, "From ") || line == "." || strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
			return false
		}
		for i := 0; i < len(line); i++ {
			if c := line[i]; (c < ' ' && c != '\t') || c > '~' {
				return false
			}
		}
	}
	return true
}

// writeAttachment writes a as a base64 part of mw, its name in both
// Content-Type and Content-Disposition (RFC 2231 when not ASCII).
func writeAttachment(mw *multipart.Writer, a fileAttachment) error {
	ctype, params, err := mime.ParseMediaType(a.Type)
	if err != nil {
		ctype, params = "application/octet-stream", map[string]string{}
	}
	params["name"] = a.Name
	ct := mime.FormatMediaType(ctype, params)
	cd := mime.FormatMediaType("attachment", map[string]string{"filename": a.Name})
	if ct == "" || cd == "" { // a name no parameter can carry
		ct, cd = "application/octet-stream", "attachment"
	}
	hdr := textproto.MIMEHeader{}
	hdr.Set("Content-Type", ct)
	hdr.Set("Content-Disposition", cd)
	hdr.Set("Content-Transfer-Encoding", "base64")
	w, err := mw.CreatePart(hdr)
	if err != nil {
		return err
	}
	_, err = w.Write(base64Lines(a.Data))
	return err
}

// base64Lines is data in base64, wrapped at 76 characters with CRLF.
func base64Lines(data []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(data)
	var b bytes.Buffer
	b.Grow(len(enc) + len(enc)/lineLen*2 + 2)
	for len(enc) > lineLen {
		b.WriteString(enc[:lineLen])
		b.WriteString("\r\n")
		enc = enc[lineLen:]
	}
	b.WriteString(enc)
	b.WriteString("\r\n")
	return b.Bytes()
}

// encodeHeader makes a header value ASCII: as is when it is, else RFC
// 2047 encoded words in UTF-8 (Q when mostly ASCII, else B).
func encodeHeader(v string) string {
	v = headerLine(v)
	ascii := 0
	for i := 0; i < len(v); i++ {
		if v[i] < utf8.RuneSelf {
			ascii++
		}
	}
	if ascii == len(v) {
		return v
	}
	if ascii*5 >= len(v)*4 { // at most a fifth of the bytes not ASCII
		return mime.QEncoding.Encode("UTF-8", v)
	}
	return mime.BEncoding.Encode("UTF-8", v)
}

// writeHeader writes "name: value" folded at spaces into lines of at
// most 76 characters where the words allow (never breaking inside one).
func writeHeader(b *bytes.Buffer, name, value string) {
	line := name + ":"
	n := len(line)
	b.WriteString(line)
	for i, word := range strings.Split(value, " ") {
		// An encoded word may start the next line even when it is the
		// first: a line holding one is at most 76 characters (RFC 2047).
		if word != "" && n+1+len(word) > lineLen && (i > 0 && n > len(name)+1 || strings.HasPrefix(word, "=?")) {
			b.WriteString("\r\n")
			n = 0
		}
		b.WriteString(" ")
		b.WriteString(word)
		n += 1 + len(word)
	}
	b.WriteString("\r\n")
}

// addressList is addresses as a header value, names RFC 2047-encoded
// where not ASCII.
func addressList(list []*mail.Address) string {
	parts := make([]string, len(list))
	for i, a := range list {
		parts[i] = a.String()
	}
	return strings.Join(parts, ", ")
}

// newMessageID makes an RFC 5322 Message-ID on the sender's domain.
func newMessageID(from *mail.Address) string {
	b := make([]byte, 12)
	rand.Read(b)
	domain := "mcptray.local"
	if from != nil {
		if i := strings.LastIndexByte(from.Address, '@'); i >= 0 && i+1 < len(from.Address) {
			domain = from.Address[i+1:]
		}
	}
	return fmt.Sprintf("<%d.%s@%s>", time.Now().UnixNano(), hex.EncodeToString(b), domain)
}

// parseAddresses reads the recipients of field: each entry one address or
// several separated by commas, with or without a name
// ("Ada <ada@example.com>").
func parseAddresses(field string, entries []string) ([]*mail.Address, error) {
	var out []*mail.Address
	for _, e := range entries {
		if strings.TrimSpace(e) == "" {
			continue
		}
		list, err := mail.ParseAddressList(e)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an email address (write ada@example.com or Ada Lovelace <ada@example.com>)", field, e)
		}
		out = append(out, list...)
	}
	return out, nil
}

// reSubject matches a subject that is already a reply: "Re:", "RE:",
// "re[2]:".
var reSubject = regexp.MustCompile(`(?i)^\s*re\s*(\[\d+\])?\s*:`)

// replySubject is the subject of a reply to subject: "Re: " added once.
func replySubject(subject string) string {
	if reSubject.MatchString(subject) {
		return subject
	}
	return "Re: " + subject
}

// maxReferences bounds the References of a reply: the thread's first
// message and the latest ones (RFC 5322 allows trimming the middle).
const maxReferences = 20

// replyReferences is what a reply to a message carries: In-Reply-To its
// Message-ID, References its References (or, without them, its
// In-Reply-To) and then its Message-ID.
func replyReferences(msgID, references, inReplyTo string) (string, []string) {
	refs := strings.Fields(references)
	if len(refs) == 0 {
		refs = strings.Fields(inReplyTo)
	}
	if msgID != "" && (len(refs) == 0 || refs[len(refs)-1] != msgID) {
		refs = append(refs, msgID)
	}
	if len(refs) > maxReferences {
		refs = append(refs[:1], refs[len(refs)-maxReferences+1:]...)
	}
	return msgID, refs
}

// replyRecipients is who a reply goes to: the original's Reply-To, else
// its From — or, when the original was the account's own, its To. With
// all, the original's To and Cc go in Cc. own (the account's addresses)
// and duplicates are left out.
func replyRecipients(from, replyTo, to, cc string, own []string, all bool) (rTo, rCc []*mail.Address) {
	isOwn := func(a *mail.Address) bool {
		for _, o := range own {
			if strings.EqualFold(o, a.Address) {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	add := func(dst []*mail.Address, list []*mail.Address, keepOwn bool) []*mail.Address {
		for _, a := range list {
			k := strings.ToLower(a.Address)
			if seen[k] || (!keepOwn && isOwn(a)) {
				continue
			}
			seen[k] = true
			dst = append(dst, a)
		}
		return dst
	}
	fromList := headerAddresses(from)
	sentByMe := len(fromList) > 0 && isOwn(fromList[0])
	switch {
	case sentByMe:
		rTo = add(rTo, headerAddresses(to), false)
		if len(rTo) == 0 { // a note to oneself
			rTo = add(rTo, fromList, true)
		}
	case replyTo != "":
		rTo = add(rTo, headerAddresses(replyTo), false)
	default:
		rTo = add(rTo, fromList, false)
	}
	if all {
		if !sentByMe {
			rCc = add(rCc, headerAddresses(to), false)
		}
		rCc = add(rCc, headerAddresses(cc), false)
	}
	return rTo, rCc
}

// headerAddresses reads an address header's value leniently: what does
// not parse as a list is tried address by address.
func headerAddresses(v string) []*mail.Address {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	if list, err := (&mail.AddressParser{WordDecoder: wordDecoder}).ParseList(v); err == nil {
		return list
	}
	var out []*mail.Address
	for _, p := range strings.Split(v, ",") {
		if a, err := (&mail.AddressParser{WordDecoder: wordDecoder}).Parse(p); err == nil {
			out = append(out, a)
		}
	}
	return out
}
