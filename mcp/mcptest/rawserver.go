package mcptest

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
)

// rawMessage is a JSON-RPC message as the hand-written servers read it.
type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// serveRaw is the loop of the stdio servers written by hand, not with the
// SDK (modes hostile and laggard), so that they can send what the SDK
// never would. It reads JSON-RPC lines from stdin (up to 16 MiB) until
// EOF and skips notifications and what it cannot read. It gives every
// request to handle first; one handle does not take, initialize, it
// answers itself (as server name, with capabilities caps, in the client's
// protocol version); every other request goes to handle,
// with the line it came in; a request handle does not take gets an empty
// result (ping, logging/setLevel) or "method not found". write sends a
// line.
func serveRaw(write func(string), name, caps string, handle func(msg rawMessage, line []byte) bool) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	for in.Scan() {
		var msg rawMessage
		if json.Unmarshal(in.Bytes(), &msg) != nil || len(msg.ID) == 0 {
			continue // notifications, or what we cannot read
		}
		id := string(msg.ID)
		switch {
		case handle(msg, in.Bytes()):
		case msg.Method == "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(msg.Params, &p)
			write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":` + strconv.Quote(p.ProtocolVersion) +
				`,"capabilities":` + caps + `,"serverInfo":{"name":` + strconv.Quote(name) + `,"version":"1.0.0"}}}`)
		case msg.Method == "ping", msg.Method == "logging/setLevel":
			write(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
		default:
			write(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"method not found"}}`)
		}
	}
	return 0
}
