package mcptest

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// ListFileEnv names a JSON file holding an array of tool definitions:
// mode "listed" lists them exactly as written (real servers' tools, e.g.
// mcp/toolsearch's catalogue), and answers a call of any of them with
// "NAME: ARGS".
const ListFileEnv = "MCPTRAY_FAKE_LIST_FILE"

// runListed is mode listed, a hand-written server (serveRaw).
func runListed() int {
	b, err := os.ReadFile(os.Getenv(ListFileEnv))
	var tools []json.RawMessage
	if err == nil {
		err = json.Unmarshal(b, &tools)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "listed: %s: %v\n", ListFileEnv, err)
		return 2
	}
	list, _ := json.Marshal(map[string]any{"tools": tools})
	var mu sync.Mutex
	write := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		os.Stdout.WriteString(line + "\n")
	}
	return serveRaw(write, "listed", `{"tools":{}}`, func(msg rawMessage, _ []byte) bool {
		id := string(msg.ID)
		switch msg.Method {
		case "tools/list":
			write(`{"jsonrpc":"2.0","id":` + id + `,"result":` + string(list) + `}`)
		case "tools/call":
			var p struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			json.Unmarshal(msg.Params, &p)
			text, _ := json.Marshal(p.Name + ": " + string(p.Arguments))
			write(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + string(text) + `}]}}`)
		default:
			return false
		}
		return true
	})
}
