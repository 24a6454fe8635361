package downstream

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// connOverPipes is a stdioConn whose "child" is the test: it writes what
// the server would print and reads what the client sends.
func connOverPipes(t *testing.T, hooks Hooks) (c *stdioConn, serverOut *os.File, serverIn *os.File) {
	t.Helper()
	inR, inW, outR, outW := twoPipes(t)
	c = newStdioConn(inW, outR, hooks, stdinWatch{})
	t.Cleanup(func() {
		c.Close()
		outW.Close()
		c.closeOut()
		inR.Close()
	})
	return c, outW, inR
}

func TestStdioConnFiltersLines(t *testing.T) {
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
	// The SDK's request 7 is answered (in a batch); 8 answers nothing.
	id7, _ := jsonrpc.MakeID(float64(7))
	if err := c.Write(context.Background(), &jsonrpc.Request{ID: id7, Method: "ping"}); err != nil {
		t.Fatal(err)
	}
	go func() {
		out.WriteString(`Server v1.2 starting` + "\n" +
			`{"level":"info","msg":"a JSON log line"}` + "\n" +
			"\n" +
			`{"jsonrpc":"2.0","method":"event/new_email","params":{"subject":"hi"}}` + "\n" +
			`[{"jsonrpc":"2.0","method":"event/tick"},{"jsonrpc":"2.0","id":7,"result":{}},{"not":"rpc"}]` + "\n" +
			`{"jsonrpc":"2.0","id":8,"result":{}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\r\n" +
			`{"jsonrpc":"2.0","id":"p1","method":"ping"}` + "\n" +
			`{"jsonrpc":"2.0","method":"ping"}` + "\n" +
			`[]` + "\n" +
			`{broken` + "\n")
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
		switch m := msg.(type) {
		case *jsonrpc.Request:
			got = append(got, "request "+m.Method)
		case *jsonrpc.Response:
			got = append(got, "response")
		}
	}
	want := []string{"response", "request notifications/tools/list_changed", "request ping", "request ping"}
	if !equal(got, want) {
		t.Errorf("SDK got %q, want %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	wantEvents := []string{`event/new_email {"subject":"hi"}`, "event/tick "}
	if !equal(events, wantEvents) {
		t.Errorf("events %q, want %q", events, wantEvents)
	}
	wantLogs := []string{
		"stdout|Server v1.2 starting",
		`stdout|{"level":"info","msg":"a JSON log line"}`,
		`stdout|{"not":"rpc"}`,
		"stdout|reply with id 8 dropped: it answers no request in flight to this server (stray reply 1)",
		"stdout|[]",
		"stdout|{broken",
	}
	if !equal(logs, wantLogs) {
		t.Errorf("logs %q, want %q", logs, wantLogs)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStdioConnWriteAndClose(t *testing.T) {
	c, _, in := connOverPipes(t, Hooks{})
	id, _ := jsonrpc.MakeID(float64(1))
	if err := c.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "ping"}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	n, _ := in.Read(buf)
	if got, want := string(buf[:n]), `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}

	readErr := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		readErr <- err
	}()
	c.Close()
	select {
	case err := <-readErr:
		if !errors.Is(err, io.EOF) {
			t.Errorf("Read after Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock Read")
	}
	// Closing the connection closed the child's stdin.
	if n, err := in.Read(buf); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("child's stdin after Close: %d bytes, %v; want EOF", n, err)
	}
	if err := c.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "ping"}); err == nil {
		t.Error("Write after Close succeeded")
	}
}
