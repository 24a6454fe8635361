package downstream

import (
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// lines collects a session's log lines.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(_, line string) {
	l.mu.Lock()
	l.l = append(l.l, line)
	l.mu.Unlock()
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.l, "\n")
}

// An event stream read through checkTap, however its reads are cut, comes
// out byte for byte as sent, except that a request with a key twice loses
// its data (its id and name stay) and a tools/list response loses the
// entries with a key twice.
func TestCheckedEvents(t *testing.T) {
	const (
		clean   = ": comment\r\nevent: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\r\ndata:  \"params\":{\"progressToken\":1,\"progress\":1}}\r\n\r\n"
		refused = "event: message\nid: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"elicitation/create\",\"params\":{\"message\":\"a\",\"m\\u0065ssage\":\"b\"}}\n\n"
		tools   = "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"tools\":[{\"name\":\"ok\"},{\"name\":\"bad\",\"x\":1,\"x\":2}]}}\n\n"
		answer  = "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"
	)
	want := clean + "event: message\nid: 2\n\n" + "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"tools\":[{\"name\":\"ok\"}]}}\n\n" + answer
	log := &lines{}
	sess := newSession(Hooks{Log: log.add})
	for _, cut := range []func(io.Reader) io.Reader{
		func(r io.Reader) io.Reader { return r },
		iotest.OneByteReader,
		iotest.HalfReader,
	} {
		body := &checkedEvents{body: io.NopCloser(cut(strings.NewReader(clean + refused + tools + answer))), c: checker{sess: sess, posted: []byte("3"), toolsID: []byte("3")}}
		got, err := io.ReadAll(iotest.OneByteReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("got\n%q\nwant\n%q", got, want)
		}
	}
	for _, w := range []string{`request "elicitation/create" refused: duplicate key "message" in params`, `tool "bad" skipped`} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("log lacks %s:\n%s", w, log)
		}
	}
}

// An application/json body that holds only a refused request becomes the
// error answer of the posted request, so its call fails at once.
func TestCheckedJSON(t *testing.T) {
	log := &lines{}
	sess := newSession(Hooks{Log: log.add})
	body := &checkedJSON{body: io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{"maxTokens":1,"maxTokens":2}}`)), c: checker{sess: sess, posted: []byte(`12`)}}
	got, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), `{"jsonrpc":"2.0","id":12,"error":{"code":-32603,"message":"the server answered with a request that was refused`) {
		t.Errorf("body %s", got)
	}
	if !strings.Contains(log.String(), `refused: duplicate key "maxTokens"`) {
		t.Errorf("log:\n%s", log)
	}
}
