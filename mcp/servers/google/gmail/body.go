package gmail

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	gm "google.golang.org/api/gmail/v1"
)

// Attachment is a file attached to a message.
type Attachment struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Size int64  `json:"size"`
}

// wordDecoder decodes RFC 2047 words in any charset Go knows of.
var wordDecoder = &mime.WordDecoder{CharsetReader: charset.NewReaderLabel}

// decodeHeader decodes what RFC 2047 words a header value still holds
// (Gmail decodes most itself).
func decodeHeader(v string) string {
	if !strings.Contains(v, "=?") {
		return v
	}
	d, err := wordDecoder.DecodeHeader(v)
	if err != nil {
		return v
	}
	return d
}

// header is the first header name of p, decoded; "" when absent.
func header(p *gm.MessagePart, name string) string {
	if p == nil {
		return ""
	}
	for _, h := range p.Headers {
		if strings.EqualFold(h.Name, name) {
			return decodeHeader(h.Value)
		}
	}
	return ""
}

// headerAll is every header name of p, decoded, joined with ", ": a
// message may carry an address header twice, and each line counts.
func headerAll(p *gm.MessagePart, name string) string {
	if p == nil {
		return ""
	}
	var vals []string
	for _, h := range p.Headers {
		if strings.EqualFold(h.Name, name) && strings.TrimSpace(h.Value) != "" {
			vals = append(vals, decodeHeader(h.Value))
		}
	}
	return strings.Join(vals, ", ")
}

// decodeData reads a part's body data: base64url, padded or not (the
// standard alphabet accepted too).
func decodeData(s string) []byte {
	s = strings.TrimRight(s, "=")
	s = strings.NewReplacer("+", "-", "/", "_", "\n", "", "\r", "").Replace(s)
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// partText is a text part's content as UTF-8 with \n line ends: decoded
// from its charset (Gmail hands the bytes over in the charset the sender
// used).
func partText(p *gm.MessagePart) string {
	if p.Body == nil || p.Body.Data == "" {
		return ""
	}
	data := decodeData(p.Body.Data)
	_, params, _ := mime.ParseMediaType(header(p, "Content-Type"))
	cs := strings.ToLower(params["charset"])
	if cs != "" && cs != "utf-8" && cs != "utf8" && cs != "us-ascii" {
		if r, err := charset.NewReaderLabel(cs, bytes.NewReader(data)); err == nil {
			if conv, err := io.ReadAll(r); err == nil {
				data = conv
			}
		}
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
}

func mimeType(p *gm.MessagePart) string { return strings.ToLower(p.MimeType) }

// isAttachment says whether a leaf part is a file rather than the text:
// it has a name, says it is an attachment, or is neither plain text nor
// HTML.
func isAttachment(p *gm.MessagePart) bool {
	if strings.HasPrefix(mimeType(p), "multipart/") {
		return false
	}
	if p.Filename != "" {
		return true
	}
	if d, _, _ := mime.ParseMediaType(header(p, "Content-Disposition")); d == "attachment" {
		return true
	}
	t := mimeType(p)
	return t != "text/plain" && t != "text/html"
}

// partIDs gives each part its Gmail partId, or where it sits ("0.1")
// when the API gave none.
func partID(p *gm.MessagePart, where string) string {
	if p.PartId != "" {
		return p.PartId
	}
	return where
}

// attachments lists the files of a message, in order.
func attachments(p *gm.MessagePart) []Attachment {
	out := []Attachment{}
	walkParts(p, "0", func(part *gm.MessagePart, id string) {
		if !isAttachment(part) {
			return
		}
		a := Attachment{ID: id, Name: part.Filename, Type: mimeType(part)}
		if part.Body != nil {
			a.Size = part.Body.Size
		}
		if a.Name == "" {
			a.Name = "part-" + id + extensionFor(a.Type)
		}
		out = append(out, a)
	})
	return out
}

// walkParts calls f on every leaf part under p, with its id.
func walkParts(p *gm.MessagePart, where string, f func(*gm.MessagePart, string)) {
	if p == nil {
		return
	}
	if len(p.Parts) == 0 {
		f(p, partID(p, where))
		return
	}
	for i, c := range p.Parts {
		walkParts(c, where+"."+strconv.Itoa(i), f)
	}
}

// findPart is the leaf part whose id (or Gmail attachmentId) is id.
func findPart(p *gm.MessagePart, id string) *gm.MessagePart {
	var found *gm.MessagePart
	walkParts(p, "0", func(part *gm.MessagePart, pid string) {
		if found == nil && (pid == id || (part.Body != nil && part.Body.AttachmentId == id)) {
			found = part
		}
	})
	return found
}

func extensionFor(t string) string {
	switch t {
	case "message/rfc822":
		return ".eml"
	case "text/calendar":
		return ".ics"
	}
	if exts, _ := mime.ExtensionsByType(t); len(exts) > 0 {
		return exts[0]
	}
	return ".bin"
}

// bodyText is a message's text: in each multipart/alternative the plain
// text when there is one, else the HTML made text; the text parts of
// other multiparts one after the other. Attachments are left out.
func bodyText(p *gm.MessagePart) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(renderPart(p))
}

// otherVersions are the texts of p's text parts (plain or HTML, not
// attachments) that body does not already hold, each once: the versions
// of a multipart/alternative that bodyText passed over, one of which a
// mail app may show instead.
func otherVersions(p *gm.MessagePart, body string) []string {
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	seen := norm(body)
	var out []string
	walkParts(p, "", func(part *gm.MessagePart, _ string) {
		if isAttachment(part) {
			return
		}
		var t string
		switch mimeType(part) {
		case "text/html":
			t = htmlToText(partText(part))
		case "text/plain":
			t = partText(part)
		default:
			return
		}
		if n := norm(t); n != "" && !strings.Contains(seen, n) {
			out = append(out, strings.TrimSpace(t))
			seen += "\x00" + n
		}
	})
	return out
}

func renderPart(p *gm.MessagePart) string {
	t := mimeType(p)
	switch {
	case len(p.Parts) > 0 && t == "multipart/alternative":
		best, score := (*gm.MessagePart)(nil), 0
		for _, c := range p.Parts {
			if sc := textScore(c); sc > score {
				best, score = c, sc
			}
		}
		if best == nil {
			return ""
		}
		return renderPart(best)
	case len(p.Parts) > 0:
		var texts []string
		for _, c := range p.Parts {
			if s := strings.TrimSpace(renderPart(c)); s != "" {
				texts = append(texts, s)
			}
		}
		return strings.Join(texts, "\n\n")
	case isAttachment(p):
		return ""
	case t == "text/html":
		return htmlToText(partText(p))
	default:
		return partText(p)
	}
}

// textScore ranks an alternative: plain text 3, something holding plain
// text 2, HTML (or something holding it) 1, nothing to read 0.
func textScore(p *gm.MessagePart) int {
	plain, htm := false, false
	walkParts(p, "", func(part *gm.MessagePart, _ string) {
		if isAttachment(part) {
			return
		}
		switch mimeType(part) {
		case "text/plain":
			plain = true
		case "text/html":
			htm = true
		}
	})
	switch {
	case plain && len(p.Parts) == 0:
		return 3
	case plain:
		return 2
	case htm:
		return 1
	}
	return 0
}

// cutText is the runes of text from offset on, at most max of them, and
// the offset to go on from (0 when nothing is left).
func cutText(text string, offset, max int) (part string, next int) {
	if offset < 0 {
		offset = 0
	}
	i := 0
	start := len(text)
	for pos := range text {
		if i == offset {
			start = pos
			break
		}
		i++
	}
	rest := text[start:]
	n := 0
	for pos := range rest {
		if n == max {
			return rest[:pos], offset + n
		}
		n++
	}
	return rest, 0
}

// textLen is text's length in runes (the unit of offsets).
func textLen(text string) int { return utf8.RuneCountInString(text) }

// HTML to text.

// skipped are elements whose content is never text.
var skipped = map[string]bool{"script": true, "style": true, "head": true, "title": true, "template": true,
	"noscript": true, "svg": true, "object": true, "iframe": true}

// blocks are elements that start and end a line; paragraphs a blank one.
var blocks = map[string]int{"p": 2, "h1": 2, "h2": 2, "h3": 2, "h4": 2, "h5": 2, "h6": 2, "blockquote": 2, "pre": 2,
	"table": 1, "ul": 1, "ol": 1, "dl": 1, "div": 1, "section": 1, "article": 1, "header": 1, "footer": 1, "main": 1,
	"nav": 1, "aside": 1, "tr": 1, "li": 1, "dt": 1, "dd": 1, "form": 1, "address": 1, "figure": 1, "figcaption": 1,
	"center": 1, "hr": 1, "fieldset": 1, "details": 1, "summary": 1, "caption": 1}

// hiddenStyle matches an inline style that hides an element (preheaders).
var hiddenStyle = regexp.MustCompile(`(?i)display\s*:\s*none|visibility\s*:\s*hidden|max-height\s*:\s*0(px)?\s*(;|$)`)

// invisible are characters mail templates pad with.
var invisible = strings.NewReplacer("\u200b", "", "\u200c", "", "\u200d", "", "\ufeff", "", "\u034f", "", "\u00ad", "", "\u2060", "")

// htmlToText renders HTML as plain text: blocks on their own lines,
// whitespace collapsed (kept in pre), lists with "- " or "1. ", quotes
// with "> ", links as "text (url)", images as their alt text; script,
// style, head and hidden elements dropped.
func htmlToText(src string) string {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return src
	}
	w := &textWriter{}
	w.node(doc)
	return w.String()
}

// textWriter accumulates the text of an HTML tree.
type textWriter struct {
	b        strings.Builder
	newlines int  // line breaks owed before the next text
	space    bool // a space owed before the next text
	midLine  bool // the current line has text (else the quote prefix is owed)
	wrote    bool // some text has been written
	pre      int  // depth of pre elements
	quote    int  // depth of blockquotes
	lists    []int
}

func (w *textWriter) String() string {
	lines := strings.Split(w.b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	out := strings.Join(lines, "\n")
	for strings.Contains(out, "\n\n\n") {
		out = strings.ReplaceAll(out, "\n\n\n", "\n\n")
	}
	return strings.TrimSpace(out)
}

// block asks for n line ends (1: a new line, 2: a blank line) before the
// next text.
func (w *textWriter) block(n int) {
	if w.wrote && n > w.newlines {
		w.newlines = n
	}
	w.space = false
}

// flush writes what is owed before the next text: line breaks and the
// quote prefix, or a space.
func (w *textWriter) flush() {
	if w.newlines > 0 && w.wrote {
		w.b.WriteString(strings.Repeat("\n", w.newlines))
		w.midLine = false
	}
	w.newlines = 0
	switch {
	case !w.midLine:
		w.b.WriteString(strings.Repeat("> ", w.quote))
		w.midLine = true
	case w.space && !strings.HasSuffix(w.b.String(), " "):
		w.b.WriteByte(' ')
	}
	w.space = false
}

// write writes s after what is owed.
func (w *textWriter) write(s string) {
	w.flush()
	w.b.WriteString(s)
	w.wrote = true
}

// text writes s, its whitespace collapsed outside pre.
func (w *textWriter) text(s string) {
	s = invisible.Replace(s)
	if s == "" {
		return
	}
	if w.pre > 0 {
		for i, line := range strings.Split(s, "\n") {
			if i > 0 {
				if !w.wrote {
					w.wrote = true // a blank first line of pre still counts
				}
				w.newlines++
			}
			if line != "" {
				w.write(line)
			}
		}
		return
	}
	if isSpace(firstRune(s)) && w.wrote {
		w.space = true
	}
	for i, f := range strings.FieldsFunc(s, isSpace) {
		if i > 0 {
			w.space = true
		}
		w.write(f)
	}
	if isSpace(lastRune(s)) && w.wrote {
		w.space = true
	}
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\u00a0'
}

func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }
func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func (w *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
	default:
		w.children(n)
		return
	}
	tag := n.Data
	if skipped[tag] || hiddenStyle.MatchString(attr(n, "style")) || hasAttr(n, "hidden") {
		return
	}
	switch tag {
	case "br":
		if w.wrote {
			w.newlines = min(w.newlines+1, 2)
		}
		w.space = false
		return
	case "hr":
		w.block(1)
		w.text("---")
		w.block(1)
		return
	case "img":
		if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
			w.text("[" + alt + "]")
		}
		return
	case "td", "th":
		w.space = w.wrote
		w.children(n)
		w.space = w.wrote
		return
	case "a":
		w.link(n)
		return
	}
	lines, isBlock := blocks[tag]
	if isBlock {
		w.block(lines)
	}
	switch tag {
	case "pre":
		w.pre++
		defer func() { w.pre-- }()
	case "blockquote":
		w.quote++
		defer func() { w.quote-- }()
	case "ul":
		w.lists = append(w.lists, -1)
		defer func() { w.lists = w.lists[:len(w.lists)-1] }()
	case "ol":
		w.lists = append(w.lists, 0)
		defer func() { w.lists = w.lists[:len(w.lists)-1] }()
	case "li":
		w.listItem()
	}
	w.children(n)
	if isBlock {
		w.block(lines)
	}
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

// listItem writes an item's marker: "- ", or its number in an ol,
// indented by the lists around it.
func (w *textWriter) listItem() {
	marker := "- "
	depth := len(w.lists)
	if depth > 0 && w.lists[depth-1] >= 0 {
		w.lists[depth-1]++
		marker = strconv.Itoa(w.lists[depth-1]) + ". "
	}
	w.block(1)
	w.write(strings.Repeat("  ", max(depth-1, 0)) + marker)
}

// link writes an a element as "text (url)": the url left out when it is
// the text already, or not one to follow (#anchors, javascript:).
func (w *textWriter) link(n *html.Node) {
	start := w.b.Len()
	w.children(n)
	href := strings.TrimSpace(attr(n, "href"))
	label := strings.TrimSpace(w.b.String()[start:])
	lower := strings.ToLower(href)
	if href == "" || strings.HasPrefix(href, "#") || strings.HasPrefix(lower, "javascript:") || label == "" {
		return
	}
	bare := strings.TrimPrefix(href, "mailto:")
	if label == href || label == bare || strings.TrimSuffix(label, "/") == strings.TrimSuffix(href, "/") ||
		strings.TrimPrefix(strings.TrimPrefix(href, "https://"), "http://") == label {
		return
	}
	w.space = false
	w.b.WriteString(" (" + bare + ")")
}

// safeName is a file name from an attachment's name: its last element,
// without control characters or a leading dot, at most 200 bytes;
// "attachment" when nothing is left.
func safeName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(name)
	name = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r == '/' || r == ':' || r == '*' || r == '?' || r == '"' || r == '<' || r == '>' || r == '|' {
			return '_'
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ".")
	if len(name) > 200 {
		ext := path.Ext(name)
		if len(ext) > 20 {
			ext = ""
		}
		cut := 200 - len(ext)
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + ext
	}
	if name == "" || name == "." || name == "/" {
		return "attachment"
	}
	return name
}
