//go:build linux

package cli

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// attackLog records, in order, how each slow-header connection ended and
// when the authenticated client was answered.
type attackLog struct {
	mu     sync.Mutex
	events []string // "evicted" (answered 503), "closed" (closed without an answer), "legit"
}

func (l *attackLog) add(e string) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *attackLog) count(e string) (n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range l.events {
		if x == e {
			n++
		}
	}
	return n
}

// before returns the events before the first e.
func (l *attackLog) before(e string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, x := range l.events {
		if x == e {
			return append([]string(nil), l.events[:i]...)
		}
	}
	return nil
}

// slowHeader opens a connection to addr that sends a request line and one
// header, then nothing (a slowloris), and records how it ends.
func slowHeader(addr string, log *attackLog) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, 30*time.Second)
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr); err != nil {
		c.Close()
		return nil, err
	}
	go func() {
		line, _ := bufio.NewReader(c).ReadString('\n')
		if strings.HasPrefix(line, "HTTP/1.1 503") {
			log.add("evicted")
		} else {
			log.add("closed")
		}
	}()
	return c, nil
}

// TestHTTPSlowHeadersLeaveRoomForTheToken: more connections than the
// endpoint's cap that send their header slowly (no token yet: it is in
// the header) cannot make a client with the token wait for their header
// deadline. Connections that have not sent a whole header get a small
// share of the cap; past it, the oldest is answered 503 and closed, so
// the client with the token is answered while the attack goes on, before
// any attack connection reached its header deadline.
func TestHTTPSlowHeadersLeaveRoomForTheToken(t *testing.T) {
	in := startDaemon(t, map[string]any{"echo": fakeEntry(t, "echo")})
	in.WaitFor("echo ready", states("echo", "ready"))
	base, token := in.endpointAndToken(t)
	u, _ := url.Parse(base)
	addr := u.Host

	const attackers = 300 // more than the cap of 256
	var log attackLog
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for i := range attackers {
		c, err := slowHeader(addr, &log)
		if err != nil {
			t.Fatalf("attack connection %d: %v", i, err)
		}
		conns = append(conns, c)
	}

	begun := time.Now()
	legit := newHTTPClient(base, token)
	t.Cleanup(legit.close)
	if err := initialize(legit); err != nil {
		t.Fatalf("an authenticated client during the attack: %v", err)
	}
	if err := newEchoCall("echo__echo").do(legit); err != nil {
		t.Fatalf("an authenticated call during the attack: %v", err)
	}
	log.add("legit")
	t.Logf("the authenticated client's initialize and call took %s during the attack", time.Since(begun).Round(time.Millisecond))

	if closed := strings.Count(strings.Join(log.before("legit"), " "), "closed"); closed > 0 {
		t.Errorf("%d attack connections reached their header deadline before the authenticated client was answered: it waited for them", closed)
	}
	waitFor(t, "the attack connections over the share to be answered 503", func() bool {
		return log.count("evicted") >= attackers-64
	})
}

// TestHTTPSessionCapInDaemon: the daemon keeps at most 64 HTTP sessions
// (one token): a 65th closes the one idle the longest, whose next request
// gets 404 (its client starts again), and the others keep working.
func TestHTTPSessionCapInDaemon(t *testing.T) {
	in := startDaemon(t, map[string]any{"echo": fakeEntry(t, "echo")})
	in.WaitFor("echo ready", states("echo", "ready"))
	base, token := in.endpointAndToken(t)
	const max = 64
	var clients []*httpClient
	for i := range max + 1 {
		c := newHTTPClient(base, token)
		if err := initialize(c); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		if _, err := c.call("tools/list", "{}"); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		clients = append(clients, c)
	}
	t.Cleanup(func() {
		for _, c := range clients {
			c.close()
		}
	})
	if err := newEchoCall("echo__echo").do(clients[0]); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("the session idle the longest, after %d more started: %v, want 404", max, err)
	}
	for _, i := range []int{1, max / 2, max} {
		if err := newEchoCall("echo__echo").do(clients[i]); err != nil {
			t.Errorf("session %d: %v", i, err)
		}
	}
	if !strings.Contains(in.Stderr.String(), "at the cap of 64 HTTP sessions") {
		t.Errorf("the daemon's log does not say why a session was closed:\n%s", in.Stderr)
	}
}
