package mcp

import (
	"encoding/json"
	"errors"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The gateway and the server must read the same message. Every message
// from an assistant passes wire.CheckMessage before anything routes it —
// on a stream (handleLine, each element of a batch) and over HTTP
// (checkBody) — so a message with a key twice at any depth (decoders
// disagree on which one counts), a key that is not UTF-8, nesting past
// wire.MaxDepth or bytes that are not JSON never reach a server: the
// person approves, and history records, the call that runs.
//
// A refused request is answered with a JSON-RPC error: -32600 (invalid
// request) naming the key and where it is, with the request's id when
// that reads one way (wire.RequestID), else null; bytes that are not JSON
// get -32700 (parse error). A refused answer to one of the gateway's own
// requests (an elicitation's, a sampling's) fails that request instead.
// Each refusal is one line in the gateway's log.

// refusal is the error line answering a message CheckMessage refused with
// err, and the id it carries (nil: null).
func refusal(msg []byte, err error) (line, id []byte) {
	var se *wire.SyntaxError
	if errors.As(err, &se) {
		return wire.ErrorLine(nil, jsonrpc.CodeParseError, "parse error: "+err.Error()), nil
	}
	id = wire.RequestID(msg)
	return wire.ErrorLine(id, jsonrpc.CodeInvalidRequest, err.Error()), id
}

// logRefused is the one log line for a refused message.
func (g *Gateway) logRefused(client, via string, err error) {
	g.log.Warn("message refused", "client", client, "via", via, "reason", err.Error())
}

// refuse answers a message of a stream session that CheckMessage refused
// with err: an answer to the gateway's own request fails that request; any
// other message gets its error line.
func (up *upstream) refuse(msg []byte, err error, conn *upConn) {
	up.g.logRefused(up.clientName(), "stdio", err)
	line, id := refusal(msg, err)
	if resp := failedAnswer(msg, id, err); resp != nil {
		conn.deliver(resp)
		return
	}
	up.send(line)
}

// failedAnswer is, for a refused answer (a message with an id and a
// result or error, no method) whose id reads one way, the error the
// request it answers ends with; else nil.
func failedAnswer(msg, id []byte, err error) *jsonrpc.Response {
	p, _ := wire.PeekMessage(msg)
	if id == nil || p.Method.OK() || (!p.Result.OK() && !p.Err.OK()) {
		return nil
	}
	var v any
	if json.Unmarshal(id, &v) != nil {
		return nil
	}
	rid, e := jsonrpc.MakeID(v)
	if e != nil || !rid.IsValid() {
		return nil
	}
	return &jsonrpc.Response{ID: rid, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the assistant's answer was refused: " + err.Error()}}
}
