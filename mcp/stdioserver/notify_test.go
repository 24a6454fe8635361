package stdioserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestNotifyLinesNeverInterleave: the SDK's messages, even written in
// pieces, and Notify's lines written at the same time come out as whole
// JSON lines, each one intact.
func TestNotifyLinesNeverInterleave(t *testing.T) {
	var out bytes.Buffer
	l := &lineWriter{w: &out}
	const n = 300
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range n {
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"text":"%s"}}`+"\n", i, strings.Repeat("x", i))
			half := len(msg) / 2
			l.Write([]byte(msg[:half])) // a message in two writes
			l.Write([]byte(msg[half:]))
		}
	}()
	go func() {
		defer wg.Done()
		for i := range n {
			if err := notifyTo(l, "event/calendar_reminder", map[string]any{"n": i, "title": "Standup in 10 min"}); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	var results, notes int
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a broken line %q: %v", sc.Text(), err)
		}
		if m["method"] == "event/calendar_reminder" {
			notes++
		} else {
			results++
		}
	}
	if results != n || notes != n {
		t.Errorf("got %d results and %d notifications, want %d of each", results, notes, n)
	}
}

// TestNotifyShape: a notification is JSON-RPC 2.0 with method and params.
func TestNotifyShape(t *testing.T) {
	var out bytes.Buffer
	if err := notifyTo(&lineWriter{w: &out}, "event/new_calendar_event", map[string]string{"title": "Standup"}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), `{"jsonrpc":"2.0","method":"event/new_calendar_event","params":{"title":"Standup"}}`+"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := notifyTo(&lineWriter{w: &out}, "x", func() {}); err == nil {
		t.Error("params that cannot be encoded: no error")
	}
}
