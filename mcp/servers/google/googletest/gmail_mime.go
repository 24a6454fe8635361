package googletest

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strconv"
	"strings"
)

// How the fake reads a stored message: its raw RFC 822 bytes parsed into
// a tree of MIME entities, headers in their order and case.

// field is one header field as the message has it: the name's case kept,
// the value unfolded but not decoded.
type field struct{ name, value string }

type fields []field

// get is the first value of name (case-insensitive), "" if none.
func (h fields) get(name string) string {
	for _, f := range h {
		if strings.EqualFold(f.name, name) {
			return f.value
		}
	}
	return ""
}

// entity is one MIME entity of a message: its headers, its media type
// and its body with the transfer encoding removed; a multipart one has
// parts instead.
type entity struct {
	partID     string // "" for the message, "0", "1.0", … below
	header     fields
	mediaType  string // lower case, "text/plain" by default
	params     map[string]string
	filename   string
	attachment bool   // a leaf with a filename or Content-Disposition: attachment
	body       []byte // decoded; nil for multipart
	parts      []*entity
}

var wordDecoder = &mime.WordDecoder{}

// decodeHeader decodes RFC 2047 encoded words, or returns v as it is when
// it cannot.
func decodeHeader(v string) string {
	d, err := wordDecoder.DecodeHeader(v)
	if err != nil {
		return v
	}
	return d
}

// parseMessage parses a raw message, leniently as Gmail does: it fails
// only when there is no header field at all.
func parseMessage(raw []byte) (*entity, error) {
	e := parseEntity(raw, "")
	if len(e.header) == 0 {
		return nil, errors.New("no header fields")
	}
	return e, nil
}

func parseEntity(raw []byte, partID string) *entity {
	head, body := splitHead(raw)
	e := &entity{partID: partID, header: parseFields(head), mediaType: "text/plain"}
	if mt, params, err := mime.ParseMediaType(e.header.get("Content-Type")); err == nil {
		e.mediaType, e.params = strings.ToLower(mt), params
	}
	disp, dparams, _ := mime.ParseMediaType(e.header.get("Content-Disposition"))
	e.filename = decodeHeader(dparams["filename"])
	if e.filename == "" {
		e.filename = decodeHeader(e.params["name"])
	}
	if strings.HasPrefix(e.mediaType, "multipart/") && e.params["boundary"] != "" {
		for i, p := range splitMultipart(body, e.params["boundary"]) {
			id := strconv.Itoa(i)
			if partID != "" {
				id = partID + "." + id
			}
			e.parts = append(e.parts, parseEntity(p, id))
		}
		return e
	}
	e.body = decodeTransfer(body, e.header.get("Content-Transfer-Encoding"))
	e.attachment = e.filename != "" || strings.EqualFold(disp, "attachment")
	return e
}

// splitHead cuts an entity at its first empty line.
func splitHead(raw []byte) (head, body []byte) {
	for i := 0; i < len(raw); {
		j := bytes.IndexByte(raw[i:], '\n')
		if j < 0 {
			return raw, nil
		}
		line := bytes.TrimRight(raw[i:i+j], "\r")
		if len(line) == 0 {
			return raw[:i], raw[i+j+1:]
		}
		i += j + 1
	}
	return raw, nil
}

// parseFields reads a header section, unfolding continuation lines.
func parseFields(head []byte) fields {
	var out fields
	for _, line := range strings.Split(string(head), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			continue
		}
		if (line[0] == ' ' || line[0] == '\t') && len(out) > 0 {
			out[len(out)-1].value += " " + strings.TrimSpace(line)
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			continue
		}
		out = append(out, field{name: name, value: strings.TrimSpace(value)})
	}
	return out
}

// splitMultipart cuts a multipart body at its boundary lines, dropping the
// preamble and the epilogue.
func splitMultipart(body []byte, boundary string) [][]byte {
	delim := []byte("--" + boundary)
	var parts [][]byte
	start := -1
	for pos := 0; pos < len(body); {
		end := bytes.IndexByte(body[pos:], '\n')
		next := len(body)
		if end >= 0 {
			next = pos + end + 1
		}
		line := bytes.TrimRight(body[pos:next], " \t\r\n")
		if rest, ok := bytes.CutPrefix(line, delim); ok && (len(rest) == 0 || string(rest) == "--") {
			if start >= 0 {
				parts = append(parts, trimNewline(body[start:pos]))
			}
			if len(rest) > 0 {
				return parts
			}
			start = next
		}
		pos = next
	}
	if start >= 0 && start < len(body) {
		parts = append(parts, body[start:])
	}
	return parts
}

func trimNewline(b []byte) []byte {
	if bytes.HasSuffix(b, []byte("\r\n")) {
		return b[:len(b)-2]
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

func decodeTransfer(body []byte, cte string) []byte {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "base64":
		clean := bytes.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == '=' {
				return -1
			}
			return r
		}, body)
		if out, err := base64.RawStdEncoding.DecodeString(string(clean)); err == nil {
			return out
		}
	case "quoted-printable":
		if out, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body))); err == nil {
			return out
		}
	}
	return body
}

// walk calls f for e and every entity below it, depth first.
func (e *entity) walk(f func(*entity)) {
	f(e)
	for _, p := range e.parts {
		p.walk(f)
	}
}

// text is the message's readable text: its first text/plain leaf, else
// its first text/html leaf with the tags dropped.
func (e *entity) text() string {
	var plain, html *entity
	e.walk(func(p *entity) {
		if p.parts != nil || p.attachment {
			return
		}
		switch {
		case p.mediaType == "text/plain" && plain == nil:
			plain = p
		case p.mediaType == "text/html" && html == nil:
			html = p
		}
	})
	switch {
	case plain != nil:
		return plain.utf8()
	case html != nil:
		return stripTags(html.utf8())
	}
	return ""
}

// utf8 is a text leaf's body as UTF-8: Latin-1 (and Windows-1252, near
// enough) converted, other charsets taken as UTF-8.
func (e *entity) utf8() string {
	switch strings.ToLower(e.params["charset"]) {
	case "iso-8859-1", "latin1", "windows-1252", "cp1252":
		r := make([]rune, len(e.body))
		for i, b := range e.body {
			r[i] = rune(b)
		}
		return string(r)
	}
	return strings.ToValidUTF8(string(e.body), "\uFFFD")
}

// stripTags drops HTML tags, and the contents of style and script.
func stripTags(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		lower := strings.ToLower(s)
		for _, skip := range []string{"style", "script"} {
			if strings.HasPrefix(lower, "<"+skip) {
				if j := strings.Index(lower, "</"+skip); j >= 0 {
					s, lower = s[j:], lower[j:]
				}
			}
		}
		j := strings.IndexByte(s, '>')
		if j < 0 {
			break
		}
		b.WriteByte(' ')
		s = s[j+1:]
	}
	return b.String()
}

var snippetEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

// snippet is Gmail's snippet: the start of the text, whitespace collapsed,
// HTML-escaped as Google sends it.
func (e *entity) snippet() string {
	words := strings.Fields(e.text())
	s := strings.Join(words, " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200])
	}
	return snippetEscaper.Replace(s)
}

// hasAttachment says whether a leaf has a filename (has:attachment).
func (e *entity) hasAttachment() bool {
	found := false
	e.walk(func(p *entity) { found = found || (p.parts == nil && p.filename != "") })
	return found
}

// addresses parses an address-list header, leniently: what does not
// parse is returned as written.
func addresses(v string) []*mail.Address {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	list, err := mail.ParseAddressList(v)
	if err != nil {
		return []*mail.Address{{Address: strings.TrimSpace(v)}}
	}
	return list
}

// messageIDs reads the ids of In-Reply-To or References.
func messageIDs(v string) []string {
	var out []string
	for {
		i := strings.IndexByte(v, '<')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(v[i:], '>')
		if j < 0 {
			return out
		}
		out = append(out, v[i:i+j+1])
		v = v[i+j+1:]
	}
}

// setField returns raw with every name field replaced by one with value
// (added on top when there was none), in the line endings raw uses.
func setField(raw []byte, name, value string) []byte {
	head, body := splitHead(raw)
	nl := "\n"
	if bytes.Contains(head, []byte("\r\n")) || len(head) == 0 {
		nl = "\r\n"
	}
	var out bytes.Buffer
	out.WriteString(name + ": " + value + nl)
	skipping := false
	for _, line := range bytes.SplitAfter(head, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if !skipping {
				out.Write(line)
			}
			continue
		}
		n, _, _ := strings.Cut(string(line), ":")
		skipping = strings.EqualFold(strings.TrimSpace(n), name)
		if !skipping {
			out.Write(line)
		}
	}
	out.WriteString(nl)
	out.Write(body)
	return out.Bytes()
}
