package googletest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Partial responses: Google answers with only the fields the request's
// `fields` parameter selects ("messages(id,threadId),nextPageToken",
// "payload/headers"), so a client that reads a field it did not ask for
// finds it empty, here as with Google.

// selection is a parsed fields parameter: name → what to keep of it
// (nil: all of it).
type selection map[string]selection

// parseSelection reads a fields parameter.
func parseSelection(s string) (selection, error) {
	sel, rest, err := parseSelectionList(s)
	if err == nil && rest != "" {
		err = fmt.Errorf("unexpected %q", rest)
	}
	if err != nil {
		return nil, fmt.Errorf("Invalid field selection %s: %v", s, err)
	}
	return sel, nil
}

func parseSelectionList(s string) (selection, string, error) {
	out := selection{}
	for {
		name, sub, rest, err := parseSelectionItem(s)
		if err != nil {
			return nil, rest, err
		}
		if old, dup := out[name]; dup {
			sub = union(old, sub)
		}
		out[name], s = sub, rest
		if !strings.HasPrefix(s, ",") {
			return out, s, nil
		}
		s = s[1:]
	}
}

// parseSelectionItem reads one item: a name, a/path, or a(list).
func parseSelectionItem(s string) (name string, sub selection, rest string, err error) {
	i := strings.IndexAny(s, ",/()")
	if i < 0 {
		i = len(s)
	}
	name, s = strings.TrimSpace(s[:i]), s[i:]
	if name == "" {
		return "", nil, s, fmt.Errorf("empty field name")
	}
	switch {
	case strings.HasPrefix(s, "/"):
		n, sub2, rest, err := parseSelectionItem(s[1:])
		return name, selection{n: sub2}, rest, err
	case strings.HasPrefix(s, "("):
		sub, s, err = parseSelectionList(s[1:])
		if err != nil {
			return "", nil, s, err
		}
		if !strings.HasPrefix(s, ")") {
			return "", nil, s, fmt.Errorf("unclosed (")
		}
		return name, sub, s[1:], nil
	}
	return name, nil, s, nil
}

// union joins two selections of one field: nil (all of it) wins.
func union(a, b selection) selection {
	if a == nil || b == nil {
		return nil
	}
	for k, v := range b {
		if old, ok := a[k]; ok {
			a[k] = union(old, v)
		} else {
			a[k] = v
		}
	}
	return a
}

// apply keeps of v (decoded JSON) what sel selects.
func (sel selection) apply(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := sel["*"]; ok {
			return x
		}
		out := map[string]any{}
		for k, sub := range sel {
			if val, ok := x[k]; ok {
				if sub == nil {
					out[k] = val
				} else {
					out[k] = sub.apply(val)
				}
			}
		}
		return out
	case []any:
		for i := range x {
			x[i] = sel.apply(x[i])
		}
		return x
	}
	return v
}

// partialWriter holds an answer back to cut it to a selection.
type partialWriter struct {
	w      http.ResponseWriter
	sel    selection
	status int
	buf    bytes.Buffer
}

func (p *partialWriter) Header() http.Header { return p.w.Header() }

func (p *partialWriter) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
}

func (p *partialWriter) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return p.buf.Write(b)
}

// flush writes the held answer: a 200 JSON one cut to the selection.
func (p *partialWriter) flush() {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	body := p.buf.Bytes()
	var v any
	if p.status == http.StatusOK && json.Unmarshal(body, &v) == nil {
		body, _ = json.Marshal(p.sel.apply(v))
		body = append(body, '\n')
		p.w.Header().Del("Content-Length")
	}
	p.w.WriteHeader(p.status)
	p.w.Write(body)
}

// withFields runs h with partial responses when the request asks for
// them (a bad selection is 400, as with Google).
func withFields(w http.ResponseWriter, r *http.Request, h func(w http.ResponseWriter)) {
	f := r.URL.Query().Get("fields")
	if f == "" {
		h(w)
		return
	}
	sel, err := parseSelection(f)
	if err != nil {
		badRequest(w, err.Error())
		return
	}
	p := &partialWriter{w: w, sel: sel}
	h(p)
	p.flush()
}
