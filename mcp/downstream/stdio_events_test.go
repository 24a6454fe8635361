package downstream

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestStdioConnTakesEvents: events are handed over without the SDK's
// decoder; what it cannot vouch for goes the decoder's way, which logs
// what it refuses; protocol notifications still reach the SDK.
func TestStdioConnTakesEvents(t *testing.T) {
	var mu sync.Mutex
	var logs, events []string
	c, out, _ := connOverPipes(t, Hooks{
		Log: func(kind, line string) {
			mu.Lock()
			defer mu.Unlock()
			logs = append(logs, kind+"|"+line)
		},
		Event: func(method string, params json.RawMessage) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, method+" "+string(params))
		},
	})
	go func() {
		out.WriteString(strings.Join([]string{
			`{"jsonrpc":"2.0","method":"event/a","params":{"x":[1,{"y":"}"}]}}`,
			`{"method":"event/b","jsonrpc":"2.0"}`,
			`{"jsonrpc":"2.0","method":"event\/escaped","params":{}}`,
			`{"jsonrpc":"2.0","method":"event/bad","params":{"a":tru}}`,
			`{"jsonrpc":"2.0","method":"event/array","params":[1]}`,
			`{"jsonrpc":"2.0","id":3,"method":"event/request"}`,
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
		}, "\n") + "\n")
		out.Close()
	}()
	var got []string
	for {
		msg, err := c.Read(context.Background())
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("Read: %v", err)
			}
			break
		}
		if r, ok := msg.(*jsonrpc.Request); ok {
			got = append(got, r.Method)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{`event/a {"x":[1,{"y":"}"}]}`, `event/b `, `event/escaped {}`, `event/array [1]`}
	if strings.Join(events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
	if strings.Join(got, ",") != "event/request,notifications/message" {
		t.Errorf("to the SDK: %v", got)
	}
	if len(logs) != 1 || !strings.HasPrefix(logs[0], `stdout|{"jsonrpc":"2.0","method":"event/bad"`) {
		t.Errorf("logs: %q", logs)
	}
}
