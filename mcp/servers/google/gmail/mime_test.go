package gmail

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
	"time"
)

// parsed is a composed message read back with net/mail and
// mime/multipart: its headers and its leaf parts (bodies decoded).
type parsed struct {
	header mail.Header
	parts  []leaf
}

type leaf struct {
	ctype, params, disposition string
	filename                   string
	body                       []byte
}

// parseBack reads raw as a mail reader would, checking on the way that
// every line ends in CRLF and is at most 998 bytes.
func parseBack(t *testing.T, raw []byte) parsed {
	t.Helper()
	for i, line := range bytes.SplitAfter(raw, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !bytes.HasSuffix(line, []byte("\r\n")) && i != len(bytes.SplitAfter(raw, []byte("\n")))-1 {
			t.Fatalf("line %d does not end in CRLF: %q", i+1, line)
		}
		if len(line) > 1000 {
			t.Fatalf("line %d is %d bytes long", i+1, len(line))
		}
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("net/mail cannot read it: %v\n%s", err, raw)
	}
	p := parsed{header: msg.Header}
	var walk func(ctype, cte string, hdr map[string][]string, r io.Reader)
	walk = func(ctype, cte string, hdr map[string][]string, r io.Reader) {
		mt, params, err := mime.ParseMediaType(ctype)
		if err != nil {
			t.Fatalf("Content-Type %q: %v", ctype, err)
		}
		if strings.HasPrefix(mt, "multipart/") {
			mr := multipart.NewReader(r, params["boundary"])
			for {
				part, err := mr.NextPart()
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Fatalf("reading the parts of %s: %v", mt, err)
				}
				walk(part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"), part.Header, part)
			}
		}
		body, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		switch strings.ToLower(cte) {
		case "base64":
			for _, l := range strings.Split(strings.TrimSpace(string(body)), "\r\n") {
				if len(l) > lineLen {
					t.Errorf("a base64 line of %d characters", len(l))
				}
			}
			if body, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(string(body), "\r\n", "")); err != nil {
				t.Fatalf("base64: %v", err)
			}
		case "quoted-printable": // multipart.Reader decodes parts; the top level is ours to decode
			if hdr != nil && hdr["Content-Transfer-Encoding"] != nil {
				t.Fatalf("quoted-printable not decoded")
			}
		}
		l := leaf{ctype: mt, params: params["charset"], body: body}
		if d := textprotoGet(hdr, "Content-Disposition"); d != "" {
			disp, dp, err := mime.ParseMediaType(d)
			if err != nil {
				t.Fatalf("Content-Disposition %q: %v", d, err)
			}
			l.disposition, l.filename = disp, dp["filename"]
		}
		p.parts = append(p.parts, l)
	}
	walk(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), nil, msg.Body)
	return p
}

func textprotoGet(h map[string][]string, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func addr(t *testing.T, s string) *mail.Address {
	t.Helper()
	a, err := mail.ParseAddress(s)
	must(t, err)
	return a
}

// A message with a non-ASCII subject, names, text, HTML and two
// attachments reads back as composed.
func TestComposeReadsBack(t *testing.T) {
	subject := "Grüße aus Köln — Überweisung für März " + strings.Repeat("und noch mehr Text ", 6) + "✓"
	m := &outgoing{
		From:    &mail.Address{Name: "Ada Lövelace", Address: "ada@example.com"},
		To:      []*mail.Address{addr(t, "bob@example.com"), {Name: "Zoë, the Reviewer", Address: "zoe@example.com"}},
		Cc:      []*mail.Address{addr(t, "carol@example.com")},
		Bcc:     []*mail.Address{addr(t, "dan@example.com")},
		Subject: subject,
		Text:    "Hallo Bob,\n\ndie Überweisung ist da.\nFrom here on a line that is longer than seventy-six characters, so that it needs a soft break.\n.\n",
		HTML:    "<p>Hallo Bob,</p><p>die <b>Überweisung</b> ist da.</p>",
		Attachments: []fileAttachment{
			{Name: "report.pdf", Type: "application/pdf", Data: bytes.Repeat([]byte{0, 1, 2, 250}, 1000)},
			{Name: "Übersicht März.txt", Type: "text/plain; charset=utf-8", Data: []byte("ä\n")},
		},
		InReplyTo:  "<orig@example.com>",
		References: []string{"<first@example.com>", "<orig@example.com>"},
		Date:       time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC),
	}
	raw, err := m.compose()
	must(t, err)
	for _, line := range strings.Split(string(raw[:bytes.Index(raw, []byte("\r\n\r\n"))]), "\r\n") {
		if len(line) > 78 {
			t.Errorf("a header line of %d characters: %q", len(line), line)
		}
		for _, r := range line {
			if r > 127 {
				t.Errorf("a header line that is not ASCII: %q", line)
				break
			}
		}
	}
	p := parseBack(t, raw)
	if got, err := wordDecoder.DecodeHeader(p.header.Get("Subject")); err != nil || got != subject {
		t.Errorf("Subject read back %q (%v), want %q", got, err, subject)
	}
	from, err := (&mail.AddressParser{WordDecoder: wordDecoder}).Parse(p.header.Get("From"))
	if err != nil || from.Name != "Ada Lövelace" || from.Address != "ada@example.com" {
		t.Errorf("From %q: %+v %v", p.header.Get("From"), from, err)
	}
	to, err := (&mail.AddressParser{WordDecoder: wordDecoder}).ParseList(p.header.Get("To"))
	if err != nil || len(to) != 2 || to[1].Name != "Zoë, the Reviewer" {
		t.Errorf("To %q: %+v %v", p.header.Get("To"), to, err)
	}
	for h, want := range map[string]string{"Cc": "<carol@example.com>", "Bcc": "<dan@example.com>", "In-Reply-To": "<orig@example.com>",
		"References": "<first@example.com> <orig@example.com>", "MIME-Version": "1.0", "Date": "Thu, 03 Dec 2026 09:00:00 +0000"} {
		if got := p.header.Get(h); got != want {
			t.Errorf("%s %q, want %q", h, got, want)
		}
	}
	if id := p.header.Get("Message-ID"); !strings.HasPrefix(id, "<") || !strings.HasSuffix(id, "@example.com>") {
		t.Errorf("Message-ID %q", id)
	}
	if len(p.parts) != 4 {
		t.Fatalf("%d parts, want text, html and two attachments: %+v", len(p.parts), p.parts)
	}
	if p.parts[0].ctype != "text/plain" || p.parts[0].params != "UTF-8" || string(p.parts[0].body) != strings.ReplaceAll(m.Text, "\n", "\r\n") {
		t.Errorf("text part %s %s %q", p.parts[0].ctype, p.parts[0].params, p.parts[0].body)
	}
	if p.parts[1].ctype != "text/html" || string(p.parts[1].body) != m.HTML {
		t.Errorf("html part %s %q", p.parts[1].ctype, p.parts[1].body)
	}
	if a := p.parts[2]; a.ctype != "application/pdf" || a.disposition != "attachment" || a.filename != "report.pdf" || !bytes.Equal(a.body, m.Attachments[0].Data) {
		t.Errorf("pdf part %s %s %s, %d bytes", a.ctype, a.disposition, a.filename, len(a.body))
	}
	if a := p.parts[3]; a.filename != "Übersicht März.txt" || string(a.body) != "ä\n" {
		t.Errorf("non-ASCII file name: %q %q", a.filename, a.body)
	}
}

// Text alone is one text/plain part: 7bit when it can be, else
// quoted-printable; a multipart/alternative when there is HTML.
func TestComposeTextOnly(t *testing.T) {
	for _, c := range []struct {
		text, cte string
	}{
		{"Hi Bob,\nsee you at 9.\n", "7bit"},
		{"Grüße\n", "quoted-printable"},
		{"From the top\n", "quoted-printable"},
		{strings.Repeat("x", 100), "quoted-printable"},
	} {
		raw, err := (&outgoing{From: addr(t, "ada@example.com"), To: []*mail.Address{addr(t, "bob@example.com")}, Subject: "Hi", Text: c.text}).compose()
		must(t, err)
		msg, err := mail.ReadMessage(bytes.NewReader(raw))
		must(t, err)
		if got := msg.Header.Get("Content-Transfer-Encoding"); got != c.cte || msg.Header.Get("Content-Type") != "text/plain; charset=UTF-8" {
			t.Errorf("%q: %s, %s", c.text, got, msg.Header.Get("Content-Type"))
		}
		if msg.Header.Get("Subject") != "Hi" {
			t.Errorf("an ASCII subject is encoded: %q", msg.Header.Get("Subject"))
		}
	}
	raw, err := (&outgoing{From: addr(t, "ada@example.com"), To: []*mail.Address{addr(t, "bob@example.com")}, Text: "plain", HTML: "<b>bold</b>"}).compose()
	must(t, err)
	p := parseBack(t, raw)
	if ct := p.header.Get("Content-Type"); !strings.HasPrefix(ct, "multipart/alternative;") || len(p.parts) != 2 || string(p.parts[0].body) != "plain" {
		t.Errorf("text and HTML: %s %+v", ct, p.parts)
	}
}

func TestEncodeHeader(t *testing.T) {
	for _, s := range []string{"plain", "Grüße", "日本語の件名", "Line\r\nbreak injected", strings.Repeat("ü", 100)} {
		enc := encodeHeader(s)
		for _, r := range enc {
			if r > 127 || r == '\r' || r == '\n' {
				t.Errorf("%q encoded as %q", s, enc)
				break
			}
		}
		dec, err := wordDecoder.DecodeHeader(enc)
		want := strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ")
		if err != nil || dec != want {
			t.Errorf("%q → %q → %q (%v)", s, enc, dec, err)
		}
	}
}

func TestReplySubject(t *testing.T) {
	for in, want := range map[string]string{
		"Lunch":          "Re: Lunch",
		"Re: Lunch":      "Re: Lunch",
		"RE: Lunch":      "RE: Lunch",
		"re: lunch":      "re: lunch",
		"Re[2]: Lunch":   "Re[2]: Lunch",
		"Re : Lunch":     "Re : Lunch",
		"Fwd: Lunch":     "Re: Fwd: Lunch",
		"Report for Q3":  "Re: Report for Q3",
		"Reply needed":   "Re: Reply needed",
		"":               "Re: ",
		"Grüße aus Köln": "Re: Grüße aus Köln",
	} {
		if got := replySubject(in); got != want {
			t.Errorf("replySubject(%q) = %q, want %q", in, got, want)
		}
	}
}

// References = the original's References + its Message-ID; In-Reply-To
// = its Message-ID.
func TestReplyReferences(t *testing.T) {
	for _, c := range []struct {
		id, refs, irt string
		wantRefs      string
	}{
		{"<c@x>", "<a@x> <b@x>", "<b@x>", "<a@x> <b@x> <c@x>"},
		{"<c@x>", "", "<b@x>", "<b@x> <c@x>"},
		{"<c@x>", "", "", "<c@x>"},
		{"<c@x>", "<a@x>\r\n <b@x>", "", "<a@x> <b@x> <c@x>"},
		{"<c@x>", "<a@x> <c@x>", "", "<a@x> <c@x>"},
	} {
		irt, refs := replyReferences(c.id, c.refs, c.irt)
		if irt != c.id || strings.Join(refs, " ") != c.wantRefs {
			t.Errorf("%+v: In-Reply-To %s, References %s", c, irt, refs)
		}
	}
	var long []string
	for i := range 30 {
		long = append(long, "<"+string(rune('a'+i%26))+string(rune('0'+i/26))+"@x>")
	}
	_, refs := replyReferences("<last@x>", strings.Join(long, " "), "")
	if len(refs) != maxReferences || refs[0] != long[0] || refs[len(refs)-1] != "<last@x>" {
		t.Errorf("long References trimmed to %v", refs)
	}
}

// Reply recipients: the sender (or Reply-To); reply all adds To and Cc,
// never the account's own addresses nor duplicates.
func TestReplyRecipients(t *testing.T) {
	own := []string{"ada@example.com", "ada@work.example"}
	list := func(as []*mail.Address) string {
		var s []string
		for _, a := range as {
			s = append(s, a.Address)
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		name                  string
		from, replyTo, to, cc string
		all                   bool
		wantTo, wantCc        string
	}{
		{"reply", "Bob <bob@example.com>", "", "ada@example.com, carol@example.com", "dan@example.com", false, "bob@example.com", ""},
		{"reply all", "Bob <bob@example.com>", "", "Ada <ADA@example.com>, carol@example.com", "dan@example.com, ada@work.example, bob@example.com", true,
			"bob@example.com", "carol@example.com,dan@example.com"},
		{"reply-to", "Bob <bob@example.com>", "list@example.com", "ada@example.com", "", true, "list@example.com", ""},
		{"to one's own message", "Ada <ada@example.com>", "", "bob@example.com, carol@example.com", "dan@example.com", false, "bob@example.com,carol@example.com", ""},
		{"all to one's own", "ada@work.example", "", "bob@example.com", "dan@example.com, ada@example.com", true, "bob@example.com", "dan@example.com"},
		{"a note to oneself", "ada@example.com", "", "ada@example.com", "", false, "ada@example.com", ""},
		{"encoded names", "=?UTF-8?q?B=C3=B6b?= <bob@example.com>", "", "ada@example.com", "", true, "bob@example.com", ""},
	} {
		to, cc := replyRecipients(c.from, c.replyTo, c.to, c.cc, own, c.all)
		if list(to) != c.wantTo || list(cc) != c.wantCc {
			t.Errorf("%s: to %s cc %s, want to %s cc %s", c.name, list(to), list(cc), c.wantTo, c.wantCc)
		}
	}
}

func TestParseAddresses(t *testing.T) {
	got, err := parseAddresses("to", []string{"bob@example.com", "Zoë <zoe@example.com>, carol@example.com", " "})
	if err != nil || len(got) != 3 || got[1].Name != "Zoë" {
		t.Errorf("%+v %v", got, err)
	}
	if _, err := parseAddresses("cc", []string{"bob"}); err == nil || !strings.Contains(err.Error(), `cc: "bob" is not an email address`) {
		t.Errorf("a bad address: %v", err)
	}
}

// A line break in a header value (a subject an assistant wrote, a file
// name) goes out as a space, and the confirmation shows it so: it cannot
// draw a recipient line of its own above what the person reads.
func TestConfirmationHeadersAreOneLine(t *testing.T) {
	c := confirmation{From: "ada@example.com", To: "bob@example.com",
		Subject: "Lunch\nTo: boss@example.com\r\nBcc: all@example.com", Body: "hi",
		Attachments: []Attachment{{Name: "a\nTo: x.pdf", Size: 3}}}
	msg := c.message()
	for _, bad := range []string{"\nTo: boss", "\nBcc: all", "\nTo: x.pdf"} {
		if strings.Contains(msg, bad) {
			t.Errorf("the confirmation has a line %q:\n%s", strings.TrimPrefix(bad, "\n"), msg)
		}
	}
	if !strings.Contains(msg, "Subject: Lunch To: boss@example.com  Bcc: all@example.com\n") {
		t.Errorf("the subject is not shown on one line as it goes out:\n%s", msg)
	}
	if got := encodeHeader(c.Subject); got != "Lunch To: boss@example.com  Bcc: all@example.com" {
		t.Errorf("encodeHeader = %q", got)
	}
}
