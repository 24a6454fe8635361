package downstream

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcptray/mcptray/mcp/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// This file holds the checks stdioConn makes on what a stdio server says,
// where the SDK (or the gateway's raw path) would take it on trust:
//
//   - invalid UTF-8 on a stdout line is replaced by U+FFFD before anyone
//     reads the line, so the raw path never forwards invalid JSON text;
//   - a tools/list entry with a key twice, at any depth (decoders
//     disagree on which of the two counts: encoding/json takes the last),
//     is left out;
//   - a request to the client (elicitation, sampling: what the person
//     sees or answers) with a key twice is refused (refusedRequest);
//   - a reply that answers no request in flight is logged (rate-limited)
//     instead of vanishing.

// validUTF8 returns b with every byte that does not begin a valid UTF-8
// sequence replaced by U+FFFD, as encoding/json does when it decodes a
// string. The bytes replaced are all 0x80 or above, so JSON structure
// (quotes, backslashes, brackets) is untouched and the result is the
// same JSON, now valid text. Callers check utf8.Valid first.
func validUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+32)
	start := 0 // the valid run not yet copied
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, b[start:i]...)
			out = append(out, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += size
	}
	return append(out, b[start:]...)
}

// refusedRequest reports whether t, a message from the server with a
// method and an id (a request to the client: an elicitation, a sampling
// request, what the person may see or answer), fails wire.Check: a key
// twice at any depth, nesting too deep, not JSON. The server is then
// answered with a JSON-RPC error naming the key, and its log has a line.
func (c *stdioConn) refusedRequest(t []byte, p *wire.Peek) bool {
	answer, logLine := refusal(t, p)
	if answer == nil {
		return false
	}
	c.log("stdout", logLine)
	c.writeLine(answer, 0) // the stdin queue never waits for the server, so the reader may write
	return true
}

// refusal is the check of a server's request to the client, for stdio
// and HTTP servers alike: when t (with p its Peek) is a request that fails
// wire.Check, it returns the error answer for the server and the line for
// its log; otherwise nil and "".
func refusal(t []byte, p *wire.Peek) (answer []byte, logLine string) {
	if !p.Method.OK() || !p.ID.OK() {
		return nil, ""
	}
	err := wire.Check(t)
	if err == nil {
		return nil, ""
	}
	method, _ := wire.RawString(p.Method.Of(t))
	logLine = wire.LogText([]byte(fmt.Sprintf("request %q refused: %v", method, err)))
	code := int64(jsonrpc.CodeInvalidRequest)
	var se *wire.SyntaxError
	if errors.As(err, &se) {
		code = jsonrpc.CodeParseError
	}
	return wire.ErrorLine(wire.RequestID(t), code, err.Error()), logLine
}

// checkTools returns a tools/list result without the entries that hold a
// key twice, logging each one left out.
func (c *stdioConn) checkTools(result json.RawMessage) json.RawMessage {
	return checkToolsResult(result, func(line string) { c.log("stdout", line) })
}

// checkToolsResult returns a tools/list result without the entries that
// fail wire.Check (a key twice), calling logf with a line for each one
// left out; stdio and HTTP servers' pages go through it. A result it
// cannot read is returned as it is, for the SDK to judge.
func checkToolsResult(result json.RawMessage, logf func(string)) json.RawMessage {
	tsp := wire.Field(result, "tools")
	if !tsp.OK() || result[tsp.Start] != '[' {
		return result
	}
	arr := tsp.Of(result)
	var kept [][]byte
	dropped := false
	i := wire.SkipWS(arr, 1)
	for i < len(arr) && arr[i] != ']' {
		e := wire.SkipValue(arr, i)
		if e < 0 {
			return result
		}
		entry := arr[i:e]
		if err := wire.Check(entry); err != nil {
			dropped = true
			logf(toolSkippedText(entry, err))
		} else {
			kept = append(kept, entry)
		}
		i = wire.SkipWS(arr, e)
		if i < len(arr) && arr[i] == ',' {
			i = wire.SkipWS(arr, i+1)
		}
	}
	if !dropped {
		return result
	}
	list := make([]byte, 0, len(arr))
	list = append(list, '[')
	for j, entry := range kept {
		if j > 0 {
			list = append(list, ',')
		}
		list = append(list, entry...)
	}
	list = append(list, ']')
	out := make([]byte, 0, len(result)-len(arr)+len(list))
	out = append(out, result[:tsp.Start]...)
	out = append(out, list...)
	return append(out, result[tsp.End:]...)
}

// toolSkippedText is the log line for a tools/list entry that
// wire.Check refused with err.
func toolSkippedText(entry []byte, err error) string {
	var names []string
	wire.ScanObject(entry, func(k []byte, v wire.Span) bool {
		if wire.KeyIs(k, "name") {
			names = append(names, string(v.Of(entry)))
		}
		return true
	})
	what := "a tool"
	if len(names) > 0 {
		what = "tool " + strings.Join(names, " / ")
	}
	why := err.Error()
	var ke *wire.KeyError
	if errors.As(err, &ke) && !ke.Invalid {
		why = fmt.Sprintf("has the key %q twice", ke.Key)
		if ke.Path != "" {
			why += " in " + ke.Path
		}
		why += ", and clients would disagree on which one counts"
	}
	return wire.LogText([]byte(fmt.Sprintf("%s skipped: its tools/list entry %s", what, why)))
}

// Stray replies: the first strayLogFirst are logged, then one in
// strayLogEvery, each line with the count so far.
const (
	strayLogFirst = 10
	strayLogEvery = 1000
)

// Why a reply is stray, for the log.
const (
	strayNoRequest   = "it answers no request in flight to this server"
	StrayNotInFlight = "no call with this id is in flight (it ended already: answered, timed out or cancelled; or it was never sent)"
	StrayOtherServer = "it is not a call mcptray sent to this server"
)

// strays counts a server's stray replies and logs a few of them.
type strays struct{ n atomic.Uint64 }

// logStray notes one stray reply with the raw JSON id.
func (c *stdioConn) logStray(id []byte, why string) {
	n := c.strays.n.Add(1)
	if n > strayLogFirst && n%strayLogEvery != 0 {
		return
	}
	if len(id) > 80 {
		id = append(id[:77:77], "..."...)
	}
	count := fmt.Sprintf("stray reply %d", n)
	if n > strayLogFirst {
		count += fmt.Sprintf("; 1 in %d is logged after the first %d", strayLogEvery, strayLogFirst)
	}
	c.log("stdout", wire.LogText([]byte(fmt.Sprintf("reply with id %s dropped: %s (%s)", id, why, count))))
}

// sdkRequests are the requests the SDK's client sent the server and still
// waits for, by id, with their methods (stdioConn.Write adds them; replies
// and the SDK's own notifications/cancelled take them out).
type sdkRequests struct {
	mu sync.Mutex
	m  map[jsonrpc.ID]string // guarded by mu
}

func (r *sdkRequests) add(id jsonrpc.ID, method string) {
	r.mu.Lock()
	if r.m == nil {
		r.m = map[jsonrpc.ID]string{}
	}
	r.m[id] = method
	r.mu.Unlock()
}

// take removes id and returns its method; ok is false when no request
// of the SDK's waits under id.
func (r *sdkRequests) take(id jsonrpc.ID) (method string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	method, ok = r.m[id]
	delete(r.m, id)
	return method, ok
}

// sent notes what the SDK writes: a request it will wait for, or the
// cancellation of one (it stops waiting; a reply after that is stray).
func (r *sdkRequests) sent(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	if req.IsCall() {
		r.add(req.ID, req.Method)
		return
	}
	if req.Method == "notifications/cancelled" {
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
				r.take(id)
			}
		}
	}
}

// rawID is a decoded id as JSON, for the log.
func rawID(id jsonrpc.ID) []byte {
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return []byte("?")
	}
	return b
}
