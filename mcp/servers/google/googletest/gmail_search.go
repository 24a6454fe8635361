package googletest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Gmail's search (the q of the lists), the part the fake understands:
// words and "phrases" (whole words, in the subject, the addresses, the
// text and the attachments' names), from: to: cc: bcc: subject:,
// is:unread|read|starred|important, in:inbox|sent|drafts|trash|spam|
// starred|important|anywhere, label:, category:, has:attachment|
// userlabels|nouserlabels, filename:, rfc822msgid:, after: before:
// older: newer: (dates in Google's Pacific time, or epoch seconds),
// newer_than: older_than: (d, m, y), larger: smaller:, a leading - to
// negate, and OR between terms. An operator the fake does not know is
// searched for as words.

// term is one search term; alts are the terms OR-ed with it.
type term struct {
	neg     bool
	op, val string // op "" for words or a phrase
	all     bool   // val is op:(words): each word, in any order
	alts    []term
}

// parseQuery splits q into terms, all of which must match.
func parseQuery(q string) []term {
	var out []term
	orNext := false
	for _, tok := range tokenizeQuery(q) {
		if tok == "OR" || tok == "|" {
			orNext = len(out) > 0
			continue
		}
		t := term{}
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			t.neg, tok = true, tok[1:]
		}
		if op, val, ok := strings.Cut(tok, ":"); ok && op != "" && !strings.HasPrefix(tok, `"`) {
			t.op, t.val = strings.ToLower(op), strings.Trim(val, `"`)
			if words, ok := strings.CutPrefix(val, "\x00"); ok {
				t.val, t.all = strings.TrimSuffix(words, "\x00"), true
			}
		} else {
			t.val = strings.Trim(tok, `"`)
		}
		if orNext {
			out[len(out)-1].alts = append(out[len(out)-1].alts, t)
			orNext = false
			continue
		}
		out = append(out, t)
	}
	return out
}

// tokenizeQuery splits at spaces outside quotes, dropping parentheses and
// braces but for op:(words), kept whole between NUL bytes.
func tokenizeQuery(q string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case !quoted && r == '(' && strings.HasSuffix(cur.String(), ":"):
			quoted = true // op:(a b): all of the words, in any order
			cur.WriteString("\x00")
		case quoted && r == ')' && strings.Contains(cur.String(), "\x00"):
			quoted = false
			cur.WriteString("\x00")
		case !quoted && (unicode.IsSpace(r) || strings.ContainsRune("(){}", r)):
			flush()
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return out
}

// words splits text into lower-case words, as the search compares them.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// containsWords says whether the words of phrase appear in hay, in a row.
func containsWords(hay []string, phrase string) bool {
	want := words(phrase)
	if len(want) == 0 {
		return true
	}
	for i := 0; i+len(want) <= len(hay); i++ {
		if slices.Equal(hay[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

// searchText is what plain words are searched in.
func (m *mailMessage) searchText() []string {
	if m.words == nil {
		h := m.parsed.header
		var b strings.Builder
		for _, name := range []string{"Subject", "From", "To", "Cc", "Bcc"} {
			b.WriteString(decodeHeader(h.get(name)) + "\n")
		}
		b.WriteString(m.parsed.text() + "\n")
		m.parsed.walk(func(e *entity) { b.WriteString(e.filename + "\n") })
		m.words = words(b.String())
	}
	return m.words
}

// pacific is the zone Gmail reads after: and before: dates in.
var pacific = func() *time.Location {
	if l, err := loadLocation("America/Los_Angeles"); err == nil {
		return l
	}
	return time.FixedZone("PST", -8*3600)
}()

// searchDate reads after:/before: values: 2006/01/02, 2006-01-02 or epoch
// seconds.
func searchDate(v string) (time.Time, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && len(v) > 8 {
		return time.Unix(n, 0), nil
	}
	for _, layout := range []string{"2006/1/2", "2006-1-2", "2006/01/02"} {
		if t, err := time.ParseInLocation(layout, v, pacific); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("Invalid date: %s", v)
}

// searchSize reads larger:/smaller: values: bytes, or with K or M.
func searchSize(v string) int64 {
	mult := int64(1)
	switch {
	case strings.HasSuffix(strings.ToUpper(v), "M"):
		mult, v = 1<<20, v[:len(v)-1]
	case strings.HasSuffix(strings.ToUpper(v), "K"):
		mult, v = 1<<10, v[:len(v)-1]
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return n * mult
}

// matchAddress says whether an address header has one address or name
// containing v.
func matchAddress(header, v string) bool {
	v = strings.ToLower(v)
	for _, a := range addresses(decodeHeader(header)) {
		if strings.Contains(strings.ToLower(a.Address), v) || containsWords(words(a.Name), v) {
			return true
		}
	}
	return false
}

var categories = map[string]string{"primary": "CATEGORY_PERSONAL", "social": "CATEGORY_SOCIAL",
	"promotions": "CATEGORY_PROMOTIONS", "updates": "CATEGORY_UPDATES", "forums": "CATEGORY_FORUMS"}

var inLabels = map[string]string{"inbox": "INBOX", "sent": "SENT", "drafts": "DRAFT", "draft": "DRAFT",
	"trash": "TRASH", "spam": "SPAM", "starred": "STARRED", "important": "IMPORTANT", "chats": "CHAT", "unread": "UNREAD"}

var isLabels = map[string]string{"unread": "UNREAD", "starred": "STARRED", "important": "IMPORTANT"}

// match says whether m matches t (its negation and alternatives
// included).
func (mb *mailbox) match(m *mailMessage, t term, now time.Time) bool {
	ok := true
	if t.all {
		for _, w := range strings.Fields(t.val) {
			ok = ok && mb.matchOne(m, term{op: t.op, val: w}, now)
		}
	} else {
		ok = mb.matchOne(m, t, now)
	}
	for _, alt := range t.alts {
		ok = ok || mb.match(m, alt, now)
	}
	return ok != t.neg
}

func (mb *mailbox) matchOne(m *mailMessage, t term, now time.Time) bool {
	h := m.parsed.header
	date := time.UnixMilli(m.internalDate)
	switch t.op {
	case "":
		return containsWords(m.searchText(), t.val)
	case "from":
		return matchAddress(h.get("From"), t.val)
	case "to":
		return matchAddress(h.get("To"), t.val) || matchAddress(h.get("Cc"), t.val) || matchAddress(h.get("Bcc"), t.val)
	case "cc", "bcc":
		return matchAddress(h.get(t.op), t.val)
	case "subject":
		return containsWords(words(decodeHeader(h.get("Subject"))), t.val)
	case "is":
		if t.val == "read" {
			return !m.has("UNREAD")
		}
		return isLabels[strings.ToLower(t.val)] != "" && m.has(isLabels[strings.ToLower(t.val)])
	case "in":
		if strings.ToLower(t.val) == "anywhere" {
			return true
		}
		return inLabels[strings.ToLower(t.val)] != "" && m.has(inLabels[strings.ToLower(t.val)])
	case "label":
		l := mb.labelByName(t.val)
		return l != nil && m.has(l.Id)
	case "category":
		return m.has(categories[strings.ToLower(t.val)])
	case "has":
		switch strings.ToLower(t.val) {
		case "attachment":
			return m.parsed.hasAttachment()
		case "userlabels", "nouserlabels":
			user := slices.ContainsFunc(m.labels, func(id string) bool { return mb.labels[id] != nil && mb.labels[id].Type == "user" })
			return user == (strings.ToLower(t.val) == "userlabels")
		}
		return false
	case "filename":
		found := false
		m.parsed.walk(func(e *entity) {
			found = found || (e.filename != "" && strings.Contains(strings.ToLower(e.filename), strings.ToLower(t.val)))
		})
		return found
	case "rfc822msgid":
		id := strings.Trim(strings.TrimSpace(h.get("Message-ID")), "<>")
		return strings.EqualFold(id, strings.Trim(t.val, "<>"))
	case "after", "newer", "before", "older":
		at, err := searchDate(t.val)
		if err != nil {
			return false
		}
		if t.op == "after" || t.op == "newer" {
			return !date.Before(at)
		}
		return date.Before(at)
	case "newer_than", "older_than":
		at, ok := relativeDate(now, t.val)
		if !ok {
			return false
		}
		if t.op == "newer_than" {
			return date.After(at)
		}
		return !date.After(at)
	case "larger", "size":
		return int64(len(m.raw)) >= searchSize(t.val)
	case "smaller":
		return int64(len(m.raw)) < searchSize(t.val)
	}
	return containsWords(m.searchText(), t.op+":"+t.val)
}

// relativeDate is now less a newer_than: value (2d, 3m, 1y).
func relativeDate(now time.Time, v string) (time.Time, bool) {
	if len(v) < 2 {
		return time.Time{}, false
	}
	n, err := strconv.Atoi(v[:len(v)-1])
	if err != nil {
		return time.Time{}, false
	}
	switch strings.ToLower(v[len(v)-1:]) {
	case "d":
		return now.AddDate(0, 0, -n), true
	case "m":
		return now.AddDate(0, -n, 0), true
	case "y":
		return now.AddDate(-n, 0, 0), true
	}
	return time.Time{}, false
}

// search is the messages of mb that q and labelIds select, newest first.
// Spam and trash are left out unless spamTrash, labelIds or q ask for
// them.
func (mb *mailbox) search(now time.Time, q string, labelIds []string, spamTrash bool) ([]*mailMessage, error) {
	terms := parseQuery(q)
	for _, t := range terms {
		if t.op == "after" || t.op == "before" {
			if _, err := searchDate(t.val); err != nil {
				return nil, err
			}
		}
	}
	if slices.Contains(labelIds, "SPAM") || slices.Contains(labelIds, "TRASH") || asksSpamTrash(terms) {
		spamTrash = true
	}
	var out []*mailMessage
	for _, m := range mb.sortedMessages() {
		if !spamTrash && (m.has("SPAM") || m.has("TRASH")) {
			continue
		}
		ok := true
		for _, id := range labelIds {
			ok = ok && m.has(id)
		}
		for _, t := range terms {
			ok = ok && mb.match(m, t, now)
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, nil
}

func asksSpamTrash(terms []term) bool {
	for _, t := range terms {
		v := strings.ToLower(t.val)
		if !t.neg && (t.op == "in" || t.op == "label") && (v == "trash" || v == "spam" || v == "anywhere") {
			return true
		}
		if asksSpamTrash(t.alts) {
			return true
		}
	}
	return false
}
