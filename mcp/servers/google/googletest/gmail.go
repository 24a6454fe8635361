package googletest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/api/gmail/v1"
)

// Gmail scopes the fake knows. Each method accepts those of its scopes in
// Google's discovery document that the fake knows (the contract test
// checks it): gmail.modify everything but deleting for good, which takes
// the full scope; gmail.readonly and gmail.metadata (no q, no bodies)
// only reads.
const (
	GmailFullScope     = "https://mail.google.com/"
	GmailModifyScope   = "https://www.googleapis.com/auth/gmail.modify"
	GmailReadonlyScope = "https://www.googleapis.com/auth/gmail.readonly"
	GmailMetadataScope = "https://www.googleapis.com/auth/gmail.metadata"
	GmailComposeScope  = "https://www.googleapis.com/auth/gmail.compose"
	GmailSendScope     = "https://www.googleapis.com/auth/gmail.send"
	GmailInsertScope   = "https://www.googleapis.com/auth/gmail.insert"
	GmailLabelsScope   = "https://www.googleapis.com/auth/gmail.labels"
)

// firstHistoryID is the historyId of a new mailbox.
const firstHistoryID = 1000

// gmailFake is the Gmail API's state: every account's mailbox, the page
// cursors and the resumable uploads under way.
type gmailFake struct {
	s      *Server
	reqs   requestLog   // the Gmail requests, counted and recorded
	routes []gmailRoute // what it serves (set once in newGmailFake)

	mu      sync.Mutex                // guards everything below
	boxes   map[string]*mailbox       // email → mailbox
	pages   map[string]int            // nextPageToken → offset of the next page
	uploads map[string]*uploadSession // upload_id → the upload
	seq     uint64                    // ids made
}

// mailbox is one account's mail. Mailboxes and their messages are
// guarded by gmailFake.mu.
type mailbox struct {
	email     string
	msgs      map[string]*mailMessage   // id → message
	threads   map[string][]*mailMessage // thread id → its messages, oldest first
	labels    map[string]*gmail.Label   // id → label, system ones included
	drafts    map[string]string         // draft id → its message id
	aliases   []string                  // send-as addresses besides email
	historyID uint64                    // the mailbox's latest historyId
	floor     uint64                    // the oldest startHistoryId history.list takes
	history   []historyRecord           // records after floor, oldest first
	labelSeq  int                       // user labels made (their ids are Label_N)
}

// mailMessage is a stored message: its raw RFC 822 bytes, parsed.
type mailMessage struct {
	id, threadID string
	raw          []byte
	parsed       *entity
	labels       []string // label ids, in the order applied
	internalDate int64    // milliseconds since the epoch
	historyID    uint64   // the last change's historyId
	words        []string // what search looks in, made on the first search
}

func (m *mailMessage) has(label string) bool { return slices.Contains(m.labels, label) }

// gmailHandler answers one Gmail request on a mailbox, g.mu held.
type gmailHandler func(w http.ResponseWriter, r *http.Request, mb *mailbox)

// gmailRoute is one method the fake serves: its pattern, the scopes
// that allow it and its handler. upload routes take media uploads.
type gmailRoute struct {
	pattern string
	scopes  []string
	h       gmailHandler
	upload  bool
}

func route(pattern string, scopes []string, h gmailHandler) gmailRoute {
	return gmailRoute{pattern: pattern, scopes: scopes, h: h}
}

// uploadRoute is a route whose method also takes media uploads.
func uploadRoute(pattern string, scopes []string, h gmailHandler) gmailRoute {
	return gmailRoute{pattern: pattern, scopes: scopes, h: h, upload: true}
}

// The scope sets of the methods, each a subset of the discovery
// document's.
var (
	scopesRead     = []string{GmailFullScope, GmailModifyScope, GmailReadonlyScope, GmailMetadataScope}
	scopesReadBody = []string{GmailFullScope, GmailModifyScope, GmailReadonlyScope}
	scopesProfile  = []string{GmailFullScope, GmailModifyScope, GmailReadonlyScope, GmailMetadataScope, GmailComposeScope}
	scopesLabelsRO = []string{GmailFullScope, GmailModifyScope, GmailReadonlyScope, GmailMetadataScope, GmailLabelsScope}
	scopesModify   = []string{GmailFullScope, GmailModifyScope}
	scopesInsert   = []string{GmailFullScope, GmailModifyScope, GmailInsertScope}
	scopesSend     = []string{GmailFullScope, GmailModifyScope, GmailComposeScope, GmailSendScope}
	scopesDraft    = []string{GmailFullScope, GmailModifyScope, GmailComposeScope}
	scopesDraftRO  = []string{GmailFullScope, GmailModifyScope, GmailComposeScope, GmailReadonlyScope}
	scopesLabels   = []string{GmailFullScope, GmailModifyScope, GmailLabelsScope}
	scopesDelete   = []string{GmailFullScope}
)

// GmailBase is where the fake serves Gmail, under its URL; uploads are
// under "/upload" + GmailBase.
const GmailBase = "/gmail/v1/users/{userId}/"

func newGmailFake(s *Server) *gmailFake {
	g := &gmailFake{s: s, boxes: map[string]*mailbox{}, pages: map[string]int{}, uploads: map[string]*uploadSession{}}
	g.routes = []gmailRoute{
		route("GET profile", scopesProfile, g.getProfile),
		route("GET settings/sendAs", scopesReadBody, g.listSendAs),
		route("GET settings/sendAs/{sendAsEmail}", scopesReadBody, g.getSendAs),

		route("GET messages", scopesRead, g.listMessages),
		uploadRoute("POST messages", scopesInsert, g.insertMessage),
		uploadRoute("POST messages/import", scopesInsert, g.importMessage),
		uploadRoute("POST messages/send", scopesSend, g.sendMessage),
		route("GET messages/{id}", scopesRead, g.getMessage),
		route("DELETE messages/{id}", scopesDelete, g.deleteMessage),
		route("POST messages/{id}/modify", scopesModify, g.modifyMessage),
		route("POST messages/{id}/trash", scopesModify, g.trashMessage),
		route("POST messages/{id}/untrash", scopesModify, g.untrashMessage),
		route("POST messages/batchModify", scopesModify, g.batchModify),
		route("POST messages/batchDelete", scopesDelete, g.batchDelete),
		route("GET messages/{messageId}/attachments/{id}", scopesReadBody, g.getAttachment),

		route("GET threads", scopesRead, g.listThreads),
		route("GET threads/{id}", scopesRead, g.getThread),
		route("DELETE threads/{id}", scopesDelete, g.deleteThread),
		route("POST threads/{id}/modify", scopesModify, g.modifyThread),
		route("POST threads/{id}/trash", scopesModify, g.trashThread),
		route("POST threads/{id}/untrash", scopesModify, g.untrashThread),

		route("GET labels", scopesLabelsRO, g.listLabels),
		route("POST labels", scopesLabels, g.createLabel),
		route("GET labels/{id}", scopesLabelsRO, g.getLabel),
		route("PATCH labels/{id}", scopesLabels, g.patchLabel),
		route("PUT labels/{id}", scopesLabels, g.updateLabel),
		route("DELETE labels/{id}", scopesLabels, g.deleteLabel),

		route("GET drafts", scopesDraftRO, g.listDrafts),
		uploadRoute("POST drafts", scopesDraft, g.createDraft),
		route("GET drafts/{id}", scopesDraftRO, g.getDraft),
		uploadRoute("PUT drafts/{id}", scopesDraft, g.updateDraft),
		route("DELETE drafts/{id}", scopesDraft, g.deleteDraft),
		uploadRoute("POST drafts/send", scopesDraft, g.sendDraft),

		route("GET history", scopesRead, g.listHistory),
	}
	for i := range g.routes {
		rt := &g.routes[i]
		method, path, _ := strings.Cut(rt.pattern, " ")
		s.handle(method+" "+GmailBase+path, g.serve(rt))
		if rt.upload {
			s.handle(method+" /upload"+GmailBase+path, g.serve(rt))
		}
	}
	// The chunks of resumable uploads go to the session's URL.
	s.handle("POST /upload"+GmailBase, g.serveChunk)
	return g
}

// serve wraps a route's handler: it admits the request (recorded, rate
// limits, bearer token), checks the scopes and the userId, holds g.mu,
// and cuts the answer to the fields asked for.
func (g *gmailFake) serve(rt *gmailRoute) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		email, scopes, ok := g.s.admit(w, r, APIGmail, &g.reqs)
		if !ok || !g.allowed(w, r, rt, email, scopes) {
			return
		}
		withFields(w, r, func(w http.ResponseWriter) {
			if rt.upload && strings.HasPrefix(r.URL.Path, "/upload/") {
				g.upload(w, r, rt, email)
				return
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			rt.h(w, r, g.mailbox(email))
		})
	}
}

// allowed checks the token's scopes and the path's userId as Google does,
// answering when they do not allow the request.
func (g *gmailFake) allowed(w http.ResponseWriter, r *http.Request, rt *gmailRoute, email string, scopes []string) bool {
	var granted []string
	for _, sc := range scopes {
		if slices.Contains(rt.scopes, sc) {
			granted = append(granted, sc)
		}
	}
	if len(granted) == 0 {
		apiError(w, http.StatusForbidden, "Request had insufficient authentication scopes.", "insufficientPermissions", "PERMISSION_DENIED")
		return false
	}
	if len(granted) == 1 && granted[0] == GmailMetadataScope {
		q := r.URL.Query()
		if q.Has("q") {
			apiError(w, http.StatusForbidden, "Metadata scope does not support 'q' parameter", "forbidden", "PERMISSION_DENIED")
			return false
		}
		gets := rt.pattern == "GET messages/{id}" || rt.pattern == "GET threads/{id}"
		if f := q.Get("format"); gets && (f == "full" || f == "raw" || f == "") {
			if f == "" {
				f = "full"
			}
			apiError(w, http.StatusForbidden, "Metadata scope doesn't allow format "+strings.ToUpper(f), "forbidden", "PERMISSION_DENIED")
			return false
		}
	}
	if u := r.PathValue("userId"); u != "me" && !strings.EqualFold(u, email) {
		apiError(w, http.StatusForbidden, "Delegation denied for "+email, "forbidden", "PERMISSION_DENIED")
		return false
	}
	return true
}

// mailbox returns email's mailbox, made with the system labels on first
// use. g.mu held.
func (g *gmailFake) mailbox(email string) *mailbox {
	key := strings.ToLower(email)
	mb := g.boxes[key]
	if mb == nil {
		mb = &mailbox{email: email, msgs: map[string]*mailMessage{}, threads: map[string][]*mailMessage{},
			labels: systemLabels(), drafts: map[string]string{}, historyID: firstHistoryID, floor: firstHistoryID}
		g.boxes[key] = mb
	}
	return mb
}

// newID makes a message id as Gmail's look: 16 hex digits, growing with
// time. g.mu held.
func (g *gmailFake) newID() string {
	g.seq++
	return fmt.Sprintf("%016x", uint64(g.s.clock().UnixMilli())<<20|g.seq&0xfffff)
}

// The errors Gmail answers with.

func notFound(w http.ResponseWriter) {
	apiError(w, http.StatusNotFound, "Requested entity was not found.", "notFound", "NOT_FOUND")
}

func invalidArgument(w http.ResponseWriter, msg string) {
	apiError(w, http.StatusBadRequest, msg, "invalidArgument", "INVALID_ARGUMENT")
}

// decodeJSON reads a JSON request body into v (an empty body leaves v as
// it is), answering 400 when it is no JSON.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(r.Body)
	if err == nil && len(strings.TrimSpace(string(b))) > 0 {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		badRequest(w, "Invalid JSON payload received. "+err.Error())
		return false
	}
	return true
}

// decodeRaw decodes a message's raw field: base64url, padded or not.
func decodeRaw(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

func encodeRaw(b []byte) string { return base64.URLEncoding.EncodeToString(b) }

// paging reads maxResults (default 100, at most 500) and pageToken (the
// offset it stands for), answering 400 (false) for a bad value or a token
// the fake did not issue. g.mu held.
func (g *gmailFake) paging(w http.ResponseWriter, q url.Values) (max, offset int, ok bool) {
	max, err := intParam(q, "maxResults", 100, 0, 500)
	if err != nil {
		invalidArgument(w, err.Error())
		return 0, 0, false
	}
	if max == 0 {
		max = 100
	}
	if tok := q.Get("pageToken"); tok != "" {
		if offset, ok = g.pages[tok]; !ok {
			invalidArgument(w, "Invalid pageToken")
			return 0, 0, false
		}
	}
	return max, offset, true
}

// cutPage cuts items at offset, at most max; it returns the next page's
// token ("" on the last page). g.mu held.
func cutPage[T any](g *gmailFake, items []T, offset, max int) ([]T, string) {
	items = items[min(offset, len(items)):]
	if len(items) <= max {
		return items, ""
	}
	g.seq++
	tok := fmt.Sprintf("%020d", g.seq)
	g.pages[tok] = offset + max
	return items[:max], tok
}

// strictBool reads a boolean query parameter, false by default.
func strictBool(w http.ResponseWriter, q url.Values, name string) (v, ok bool) {
	s := q.Get(name)
	if s == "" {
		return false, true
	}
	v, err := strconv.ParseBool(s)
	if err != nil {
		invalidArgument(w, "Invalid value for "+name+": "+s)
		return false, false
	}
	return v, true
}
