package wire

import (
	"strings"
	"testing"
)

// TestCutReplyID: the id of a discarded reply is read from either end of
// the line, and only when the line is a reply whose id is whole there.
func TestCutReplyID(t *testing.T) {
	t.Parallel()
	mid := strings.Repeat("x", 3*cutEnd)
	for _, tc := range []struct {
		line, id string
	}{
		{`{"jsonrpc":"2.0","id":"gw-7","result":{"text":"` + mid + `"}}`, `"gw-7"`},
		{`{"result":{"text":"` + mid + `"},"jsonrpc":"2.0","id":12}` + "\r\n", `12`},
		{`{"error":{"code":1,"message":"` + mid + `"},"id":"a\"b\\","jsonrpc":"2.0"}`, `"a\"b\\"`},
		{`{"jsonrpc":"2.0","method":"x","id":3,"params":{"p":"` + mid + `"}}`, ``}, // a request
		{`{"jsonrpc":"2.0","result":{"text":"` + mid + `"}}`, ``},                  // no id at either end
		{`{"result":{"text":"` + mid + `","id":5}}`, ``},                           // an id inside the result
		{`not json ` + mid, ``},
	} {
		lr := NewLineReader(strings.NewReader(tc.line+"\n"), 2*cutEnd)
		line, skipped, err := lr.Next()
		if err != nil || line != nil || skipped == 0 {
			t.Fatalf("%.40q: not dropped (%d, %v)", tc.line, skipped, err)
		}
		id, ok := CutReplyID(lr.Cut())
		if ok != (tc.id != "") || string(id) != tc.id {
			t.Errorf("%.40q: id %s, %v; want %s", tc.line, id, ok, tc.id)
		}
	}
}

// TestCutRequest: a discarded line with a "method" at either end is a
// request or a notification (it fails no call); a reply whose id is in
// the middle is not known to be one.
func TestCutRequest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		head, tail string
		want       bool
	}{
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"xxx`, `xxx"}}`, true},
		{`{"params":{"data":"xxx`, `xxx"},"method":"event/big","jsonrpc":"2.0"}`, true},
		{`{"result":{"content":[{"text":"xxx`, `xxx"}},"jsonrpc":"2.0"}`, false},
		{`{"result":{"content":[{"text":"xxx`, `xxx"}]},"id":7,"_meta":{"pad":"xxx`, false},
	} {
		if got := CutRequest([]byte(tc.head), []byte(tc.tail)); got != tc.want {
			t.Errorf("CutRequest(%s … %s) = %v, want %v", tc.head, tc.tail, got, tc.want)
		}
	}
}
