package mcp

import (
	"bytes"

	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bytes of a call to a server on 2026-07-28 and of its answers, edited
// without decoding: the revision's _meta into each request (wireMetaEdits,
// withWireMeta), and out of each result what an older assistant would not
// get from an older server (oldWireEdits, upReply, oldWireResult,
// finalResult).

// completeTail is how go-sdk ends a new-wire server's complete result,
// and metaHead how it begins one that carries _meta (the server's
// serverInfo, on every result): older assistants know neither, and get
// the result as an older server sends it (oldWireEdits).
var (
	completeTail = []byte(`,"resultType":"complete"}`)
	metaHead     = []byte(`{"_meta":{`)
)

const serverInfoKey = sdk.MetaKeyServerInfo

// upReply is a stdio server's reply line as it goes to the call's
// assistant: replyEdits' (its id; a complete result on the new wire), and
// for an older assistant from a new-wire server the result as an older
// server sends it (oldWireEdits).
func upReply(c *call, line []byte, p *wire.Peek) []byte {
	edits := c.replyEdits(line, p)
	if !c.newWire && c.sess.NewWire() && p.Result.OK() {
		edits = append(edits, oldWireEdits(line, p.Result)...)
		sortEdits(edits)
	}
	return wire.Splice(line, edits...)
}

// oldWireEdits take out of a new-wire server's result (the span res of
// line) what an older server would not send: resultType "complete" at
// its end, and the server's serverInfo at the start of its _meta (with
// the _meta when nothing else is in it). Where go-sdk writes them, in
// constant time; elsewhere they stay (extra members an older client
// ignores).
func oldWireEdits(line []byte, res wire.Span) []wire.Edit {
	r := res.Of(line)
	var edits []wire.Edit
	if bytes.HasPrefix(r, metaHead) {
		ms := res.Start + len(metaHead) - 1 // the _meta object
		me := wire.SkipValue(line, ms)
		if me > 0 && me < res.End {
			var members []wire.Span // key's opening quote to value's end
			var infoAt = -1
			obj := line[ms:me]
			wire.ScanObject(obj, func(k []byte, v wire.Span) bool {
				ks := ms + cap(obj) - cap(k) - 1 // k is obj's subslice: its quote is one before
				if wire.KeyIs(k, serverInfoKey) {
					infoAt = len(members)
				}
				members = append(members, wire.Span{Start: ks, End: ms + v.End})
				return true
			})
			switch {
			case infoAt < 0:
			case len(members) == 1 && line[me] == ',': // _meta held serverInfo alone
				edits = append(edits, wire.Edit{Start: res.Start + 1, End: me + 1})
			case len(members) == 1:
				edits = append(edits, wire.Edit{Start: res.Start + 1, End: me})
			case infoAt == 0:
				edits = append(edits, wire.Edit{Start: members[0].Start, End: members[1].Start})
			default:
				edits = append(edits, wire.Edit{Start: members[infoAt-1].End, End: members[infoAt].End})
			}
		}
	}
	if bytes.HasSuffix(r, completeTail) {
		edits = append(edits, wire.Edit{Start: res.End - len(completeTail), End: res.End - 1})
	}
	return edits
}

// wireMetaEdits are the edits that give a call to a new-wire server the
// _meta members every request to it carries (downstream.WireMeta):
// params is the span of the call's params in the line, metaSp the span
// of its _meta within them (not OK: none). A member the request has
// already (an assistant on the same revision sends its own) gets mcptray's
// value; the others are added.
func wireMetaEdits(line []byte, params, metaSp wire.Span, m *downstream.WireMeta) []wire.Edit {
	if !metaSp.OK() {
		ins := make([]byte, 0, len(m.Members)+12)
		ins = append(ins, `"_meta":{`...)
		ins = append(ins, m.Members...)
		ins = append(ins, "},"...)
		return []wire.Edit{{Start: params.Start + 1, End: params.Start + 1, Repl: ins}}
	}
	meta := metaSp.Within(params)
	mb := meta.Of(line)
	var edits []wire.Edit
	var missing []byte
	for i, key := range m.Keys {
		name, _ := wire.RawString(key)
		if v := wire.Field(mb, name); v.OK() {
			v = v.Within(meta)
			edits = append(edits, wire.Edit{Start: v.Start, End: v.End, Repl: m.Values[i]})
			continue
		}
		if len(missing) > 0 {
			missing = append(missing, ',')
		}
		missing = append(missing, key...)
		missing = append(missing, ':')
		missing = append(missing, m.Values[i]...)
	}
	if len(missing) > 0 {
		if !isEmptyObject(mb) {
			missing = append(missing, ',')
		}
		edits = append(edits, wire.Edit{Start: meta.Start + 1, End: meta.Start + 1, Repl: missing})
	}
	sortEdits(edits)
	return edits
}

func isEmptyObject(b []byte) bool {
	empty := true
	wire.ScanObject(b, func([]byte, wire.Span) bool { empty = false; return false })
	return empty
}

// withWireMeta is line (a request to sess) with the _meta of a new-wire
// server spliced in; line itself when sess is older or line unreadable.
func withWireMeta(sess *downstream.Session, line []byte) []byte {
	m := sess.WireMeta()
	if m == nil {
		return line
	}
	p, err := wire.PeekMessage(line)
	if err != nil || !p.Params.OK() {
		return line
	}
	meta := wire.Field(p.Params.Of(line), "_meta")
	return wire.Splice(bytes.TrimSuffix(line, []byte("\n")), wireMetaEdits(line, p.Params, meta, m)...)
}

// oldWireResult is a result of sess as an older server sends it
// (oldWireEdits); result itself for an older server.
func oldWireResult(sess *downstream.Session, result []byte) []byte {
	if !sess.NewWire() {
		return result
	}
	edits := oldWireEdits(result, wire.Span{Start: 0, End: len(result)})
	if len(edits) == 0 {
		return result
	}
	sortEdits(edits)
	out := wire.Splice(result, edits...)
	return out[:len(out)-1] // Splice ends a line
}

// finalResult is a stdio server's final reply as the slow path's answer,
// redacted; a new-wire server's as an older server sends it
// (oldWireEdits).
func finalResult(sess *downstream.Session, reply []byte) (sdk.Result, error) {
	if sess.NewWire() {
		if p, err := wire.PeekMessage(reply); err == nil && p.Result.OK() {
			if edits := oldWireEdits(reply, p.Result); len(edits) > 0 {
				sortEdits(edits)
				reply = wire.Splice(bytes.TrimSuffix(reply, []byte("\n")), edits...)
			}
		}
	}
	return replyResult(sess.RedactJSON(reply))
}
