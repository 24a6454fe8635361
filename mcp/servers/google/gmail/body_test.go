package gmail

import (
	"encoding/base64"
	"strings"
	"testing"

	gm "google.golang.org/api/gmail/v1"
)

func TestHTMLToText(t *testing.T) {
	for _, c := range []struct{ name, html, want string }{
		{"paragraphs", "<p>Hello  <b>Bob</b>,</p>\n<p>see\nyou.</p>", "Hello Bob,\n\nsee you."},
		{"line breaks", "one<br>two<br><br>three", "one\ntwo\n\nthree"},
		{"links", `<a href="https://example.com/x">the report</a> and <a href="https://example.com/">https://example.com/</a> and <a href="mailto:bob@example.com">bob@example.com</a>`,
			"the report (https://example.com/x) and https://example.com/ and bob@example.com"},
		{"links without text or to nowhere", `<a href="https://t.example/px"><img src="p.gif"></a>Hi <a href="#top">top</a> <a href="javascript:void(0)">x</a>`, "Hi top x"},
		{"image alt in a link", `<a href="https://example.com/buy"><img alt="Buy now" src="b.png"></a>`, "[Buy now] (https://example.com/buy)"},
		{"script, style, head", "<html><head><title>T</title><style>p{color:red}</style></head><body><script>alert(1)</script><p>Body</p><noscript>no</noscript></body></html>", "Body"},
		{"hidden preheader", `<div style="display:none;max-height:0">Preview text&zwnj;&nbsp;&zwnj;</div><p>Real text</p><span hidden>secret</span>`, "Real text"},
		{"entities and nbsp", "Fish &amp; chips&nbsp;&nbsp;for &lt;two&gt; &#8364;5", "Fish & chips for <two> €5"},
		{"lists", "<ul><li>one</li><li>two<ol><li>a</li><li>b</li></ol></li></ul><p>after</p>", "- one\n- two\n  1. a\n  2. b\n\nafter"},
		{"quote", "<p>I agree.</p><blockquote><p>Shall we?</p><p>Say yes.</p></blockquote>", "I agree.\n\n> Shall we?\n\n> Say yes."},
		{"pre keeps spaces", "<pre>a  b\n  c</pre><p>d   e</p>", "a  b\n  c\n\nd e"},
		{"table cells", "<table><tr><td>Total</td><td>€12</td></tr><tr><td>Tax</td><td>€2</td></tr></table>", "Total €12\nTax €2"},
		{"headings and rules", "<h1>Title</h1>text<hr>more", "Title\n\ntext\n---\nmore"},
		{"not html at all", "just text", "just text"},
	} {
		if got := htmlToText(c.html); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func b64(s string) string { return base64.URLEncoding.EncodeToString([]byte(s)) }

func textPart(mimeType, body string, headers ...string) *gm.MessagePart {
	p := &gm.MessagePart{MimeType: mimeType, Body: &gm.MessagePartBody{Data: b64(body), Size: int64(len(body))}}
	for i := 0; i+1 < len(headers); i += 2 {
		p.Headers = append(p.Headers, &gm.MessagePartHeader{Name: headers[i], Value: headers[i+1]})
	}
	return p
}

func multi(mimeType string, parts ...*gm.MessagePart) *gm.MessagePart {
	return &gm.MessagePart{MimeType: mimeType, Parts: parts, Body: &gm.MessagePartBody{}}
}

func filePart(id, name, mimeType string, size int64) *gm.MessagePart {
	return &gm.MessagePart{PartId: id, MimeType: mimeType, Filename: name, Body: &gm.MessagePartBody{AttachmentId: "ANGjdJ" + id, Size: size}}
}

// The text of a payload tree: plain text preferred in an alternative,
// else HTML made text; text parts of a mixed one after the other;
// attachments left out but listed.
func TestBodyText(t *testing.T) {
	latin1 := string([]byte{'G', 'r', 0xfc, 0xdf, 'e'}) // "Grüße" in ISO-8859-1
	for _, c := range []struct {
		name string
		p    *gm.MessagePart
		want string
	}{
		{"plain", textPart("text/plain", "Hello\n"), "Hello"},
		{"html only", textPart("text/html", "<p>Hello <i>you</i></p>"), "Hello you"},
		{"alternative prefers plain", multi("multipart/alternative", textPart("text/plain", "plain one"), textPart("text/html", "<p>html one</p>")), "plain one"},
		{"alternative, html first", multi("multipart/alternative", textPart("text/html", "<p>html one</p>"), textPart("text/plain", "plain one")), "plain one"},
		{"alternative without plain", multi("multipart/alternative", multi("multipart/related", textPart("text/html", "<p>rich</p>"), filePart("1.1", "", "image/png", 10))), "rich"},
		{"mixed with attachments", multi("multipart/mixed",
			multi("multipart/alternative", textPart("text/plain", "see attached"), textPart("text/html", "<p>see <b>attached</b></p>")),
			filePart("1", "report.pdf", "application/pdf", 1234),
			textPart("text/plain", "a text file", "Content-Disposition", `attachment; filename="notes.txt"`)), "see attached"},
		{"mixed with two inline texts", multi("multipart/mixed", textPart("text/plain", "first"), textPart("text/plain", "second")), "first\n\nsecond"},
		{"latin-1", textPart("text/plain", latin1, "Content-Type", "text/plain; charset=ISO-8859-1"), "Grüße"},
		{"windows-1252 html", textPart("text/html", "<p>"+string([]byte{0x93, 'q', 0x94})+"</p>", "Content-Type", "text/html; charset=windows-1252"), "\u201cq\u201d"},
	} {
		if got := bodyText(c.p); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestAttachmentsOfAPayload(t *testing.T) {
	p := multi("multipart/mixed",
		multi("multipart/alternative", textPart("text/plain", "x"), textPart("text/html", "y")),
		filePart("1", "report.pdf", "application/pdf", 1234),
		&gm.MessagePart{MimeType: "image/png", Body: &gm.MessagePartBody{AttachmentId: "inline", Size: 9}},
	)
	got := attachments(p)
	if len(got) != 2 || got[0] != (Attachment{ID: "1", Name: "report.pdf", Type: "application/pdf", Size: 1234}) ||
		got[1].ID != "0.2" || got[1].Name != "part-0.2.png" || got[1].Size != 9 {
		t.Errorf("attachments %+v", got)
	}
	if findPart(p, "1") != p.Parts[1] || findPart(p, "ANGjdJ1") != p.Parts[1] || findPart(p, "0.2") != p.Parts[2] || findPart(p, "9") != nil {
		t.Error("findPart by part id or attachment id")
	}
	if len(attachments(textPart("text/plain", "x"))) != 0 {
		t.Error("a plain message has attachments")
	}
}

func TestHeadersAreDecoded(t *testing.T) {
	p := textPart("text/plain", "", "Subject", "=?ISO-8859-1?Q?Gr=FC=DFe?= aus =?UTF-8?B?S8O2bG4=?=", "from", "Bob <bob@example.com>")
	if got := header(p, "subject"); got != "Grüße aus Köln" {
		t.Errorf("Subject %q", got)
	}
	if got := header(p, "From"); got != "Bob <bob@example.com>" {
		t.Errorf("From %q", got)
	}
}

// Offsets count characters, never split one, and say where to go on.
func TestCutText(t *testing.T) {
	text := "äbcdéfghij" // 10 characters, 12 bytes
	for _, c := range []struct {
		offset, max int
		want        string
		next        int
	}{
		{0, 4, "äbcd", 4},
		{4, 4, "éfgh", 8},
		{8, 4, "ij", 0},
		{0, 10, text, 0},
		{0, 100, text, 0},
		{10, 4, "", 0},
		{12, 4, "", 0},
	} {
		got, next := cutText(text, c.offset, c.max)
		if got != c.want || next != c.next {
			t.Errorf("cutText(%d, %d) = %q, %d; want %q, %d", c.offset, c.max, got, next, c.want, c.next)
		}
	}
	if textLen(text) != 10 {
		t.Error("textLen counts bytes")
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf":                      "report.pdf",
		"../../etc/passwd":                "passwd",
		`C:\Users\x\evil.exe`:             "evil.exe",
		".bashrc":                         "bashrc",
		"a\x00b\nc.txt":                   "a_b_c.txt",
		"":                                "attachment",
		"..":                              "attachment",
		"Übersicht März.txt":              "Übersicht März.txt",
		strings.Repeat("ü", 150) + ".pdf": strings.Repeat("ü", 98) + ".pdf",
	} {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
}
