package mcp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// checkBody reads a POST's body and checks each message in it with
// wire.CheckMessage before anything routes it (upstream_refuse.go). When
// one is refused, checkBody answers r — a request whose id reads one way
// with its JSON-RPC error (200, application/json), anything else (a
// notification, a batch, bytes that are not JSON) with 400 and the error
// — and reports false. A refused answer to one of the gateway's own
// requests is replaced by an error answer for the SDK, so that request
// fails at once. Else r's body is there to read again,
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
			if why := checkHeaders(r.Header, t, &pk); why != "" { // gateway_http_headers.go
				g.refuseHeaders(w, r, t, &pk, why)
				return nil, nil, false
			}
			return t, &pk, true
		}
		if ans := g.refusedAnswer(r, t, err); ans != nil {
			// An answer to the gateway's own request: the SDK gets the
			// error in its place, and the request it answers fails.
			r.Body = io.NopCloser(bytes.NewReader(ans))
			r.ContentLength = int64(len(ans))
			return ans, nil, true
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

// refusedAnswer is, for a refused answer to one of the gateway's requests
// whose id reads one way, the error answer that takes its place (logged);
// else nil.
func (g *Gateway) refusedAnswer(r *http.Request, msg []byte, err error) []byte {
	_, id := refusal(msg, err)
	resp := failedAnswer(msg, id, err)
	if resp == nil {
		return nil
	}
	line, e := jsonrpc.EncodeMessage(resp)
	if e != nil {
		return nil
	}
	g.logRefused(g.httpClient(r), "http", err)
	return line
}

// httpClient is the client name of r's session, "" when unknown.
func (g *Gateway) httpClient(r *http.Request) string {
	if up := g.httpSession(r.Header.Get("Mcp-Session-Id")); up != nil {
		return up.clientName()
	}
	return ""
}

// refuseHTTP answers r for a message CheckMessage refused with err (one
// alone in the body: single) and returns the answer.
func (g *Gateway) refuseHTTP(w http.ResponseWriter, r *http.Request, msg []byte, err error, single bool) []byte {
	g.logRefused(g.httpClient(r), "http", err)
	line, id := refusal(msg, err)
	status := http.StatusOK
	if !single || id == nil {
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
