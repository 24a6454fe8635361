package google_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// loopbackGet sends a GET to the sign-in's loopback listener with Host
// host ("" for the URL's), and returns the status and page.
func loopbackGet(t *testing.T, u *url.URL, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", u.String(), nil)
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

// withQuery is u with its query's key set to value ("" deletes it).
func withQuery(u *url.URL, kv ...string) *url.URL {
	c := *u
	q := c.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			q.Del(kv[i])
		} else {
			q.Set(kv[i], kv[i+1])
		}
	}
	c.RawQuery = q.Encode()
	return &c
}

// Attacks on the loopback redirect of a sign-in (issue 28, "try to break
// it yourself"; docs/security.md): only the redirect carrying this
// sign-in's state, sent to 127.0.0.1:PORT by name, finishes it — not one
// without a state, not an error= with a wrong one, not one whose Host
// names another site (a DNS-rebinding page); the listener is on
// 127.0.0.1 only; a second redirect exchanges no second code.
func TestLoopbackAttacks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, err := e.acc.StartSignIn(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := noRedirect.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := resp.Location()
	if loc == nil || loc.Hostname() != "127.0.0.1" || loc.Query().Get("code") == "" {
		t.Fatalf("the consent page redirected to %v", loc)
	}
	port := loc.Port()

	for name, u := range map[string]*url.URL{
		"no state":                  withQuery(loc, "state", ""),
		"an empty state":            withQuery(loc, "state", "x", "state", ""),
		"error= with a wrong state": withQuery(loc, "state", "forged", "code", "", "error", "access_denied"),
		"error= without a state":    withQuery(loc, "state", "", "code", "", "error", "access_denied"),
	} {
		if code, page := loopbackGet(t, u, ""); code != http.StatusBadRequest || !strings.Contains(page, "out of date") {
			t.Errorf("%s: %d %s", name, code, page)
		}
	}
	for _, host := range []string{"evil.example:" + port, "evil.example", "localhost.evil.example:" + port, "127.0.0.1.evil.example:" + port} {
		if code, page := loopbackGet(t, loc, host); code != http.StatusBadRequest || !strings.Contains(page, "not addressed to mcptray") {
			t.Errorf("Host %s: %d %s", host, code, page)
		}
	}
	// Only on 127.0.0.1: the machine's other addresses refuse the port.
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.Equal(net.IPv4(127, 0, 0, 1)) || ipn.IP.IsLinkLocalUnicast() {
			continue
		}
		if c, err := net.DialTimeout("tcp", net.JoinHostPort(ipn.IP.String(), port), 5*time.Second); err == nil {
			c.Close()
			t.Errorf("the loopback listener answers on %s", ipn.IP)
		}
	}
	if n := e.fake.Counts().Exchanges; n != 0 {
		t.Fatalf("%d codes exchanged by forged redirects", n)
	}

	// The real redirect finishes it; a second one is told so and
	// exchanges nothing.
	if code, page := loopbackGet(t, loc, ""); code != http.StatusOK || !strings.Contains(page, "Signed in to Google as ada@example.com") {
		t.Fatalf("the redirect: %d %s", code, page)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if added, err := s.Wait(ctx); err != nil || added.Account.Email != "ada@example.com" {
		t.Fatalf("%v %+v", err, added)
	}
	if code, page := loopbackGet(t, loc, ""); code != http.StatusOK || !strings.Contains(page, "This sign-in is complete") {
		t.Errorf("the redirect again: %d %s", code, page)
	}
	if n := e.fake.Counts().Exchanges; n != 1 {
		t.Errorf("%d codes exchanged", n)
	}
	e.noSecrets(t)
}

// Once a sign-in is over, done or not, its loopback port is closed: no
// listener is left for a later request to find.
func TestLoopbackClosedAfterSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, deny := range []bool{false, true} {
		e.fake.SetConsent(googletest.Consent{Deny: deny})
		var authURL string
		acc := google.New(google.Options{Store: e.store, Path: e.path, OpenBrowser: func(u string) error {
			authURL = u
			return e.browser.open(u)
		}})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := acc.Add(ctx, google.AddOptions{})
		cancel()
		if (err != nil) != deny {
			t.Fatalf("deny %v: %v", deny, err)
		}
		e.browser.page(t)
		au, _ := url.Parse(authURL)
		ru, err := url.Parse(au.Query().Get("redirect_uri"))
		if err != nil || ru.Host == "" {
			t.Fatalf("redirect_uri in %q", authURL)
		}
		if c, err := net.DialTimeout("tcp", ru.Host, 5*time.Second); err == nil {
			c.Close()
			t.Errorf("deny %v: %s still listens after the sign-in", deny, ru.Host)
		}
	}
}
