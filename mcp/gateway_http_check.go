package mcp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/mcptray/mcptray/mcp/wire"
)

// checkBody reads a POST's body and checks each message in it with
// wire.CheckMessage before anything routes it (upstream_refuse.go). When
// one is refused, checkBody answers r — a request whose id reads one way
// with its JSON-RPC error (200, application/json), anything else (a
// notification, an answer, a batch, bytes that are not JSON) with 400 and
// the error — and reports false. Else r's body is there to read again,
// and body is it without white space around; p is its top-level fields
// when it is one message (not a batch).
func (g *Gateway) checkBody(w http.ResponseWriter, r *http.Request) (body []byte, p *wire.Peek, ok bool) {
	raw, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "request body too large: at most "+strconv.Itoa(MaxHTTPBody)+" bytes", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
		}
		return nil, nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return t, nil, true // the SDK's error
	}
	var refused []byte
	switch t[0] {
	case '{':
		pk, err := wire.CheckMessage(t)
		if err == nil {
			return t, &pk, true
		}
		refused = g.refuseHTTP(w, r, t, err, true)
	case '[':
		msgs, err := decodeBatch(t, func(elem []byte, err error) {
			if refused == nil {
				refused = g.refuseHTTP(w, r, elem, err, false)
			}
		})
		if err != nil || refused == nil {
			return t, nil, true // the SDK's answer, or its error
		}
		_ = msgs
	default:
		return t, nil, true
	}
	return nil, nil, refused == nil
}

// refuseHTTP answers r for a message CheckMessage refused with err (one
// alone in the body: single) and returns the answer.
func (g *Gateway) refuseHTTP(w http.ResponseWriter, r *http.Request, msg []byte, err error, single bool) []byte {
	client := ""
	if up := g.httpSession(r.Header.Get("Mcp-Session-Id")); up != nil {
		client = up.clientName()
	}
	g.logRefused(client, "http", err)
	line, id := refusal(msg, err)
	status := http.StatusOK
	if !single || id == nil || failedAnswer(msg, id, err) != nil {
		status = http.StatusBadRequest
		line, _ = refusal(nil, err) // id null: no request of this body is answered
	}
	hd := w.Header()
	hd["Content-Type"] = jsonContentType
	hd["Content-Length"] = []string{strconv.Itoa(len(line))}
	w.WriteHeader(status)
	w.Write(line)
	return line
}

// httpSession is the HTTP session with id, or nil.
func (g *Gateway) httpSession(id string) *upstream {
	if id == "" {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.httpUps[id]
}
