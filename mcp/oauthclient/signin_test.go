package oauthclient_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/oauthclient"
	"github.com/mcptray/mcptray/mcp/oauthclient/oauthtest"
)

// A server that answers 401: the handler never opens anything and says
// NeedsSignIn with the issuer; SignIn through the (fake) browser; then
// the session works; a restart (a new Client over the same Store) reuses
// the token with no new authorize.
func TestSignInEndToEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.connect(t, e.c, e.entry)
	ns := needsSignIn(t, err)
	if ns.Server != "remote" || ns.Issuer != e.fake.Issuer() || ns.IssuerHost != strings.TrimPrefix(e.fake.URL(), "http://") || ns.StepUp {
		t.Errorf("NeedsSignIn = %+v", ns)
	}
	if n := e.fake.Count("/authorize", ""); n != 0 {
		t.Fatalf("the handler went to /authorize %d times", n)
	}
	info := e.signIn(t, e.c, e.entry)
	if info.State != oauthclient.StateSignedIn || info.Issuer != e.fake.Issuer() || info.Registration != "dynamic" ||
		info.Expiry.IsZero() || !contains(info.Scopes, "read") {
		t.Errorf("Info after SignIn = %+v", info)
	}
	cs, err := e.connect(t, e.c, e.entry)
	if err != nil {
		t.Fatalf("connecting after the sign-in: %v", err)
	}
	if err := echo(t, cs); err != nil {
		t.Fatal(err)
	}
	// A request reads no keyring: the token is kept in RAM.
	gets := e.store.getCount()
	for range 3 {
		if err := echo(t, cs); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.store.getCount() - gets; n != 0 {
		t.Errorf("3 calls read the store %d times", n)
	}
	// Restart: a new Client over the same Store.
	c2 := e.newClient()
	cs2, err := e.connect(t, c2, e.entry)
	if err != nil {
		t.Fatalf("connecting after a restart: %v", err)
	}
	if err := echo(t, cs2); err != nil {
		t.Fatal(err)
	}
	if n := e.fake.Count("/authorize", ""); n != 1 {
		t.Errorf("%d authorizations, want the one sign-in", n)
	}
	// The keys: the token under its issuer, the registration by issuer.
	keys := strings.Join(e.store.keys(), " ")
	for _, want := range []string{"token/" + e.fake.Issuer() + "#remote", "reg/" + e.fake.Issuer(), "server/remote"} {
		if !strings.Contains(keys, want) {
			t.Errorf("store keys %s lack %s", keys, want)
		}
	}
	// resource exactly as the metadata says, once, on both requests.
	for _, r := range e.fake.Requests() {
		if strings.HasSuffix(r.Path, "/authorize") || strings.HasSuffix(r.Path, "/token") {
			if len(r.Resources) != 1 || r.Resources[0] != e.fake.MCPURL() {
				t.Errorf("%s sent resource %q, want [%s]", r.Path, r.Resources, e.fake.MCPURL())
			}
		}
	}
	e.noSecrets(t, err2s(err), ns.Error())
}

func err2s(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Two servers on one issuer share one registration; a second sign-in
// listens on the registration's port again.
func TestRegistrationReusedPerIssuer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.signIn(t, e.c, e.entry)
	other := oauthclient.Entry{Server: "other", URL: e.fake.MCPURL()}
	e.signIn(t, e.c, other)
	if n := e.fake.Count("/register", ""); n != 1 {
		t.Errorf("%d registrations for one issuer, want 1", n)
	}
	ports := map[string]bool{}
	for _, r := range e.fake.Requests() {
		if strings.HasSuffix(r.Path, "/authorize") {
			ports[r.Form.Get("redirect_uri")] = true
		}
	}
	if len(ports) != 1 {
		t.Errorf("redirect URIs %v, want one (the port kept)", ports)
	}
	e.works(t, e.c, "", e.entry, other)
}

// The registration's port taken by another program: listen elsewhere and
// register again for the new redirect URI.
func TestRegistrationPortTaken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.signIn(t, e.c, e.entry)
	first := e.fake.Requests()
	var uri string
	for _, r := range first {
		if strings.HasSuffix(r.Path, "/authorize") {
			uri = r.Form.Get("redirect_uri")
		}
	}
	port := uri[strings.LastIndex(uri, ":")+1 : strings.LastIndex(uri, "/")]
	hold, err := listenOn(port)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	e.signIn(t, e.c, e.entry)
	if n := e.fake.Count("/register", ""); n != 2 {
		t.Errorf("%d registrations, want a second one for the new port", n)
	}
}

// A registration the provider deleted: register again, once, and sign in.
func TestRegistrationDeleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.signIn(t, e.c, e.entry)
	e.fake.DeleteClients()
	e.signIn(t, e.c, e.entry)
	if n := e.fake.Count("/register", ""); n != 2 {
		t.Errorf("%d registrations, want 2", n)
	}
	cs, err := e.connect(t, e.c, e.entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := echo(t, cs); err != nil {
		t.Fatal(err)
	}
}

// The server moved to another authorization server: the old token is not
// sent there, NeedsSignIn names the new issuer, and the sign-in registers
// at the new one (the old client_id is never sent to it).
func TestIssuerChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.signIn(t, e.c, e.entry)
	oldIssuer := e.fake.Issuer()
	e.fake.SwitchIssuer()
	_, err := e.connect(t, e.c, e.entry)
	ns := needsSignIn(t, err)
	if ns.Issuer != e.fake.Issuer() || ns.Issuer == oldIssuer {
		t.Errorf("NeedsSignIn names %q, want the new issuer %q", ns.Issuer, e.fake.Issuer())
	}
	var oldClient string
	for _, r := range e.fake.Requests() {
		if strings.HasPrefix(r.Path, "/as1/authorize") {
			oldClient = r.Form.Get("client_id")
		}
	}
	e.signIn(t, e.c, e.entry)
	for _, r := range e.fake.Requests() {
		if strings.HasPrefix(r.Path, "/as2/") && r.Form.Get("client_id") == oldClient {
			t.Errorf("the old client_id went to the new issuer: %s", r.Path)
		}
	}
	if n := e.fake.Count("/register", ""); n != 2 {
		t.Errorf("%d registrations, want one per issuer", n)
	}
	cs, err := e.connect(t, e.c, e.entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := echo(t, cs); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(e.store.keys(), " "), "token/"+oldIssuer+"#") {
		t.Error("the old issuer's token is still stored")
	}
}

// Logout revokes at the revocation endpoint and forgets the token.
func TestLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.signIn(t, e.c, e.entry)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.c.Logout(ctx, e.entry); err != nil {
		t.Fatal(err)
	}
	if n := len(e.fake.Revoked()); n != 2 {
		t.Errorf("%d tokens revoked, want the refresh and the access token", n)
	}
	info, err := e.c.Info(e.entry)
	if err != nil || info.State != oauthclient.StateSignedOut {
		t.Errorf("Info after Logout = %+v, %v", info, err)
	}
	_, err = e.connect(t, e.c, e.entry)
	needsSignIn(t, err)
}

// Bad input gets a clear error.
func TestSignInBadEntry(t *testing.T) {
	t.Parallel()
	c := oauthclient.New(newMemStore(), oauthclient.Options{})
	ctx := context.Background()
	for _, c2 := range []struct {
		e    oauthclient.Entry
		want string
	}{
		{oauthclient.Entry{URL: "https://x/mcp"}, "no name"},
		{oauthclient.Entry{Server: "x", URL: "ftp://x/mcp"}, "not an http(s) URL"},
		{oauthclient.Entry{Server: "x", URL: "://"}, "not an http(s) URL"},
	} {
		if _, err := c.SignIn(ctx, c2.e, oauthtest.Browser); err == nil || !strings.Contains(err.Error(), c2.want) {
			t.Errorf("SignIn(%+v) = %v, want %q", c2.e, err, c2.want)
		}
	}
}

// A stray callback to the loopback listener during a sign-in (no state, a
// wrong one, an error= with a wrong one) neither ends nor hijacks it.
func TestSignInStrayCallback(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	open := func(authURL string) error {
		u, err := url.Parse(authURL)
		if err != nil {
			return err
		}
		redirect := u.Query().Get("redirect_uri")
		for _, q := range []string{"?code=evil", "?code=evil&state=wrong", "?error=access_denied&state=wrong"} {
			resp, err := http.Get(redirect + q)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				return fmt.Errorf("stray %s: %s", q, resp.Status)
			}
		}
		return oauthtest.Browser(authURL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := e.c.SignIn(ctx, e.entry, open); err != nil {
		t.Fatal(err)
	}
	for _, r := range e.fake.Requests() {
		if r.Form.Get("code") == "evil" {
			t.Error("the stray code was exchanged")
		}
	}
}

// A pre-registered confidential client (the entry's "oauth" block): its
// redirect port, its secret at the token endpoint (sign-in and refresh),
// no registration, and the secret in no log or error.
func TestPreregisteredClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.ExpiresIn(30 * time.Second)
	l, err := listenOn("0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	const secret = "pre-client-secret-9f3a"
	en := e.entry
	en.ClientID, en.ClientSecret, en.CallbackPort = e.fake.Preregister(secret, port), secret, port
	info := e.signIn(t, e.c, en)
	if info.Registration != "preregistered" {
		t.Errorf("Info = %+v", info)
	}
	if n := e.fake.Count("/register", ""); n != 0 {
		t.Errorf("%d registrations with a pre-registered client", n)
	}
	cs, err := e.connect(t, e.c, en)
	if err != nil {
		t.Fatal(err)
	}
	if err := echo(t, cs); err != nil {
		t.Fatal(err)
	}
	if e.fake.Count("/token", "refresh_token") == 0 {
		t.Error("no refresh with the client's secret")
	}
	for _, k := range e.store.keys() {
		v, _ := e.store.Get(k)
		if strings.Contains(v, secret) {
			t.Errorf("the pre-registered client's secret is stored under %s (the config's keyring entry holds it)", k)
		}
	}
	// The port taken: a clear error, no sign-in on another port.
	hold, err := listenOn(fmt.Sprint(port))
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	_, err = e.c.SignIn(t.Context(), en, oauthtest.Browser)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("port %d", port)) {
		t.Errorf("SignIn with the client's port taken: %v", err)
	}
	if strings.Contains(e.log.String(), secret) || (err != nil && strings.Contains(err.Error(), secret)) {
		t.Error("the client secret shows in the log or an error")
	}
	e.noSecrets(t, err2s(err))
}

// A browser on another machine: its redirect to 127.0.0.1 goes nowhere;
// the person pastes the address it ended on, and Complete finishes the
// sign-in. A wrong address is refused and the sign-in goes on.
func TestCompletePasted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pasted := make(chan string, 1)
	open := func(authURL string) error {
		// The other machine's browser: follows /authorize, stops at the redirect.
		cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := cl.Get(authURL)
		if err != nil {
			return err
		}
		resp.Body.Close()
		pasted <- resp.Header.Get("Location")
		return nil
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.c.SignIn(t.Context(), e.entry, open)
		done <- err
	}()
	addr := <-pasted
	if err := e.c.Complete(e.entry, strings.Replace(addr, "state=", "state=x", 1)); err == nil {
		t.Error("a wrong state was taken")
	}
	if err := e.c.Complete(oauthclient.Entry{Server: "other"}, addr); err == nil {
		t.Error("Complete of an entry with no sign-in succeeded")
	}
	if err := e.c.Complete(e.entry, addr); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cs, err := e.connect(t, e.c, e.entry)
	if err != nil {
		t.Fatal(err)
	}
	if err := echo(t, cs); err != nil {
		t.Fatal(err)
	}
}

// A second sign-in of the same entry (the first's tab abandoned) ends the
// first at once, and finishes itself.
func TestSignInSupersedes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	opened := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		_, err := e.c.SignIn(t.Context(), e.entry, func(string) error { close(opened); return nil })
		first <- err
	}()
	<-opened
	e.signIn(t, e.c, e.entry)
	err := <-first
	if err == nil || !strings.Contains(err.Error(), "newer sign-in") {
		t.Errorf("the first sign-in: %v", err)
	}
	if info, _ := e.c.Info(e.entry); info.State != oauthclient.StateSignedIn {
		t.Errorf("Info = %+v", info)
	}
}

// A Client ID Metadata Document where the authorization server takes
// one: no registration, the URL as client_id on every request; without
// support, the entry falls back to a dynamic registration.
func TestMetadataDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const doc = "https://mcptray.example/client.json"
	en := e.entry
	en.ClientMetadataURL = doc
	info := e.signIn(t, e.c, en) // not supported yet: registers
	if info.Registration != "dynamic" || e.fake.Count("/register", "") != 1 {
		t.Errorf("without CIMD support: %+v, %d registrations", info, e.fake.Count("/register", ""))
	}
	e.fake.AcceptMetadataDocuments(true)
	e.fake.ExpiresIn(30 * time.Second)
	info = e.signIn(t, e.c, en)
	if info.Registration != "metadata-document" || e.fake.Count("/register", "") != 1 {
		t.Errorf("with CIMD support: %+v, %d registrations", info, e.fake.Count("/register", ""))
	}
	cs, err := e.connect(t, e.c, en)
	if err != nil {
		t.Fatal(err)
	}
	if err := echo(t, cs); err != nil {
		t.Fatal(err)
	}
	rs := e.fake.Requests()
	last := rs[len(rs)-1]
	if last.Form.Get("grant_type") != "refresh_token" || last.Form.Get("client_id") != doc {
		t.Errorf("the last request: %s %v, want a refresh as %s", last.Path, last.Form.Get("grant_type"), doc)
	}
}
