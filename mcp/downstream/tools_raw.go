package downstream

import (
	"encoding/json"

	"github.com/mcptray/mcptray/mcp/wire"
)

// A tool definition is passed on to assistants as the server sent it: the
// SDK's Tool struct drops fields it does not know (execution.taskSupport,
// a server's own extensions) and adds ones the server left out
// (annotations' idempotentHint), so the gateway lists the bytes instead.
// For a stdio server, stdioConn keeps each tools/list result as sent
// (toolsPage), and ListTools splits it into one entry per tool, index for
// index with the decoded list. An HTTP server's connection is the SDK's
// own: toolsTap keeps its pages from below it (http_tools.go). An entry is
// nil when its bytes are not known (a page that did not split into as
// many entries as the SDK decoded, or an entry holding a key twice):
// callers then encode the decoded Tool.

// ToolsRaw returns the tools of the last full tools/list as the server sent
// them (secrets redacted), index for index with Tools; an entry is nil
// when its bytes are not known.
func (s *Session) ToolsRaw() []json.RawMessage {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	return s.toolsRaw
}

// ToolsWithRaw is Tools and ToolsRaw of the same tools/list.
func (s *Session) ToolsWithRaw() ([]*Tool, []json.RawMessage) {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	return s.tools, s.toolsRaw
}

func (s *Session) clearRawPage() {
	if s.conn != nil {
		s.conn.toolsPage.Store(nil)
	}
	s.httpPage.Store(nil)
}

// rawPage returns the entries of the tools/list page just read, or n nils
// when they are not known or not n.
func (s *Session) rawPage(n int) []json.RawMessage {
	out := make([]json.RawMessage, 0, n)
	var page *json.RawMessage
	if s.conn != nil {
		page = s.conn.toolsPage.Swap(nil)
	} else {
		page = s.httpPage.Swap(nil)
	}
	if page != nil {
		out = appendEntries(out, *page)
	}
	if len(out) != n {
		return make([]json.RawMessage, n)
	}
	for i, e := range out {
		// Entries with a key twice were left out as the page was read
		// (checkToolsResult: stdioConn for stdio, checkTap for HTTP).
		out[i] = s.RedactJSON(e)
	}
	return out
}

// appendEntries appends the entries of result's "tools" array.
func appendEntries(out []json.RawMessage, result []byte) []json.RawMessage {
	tsp := wire.Field(result, "tools")
	if !tsp.OK() || result[tsp.Start] != '[' {
		return out
	}
	arr := tsp.Of(result)
	for i := wire.SkipWS(arr, 1); i < len(arr) && arr[i] != ']'; {
		e := wire.SkipValue(arr, i)
		if e < 0 {
			return out
		}
		out = append(out, json.RawMessage(arr[i:e]))
		i = wire.SkipWS(arr, e)
		if i < len(arr) && arr[i] == ',' {
			i = wire.SkipWS(arr, i+1)
		}
	}
	return out
}
