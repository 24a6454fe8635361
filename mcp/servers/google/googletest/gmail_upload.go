package googletest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
)

// Media uploads, as the real client makes them for a message given with
// Media(): uploadType=multipart (the resource as JSON and the message in
// one multipart/related body) and uploadType=resumable (the resource
// first, answered with a session URL in Location; the message then
// posted there in chunks with Content-Range). uploadType=media (the
// message alone) is taken too.

// maxUpload is the discovery document's maxSize for Gmail's uploads.
const maxUpload = 36700160

// uploaded is what an upload carried: the resource's JSON and the
// message.
type uploaded struct{ meta, media []byte }

type uploadKey struct{}

// uploadSession is a resumable upload under way. Its first fields are
// set when it starts; data and closed change under gmailFake.mu.
type uploadSession struct {
	rt     *gmailRoute
	email  string
	id     string // the path's {id} (drafts.update)
	meta   []byte // the resource, as JSON
	data   []byte // the message, as much as came
	closed bool   // the last chunk came
}

// readRequest reads a request that may carry a message: its resource
// into v, and the uploaded message (nil when it was not uploaded). It
// answers 400 (false) for a body it cannot read.
func readRequest(w http.ResponseWriter, r *http.Request, v any) ([]byte, bool) {
	u, ok := r.Context().Value(uploadKey{}).(*uploaded)
	if !ok {
		return nil, decodeJSON(w, r, v)
	}
	if len(strings.TrimSpace(string(u.meta))) > 0 {
		if err := json.Unmarshal(u.meta, v); err != nil {
			badRequest(w, "Invalid JSON payload received. "+err.Error())
			return nil, false
		}
	}
	return u.media, true
}

// upload answers a request to one of rt's upload URLs.
func (g *gmailFake) upload(w http.ResponseWriter, r *http.Request, rt *gmailRoute, email string) {
	q := r.URL.Query()
	if q.Get("upload_id") != "" {
		g.chunk(w, r, email)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 2*maxUpload))
	if err != nil {
		badRequest(w, err.Error())
		return
	}
	switch q.Get("uploadType") {
	case "multipart":
		meta, media, err := splitRelated(r.Header.Get("Content-Type"), body)
		if err != nil {
			badRequest(w, "Invalid multipart request: "+err.Error())
			return
		}
		g.finish(w, r, rt, email, &uploaded{meta: meta, media: media})
	case "media":
		g.finish(w, r, rt, email, &uploaded{media: body})
	case "resumable":
		id := randomHex(16)
		g.mu.Lock()
		g.uploads[id] = &uploadSession{rt: rt, email: email, id: r.PathValue("id"), meta: body}
		g.mu.Unlock()
		w.Header().Set("Location", fmt.Sprintf("%s%s?uploadType=resumable&upload_id=%s", g.s.URL, r.URL.Path, id))
		w.WriteHeader(http.StatusOK)
	default:
		badRequest(w, "Invalid upload type: "+q.Get("uploadType"))
	}
}

// finish answers an upload once its message is all there: too large is
// 413, else rt's handler answers.
func (g *gmailFake) finish(w http.ResponseWriter, r *http.Request, rt *gmailRoute, email string, u *uploaded) {
	if len(u.media) > maxUpload {
		apiError(w, http.StatusRequestEntityTooLarge, "Request Entity Too Large", "uploadTooLarge", "FAILED_PRECONDITION")
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	rt.h(w, r.WithContext(context.WithValue(r.Context(), uploadKey{}, u)), g.mailbox(email))
}

// splitRelated reads a multipart/related body: the resource, then the
// media.
func splitRelated(contentType string, body []byte) (meta, media []byte, err error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || !strings.HasPrefix(mt, "multipart/") {
		return nil, nil, fmt.Errorf("content type %q", contentType)
	}
	mr := multipart.NewReader(strings.NewReader(string(body)), params["boundary"])
	var parts [][]byte
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return nil, nil, err
		}
		parts = append(parts, b)
	}
	if len(parts) != 2 {
		return nil, nil, fmt.Errorf("%d parts, want the resource and the media", len(parts))
	}
	return parts[0], parts[1], nil
}

// serveChunk admits a chunk posted to a session URL no route matches.
func (g *gmailFake) serveChunk(w http.ResponseWriter, r *http.Request) {
	if email, _, ok := g.s.admit(w, r, APIGmail, &g.reqs); ok {
		g.chunk(w, r, email)
	}
}

// chunk takes one chunk of a resumable upload. Until the last one it
// answers "308 resume incomplete" as Google does to a client that sent
// X-GUploader-No-308: 200 with X-Http-Status-Code-Override: 308.
func (g *gmailFake) chunk(w http.ResponseWriter, r *http.Request, email string) {
	id := r.URL.Query().Get("upload_id")
	g.mu.Lock()
	sess := g.uploads[id]
	known := sess != nil && sess.email == email && !sess.closed
	g.mu.Unlock()
	if !known {
		notFound(w)
		return
	}
	first, total, err := contentRange(r.Header.Get("Content-Range"))
	if err != nil {
		badRequest(w, err.Error())
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 2*maxUpload))
	if err != nil {
		badRequest(w, err.Error())
		return
	}
	g.mu.Lock()
	if first >= 0 && first <= int64(len(sess.data)) {
		sess.data = append(sess.data[:first], body...)
	}
	n := int64(len(sess.data))
	done := total >= 0 && n >= total
	if done {
		sess.closed = true
		delete(g.uploads, id)
	}
	g.mu.Unlock()
	if !done {
		w.Header().Set("X-Http-Status-Code-Override", "308")
		if n > 0 {
			w.Header().Set("Range", "bytes=0-"+strconv.FormatInt(n-1, 10))
		}
		w.WriteHeader(http.StatusOK)
		return
	}
	if sess.id != "" {
		r.SetPathValue("id", sess.id)
	}
	g.finish(w, r, sess.rt, email, &uploaded{meta: sess.meta, media: sess.data})
}

// contentRange reads "bytes a-b/total", "bytes a-b/*" or "bytes */total":
// the first byte (-1 for none) and the total (-1 while unknown).
func contentRange(h string) (first, total int64, err error) {
	spec, ok := strings.CutPrefix(h, "bytes ")
	rng, tot, ok2 := strings.Cut(spec, "/")
	if !ok || !ok2 {
		return 0, 0, fmt.Errorf("invalid Content-Range %q", h)
	}
	first, total = -1, -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("invalid Content-Range %q", h)
		}
	}
	if rng != "*" {
		a, _, _ := strings.Cut(rng, "-")
		if first, err = strconv.ParseInt(a, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("invalid Content-Range %q", h)
		}
	}
	return first, total, nil
}
