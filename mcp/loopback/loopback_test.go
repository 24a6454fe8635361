package loopback_test

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcptray/mcptray/mcp/loopback"
)

func get(t *testing.T, u, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestListenKeepsOrMovesPort(t *testing.T) {
	t.Parallel()
	first, err := loopback.Listen(0, "/cb")
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if first.Moved() {
		t.Error("port 0 reported as moved")
	}
	if got := first.RedirectURL(); !strings.HasPrefix(got, "http://127.0.0.1:") || !strings.HasSuffix(got, "/cb") {
		t.Errorf("RedirectURL = %q", got)
	}
	// The port held by first cannot be had: another is taken, and said so.
	second, err := loopback.Listen(first.Port(), "/cb")
	if err != nil {
		t.Fatal(err)
	}
	if !second.Moved() || second.Port() == first.Port() {
		t.Errorf("asked for a busy port %d: got %d, Moved %v", first.Port(), second.Port(), second.Moved())
	}
	port := second.Port()
	second.Close()
	// A free port asked for is kept.
	third, err := loopback.Listen(port, "/cb")
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if third.Moved() || third.Port() != port {
		t.Errorf("asked for free port %d: got %d, Moved %v", port, third.Port(), third.Moved())
	}
}

func TestListenRefusesBadInput(t *testing.T) {
	t.Parallel()
	if _, err := loopback.Listen(70000, "/"); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("port 70000: %v", err)
	}
	if _, err := loopback.Listen(0, "cb"); err == nil || !strings.Contains(err.Error(), "does not start with /") {
		t.Errorf("path cb: %v", err)
	}
}

// Only 127.0.0.1: not the wildcard address, not another interface.
func TestListenLoopbackOnly(t *testing.T) {
	t.Parallel()
	l, err := loopback.Listen(0, "/")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.To4() == nil {
			continue
		}
		c, err := net.Dial("tcp", net.JoinHostPort(ipn.IP.String(), itoa(l.Port())))
		if err == nil {
			c.Close()
			t.Errorf("the listener answers on %s", ipn.IP)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A stray callback — wrong state, none, a DNS-rebinding Host, another
// path — neither ends nor hijacks the sign-in; the right one does, once.
func TestStrayCallbacksRefused(t *testing.T) {
	t.Parallel()
	l, err := loopback.Listen(0, "/cb")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var calls atomic.Int32
	var code atomic.Value
	l.Serve("the-state", func(q url.Values) loopback.Page {
		calls.Add(1)
		code.Store(q.Get("code"))
		return loopback.Page{Title: "Signed in", Body: "You can close this tab."}
	})
	base := l.RedirectURL()
	host := strings.TrimPrefix(strings.TrimSuffix(base, "/cb"), "http://")
	for _, c := range []struct{ what, u, host, want string }{
		{"wrong state", base + "?code=evil&state=other", "", "out of date"},
		{"no state", base + "?code=evil", "", "out of date"},
		{"error without state", base + "?error=access_denied", "", "out of date"},
		{"rebinding Host", base + "?code=evil&state=the-state", "evil.example:" + host[strings.LastIndex(host, ":")+1:], "Wrong address"},
		{"other path", strings.TrimSuffix(base, "/cb") + "/x?code=evil&state=the-state", "", "404"},
	} {
		status, page := get(t, c.u, c.host)
		if status == http.StatusOK || !strings.Contains(page+itoaStatus(status), c.want) {
			t.Errorf("%s: %d %q", c.what, status, page)
		}
	}
	select {
	case <-l.Done():
		t.Fatal("a stray callback ended the sign-in")
	default:
	}
	if calls.Load() != 0 {
		t.Fatal("a stray callback reached finish")
	}
	status, page := get(t, base+"?code=good&state=the-state", "")
	if status != http.StatusOK || !strings.Contains(page, "You can close this tab") {
		t.Fatalf("the redirect: %d %q", status, page)
	}
	<-l.Done()
	if got := code.Load(); got != "good" {
		t.Errorf("finish saw code %v", got)
	}
	status, page = get(t, base+"?code=again&state=the-state", "")
	if status != http.StatusOK || !strings.Contains(page, "Already done") || calls.Load() != 1 {
		t.Errorf("second redirect: %d %q, finish called %d times", status, page, calls.Load())
	}
}

func itoaStatus(s int) string { return strconv.Itoa(s) }

// A redirect pasted from another machine's browser: checked like a
// request, taken once.
func TestDeliver(t *testing.T) {
	t.Parallel()
	l, err := loopback.Listen(0, "/cb")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Deliver(l.RedirectURL() + "?code=c&state=s"); err == nil {
		t.Error("Deliver before Serve succeeded")
	}
	var got atomic.Value
	l.Serve("the-state", func(q url.Values) loopback.Page {
		got.Store(q.Get("code"))
		return loopback.Page{Title: "Signed in"}
	})
	for _, bad := range []string{"%zz", l.RedirectURL() + "?code=evil", l.RedirectURL() + "?code=evil&state=other"} {
		if _, err := l.Deliver(bad); err == nil {
			t.Errorf("Deliver(%q) succeeded", bad)
		}
	}
	p, err := l.Deliver("  http://127.0.0.1:1/cb?code=good&state=the-state\n")
	if err != nil || p.Title != "Signed in" {
		t.Fatalf("Deliver = %+v, %v", p, err)
	}
	<-l.Done()
	if got.Load() != "good" {
		t.Errorf("finish saw %v", got.Load())
	}
	if _, err := l.Deliver(l.RedirectURL() + "?code=again&state=the-state"); err == nil || !strings.Contains(err.Error(), "already complete") {
		t.Errorf("a second Deliver: %v", err)
	}
}
