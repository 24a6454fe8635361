package mcp

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcptray/mcptray/mcp/wire"
)

// A POST of the 2026-07-28 wire names its method in an Mcp-Method header,
// and the tool, resource or prompt it is about in Mcp-Name, so that a
// proxy can route it without reading the body. A gateway that trusted the
// headers would let a request say one thing to a proxy in front of it and
// another to the server behind it, so checkBody compares them with the
// body as wire.CheckMessage read it (the one reading: a body with a
// duplicate key never gets this far): a mismatch, or a header missing on
// the new wire, is refused with -32020 (HTTP 400) before anything routes
// the request, on the fast path and the SDK's alike. A header sent on an
// older wire, where none is required, must match too.

// codeHeaderMismatch is the JSON-RPC error for headers that do not match
// the body (go-sdk's CodeHeaderMismatch).
const codeHeaderMismatch = -32020

// namedMethods are the methods whose Mcp-Name is a field of their params.
var namedMethods = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

// checkHeaders says why r's Mcp-Method and Mcp-Name headers do not go
// with the message t (p its fields, from wire.CheckMessage); "" when they
// do.
func checkHeaders(h http.Header, t []byte, p *wire.Peek) string {
	methodHdr, hasMethod, bad := headerValue(h, "Mcp-Method")
	nameHdr, hasName, bad2 := headerValue(h, "Mcp-Name")
	required := newWire(h.Get("Mcp-Protocol-Version"))
	if !p.Method.OK() || !hasMethod && !hasName && !required {
		return "" // an answer, or nothing to check
	}
	if bad += bad2; bad != "" {
		return bad
	}
	method, ok := wire.RawString(p.Method.Of(t))
	if !ok {
		return "" // the SDK's error
	}
	switch {
	case !hasMethod && required:
		return "missing required Mcp-Method header"
	case hasMethod && methodHdr != method:
		return "header mismatch: Mcp-Method header value " + strconv.Quote(methodHdr) + " does not match body value " + strconv.Quote(method)
	}
	field, named := namedMethods[method]
	if !named {
		if hasName {
			return "Mcp-Name header on " + strconv.Quote(method) + ", which names nothing"
		}
		return ""
	}
	if !hasName {
		if required {
			return "missing required Mcp-Name header for method " + strconv.Quote(method)
		}
		return ""
	}
	var name string
	if p.Params.OK() {
		params := p.Params.Of(t)
		name, ok = wire.RawString(wire.Field(params, field).Of(params))
	}
	if !ok || name != nameHdr {
		return "header mismatch: Mcp-Name header value " + strconv.Quote(nameHdr) + " does not match body value " + strconv.Quote(name)
	}
	return ""
}

// headerValue is the value of the header key, decoded when the client
// sent it as =?base64?…?= (SEP-2243: values that are not plain ASCII);
// ok is false when the request does not have it, bad says why a value is
// unusable (two of them, or base64 that does not decode).
func headerValue(h http.Header, key string) (v string, ok bool, bad string) {
	vals := h.Values(key)
	switch len(vals) {
	case 0:
		return "", false, ""
	case 1:
	default:
		return "", true, "more than one " + key + " header"
	}
	v = vals[0]
	if enc, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if enc, ok := strings.CutSuffix(enc, "?="); ok {
			b, err := base64.StdEncoding.DecodeString(enc)
			if err != nil {
				return "", true, key + " header: invalid base64"
			}
			return string(b), true, ""
		}
	}
	return v, true, ""
}

// refuseHeaders answers a request whose headers checkHeaders refused:
// -32020 with the request's id (null for a notification), HTTP 400.
func (g *Gateway) refuseHeaders(w http.ResponseWriter, r *http.Request, t []byte, p *wire.Peek, why string) {
	// The log names the header, not the values: a resource URI may hold
	// what is not the log's to keep.
	header := "Mcp-Method"
	switch {
	case strings.Contains(why, "Mcp-Name"):
		header = "Mcp-Name"
	case strings.Contains(why, "Mcp-Param-"):
		header = "Mcp-Param-*"
	}
	g.log.Info("request refused: its headers do not match its body", "client", g.httpClient(r), "header", header)
	var id []byte
	if p.ID.OK() {
		id = p.ID.Of(t)
	}
	line := wire.ErrorLine(id, codeHeaderMismatch, why)
	hd := w.Header()
	hd["Content-Type"] = jsonContentType
	hd["Content-Length"] = []string{strconv.Itoa(len(line))}
	w.WriteHeader(http.StatusBadRequest)
	w.Write(line)
}
