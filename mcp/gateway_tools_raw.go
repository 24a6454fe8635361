package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/mcptray/mcptray/mcp/wire"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools/list answers with each server tool's definition as the server sent
// it (downstream.Session.ToolsRaw), only its "name" rewritten: the SDK's
// Tool struct, through which the view's sdk.Server lists tools, drops the
// fields it does not know (execution.taskSupport) and adds hints the
// server left out. The SDK still keeps the list (order, pages,
// list_changed); the view's middleware swaps the bytes of each entry it
// has the server's bytes for (rawToolsResult), stdio and HTTP servers'
// alike. Builtins and meta tools are the SDK's encoding.

// renamedTool is raw with its "name" value replaced by name; nil when raw
// is nil or has no name.
func renamedTool(raw json.RawMessage, name string) json.RawMessage {
	if raw == nil {
		return nil
	}
	sp := wire.Field(raw, "name")
	if !sp.OK() {
		return nil
	}
	return spliced(raw, wire.Edit{Start: sp.Start, End: sp.End, Repl: wire.QuoteJSON(name)})
}

// spliced is wire.Splice without the newline it ends a line with.
func spliced(b []byte, e wire.Edit) []byte {
	out := wire.Splice(b, e)
	return out[:len(out)-1]
}

// rawToolsResult is the SDK's tools/list page, encoded with the server's
// own bytes for the tools in raw (by exposed name).
type rawToolsResult struct {
	*sdk.ListToolsResult
	raw map[string]json.RawMessage
}

func (r *rawToolsResult) MarshalJSON() ([]byte, error) {
	// The page without its tools, whose "[]" the list then replaces: each
	// tool is encoded once, and the server's own bytes not at all.
	page := *r.ListToolsResult
	page.Tools = []*sdk.Tool{}
	b, err := json.Marshal(&page)
	if err != nil {
		return nil, err
	}
	sp := wire.Field(b, "tools")
	if !sp.OK() {
		return json.Marshal(r.ListToolsResult)
	}
	var list bytes.Buffer
	list.Grow(r.size())
	list.WriteByte('[')
	for i, t := range r.Tools {
		if i > 0 {
			list.WriteByte(',')
		}
		if raw := r.raw[t.Name]; raw != nil {
			list.Write(raw)
			continue
		}
		e, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		list.Write(e)
	}
	list.WriteByte(']')
	return spliced(b, wire.Edit{Start: sp.Start, End: sp.End, Repl: list.Bytes()}), nil
}

// size is about the length of the tools' list.
func (r *rawToolsResult) size() int {
	n := 2
	for _, raw := range r.raw {
		n += len(raw) + 1
	}
	return n + 512*(len(r.Tools)-len(r.raw))
}

// listedRaw wraps a tools/list result of the view's SDK server.
func (v *view) listedRaw(res sdk.Result) sdk.Result {
	lr, ok := res.(*sdk.ListToolsResult)
	if !ok {
		return res
	}
	rt := v.routes.Load()
	raw := make(map[string]json.RawMessage, len(lr.Tools))
	for _, t := range lr.Tools {
		if r := rt.tools[t.Name]; r != nil && r.listed != nil {
			raw[t.Name] = r.listed
		}
	}
	if len(raw) == 0 {
		return res
	}
	return &rawToolsResult{lr, raw}
}
