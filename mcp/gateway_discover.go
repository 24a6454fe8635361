package mcp

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// server/discover (SEP-2575) opens the 2026-07-28 protocol, which the
// gateway does not serve (gatewayProtocolVersions). The go-sdk's server
// would answer it with -32022 "unsupported protocol version", which
// clients take as final (the Vercel AI SDK does); a server that predates
// the revision answers -32601, and clients then fall back to initialize.
// The gateway answers that way, on stream sessions (handleLine, batches)
// and over HTTP (serveDiscover), before the SDK sees the request.

const methodDiscover = "server/discover"

// discoverNotFound is the answer to a server/discover with id.
func discoverNotFound(id []byte) []byte {
	return wire.ErrorLine(id, jsonrpc.CodeMethodNotFound, "Method not found")
}

// serveDiscover answers a POST without a session whose body is one
// server/discover request, and reports whether it did; when it did not, r
// is as it was. (Within a session, serveFast answers it.)
func serveDiscover(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost || r.ContentLength > maxFastBody || r.Header.Get("Mcp-Session-Id") != "" {
		return false
	}
	orig := r.Body
	body, err := io.ReadAll(io.LimitReader(orig, maxFastBody+1))
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), orig), orig}
	if err != nil || len(body) > maxFastBody {
		return false
	}
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	p, err := wire.PeekMessage(t)
	if err != nil || !p.Method.OK() || !p.Method.Is(t, `"`+methodDiscover+`"`) {
		return false
	}
	writeDiscover(w, t, &p)
	return true
}

// writeDiscover answers the server/discover message t.
func writeDiscover(w http.ResponseWriter, t []byte, p *wire.Peek) {
	if !p.ID.OK() { // a notification: nothing to answer
		w.WriteHeader(http.StatusAccepted)
		return
	}
	line := discoverNotFound(p.ID.Of(t))
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(line))}
	w.WriteHeader(http.StatusOK)
	w.Write(line)
}
