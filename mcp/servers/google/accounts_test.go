package google_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
)

// whoami asks the fake's userinfo endpoint, with hc, whose token it holds.
func whoami(t *testing.T, fake *googletest.Server, hc *http.Client) string {
	t.Helper()
	resp, err := hc.Get(fake.URL + googletest.UserinfoPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct{ Email string }
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&v) != nil {
		t.Fatalf("userinfo: %s", resp.Status)
	}
	return v.Email
}

func TestAddListClientRemove(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	added, err := e.acc.Add(ctx, google.AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	page := e.browser.page(t)
	if !strings.Contains(page, "Signed in to Google as ada@example.com. You can close this tab.") {
		t.Errorf("the browser's page: %s", page)
	}
	if added.Account.Email != "ada@example.com" || !slices.Equal(added.Account.Scopes, []string{"calendar", "gmail"}) ||
		added.Account.Status != google.StatusOK || len(added.Missing) != 0 {
		t.Errorf("added: %+v", added)
	}
	// The keyring holds the client and the refresh token alone.
	kr := e.store.snapshot()
	rt := kr["google/ada@example.com"]
	if len(kr) != 2 || !strings.HasPrefix(rt, "1//") {
		t.Fatalf("keyring: %v", kr)
	}
	// The accounts file: metadata, no secret.
	b, err := os.ReadFile(e.path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range append(e.fake.Issued(), e.fake.ClientSecret()) {
		if strings.Contains(string(b), secret) {
			t.Errorf("the accounts file holds a secret: %s", b)
		}
	}
	// Another process (a new Accounts) sees the account and gets tokens.
	other := e.accounts()
	list, err := other.List()
	if err != nil || len(list) != 1 || list[0].Email != "ada@example.com" || list[0].Added.IsZero() {
		t.Fatalf("list: %v %+v", err, list)
	}
	if emails, _ := other.Emails(); !slices.Equal(emails, []string{"ada@example.com"}) {
		t.Errorf("emails: %v", emails)
	}
	hc, err := other.Client(ctx, "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if got := whoami(t, e.fake, hc); got != "ada@example.com" {
		t.Errorf("userinfo: %s", got)
	}
	// Access tokens are reused while valid: one refresh for many calls.
	for range 3 {
		hc, err := other.Client(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		whoami(t, e.fake, hc)
	}
	if n := e.fake.Counts().Refreshes; n != 1 {
		t.Errorf("%d refreshes for calls within an access token's life", n)
	}

	res, err := other.Remove(ctx, "ada@example.com")
	if err != nil || res.RevokeError != nil {
		t.Fatalf("remove: %v %+v", err, res)
	}
	if !e.fake.Revoked(rt) {
		t.Error("the refresh token was not revoked at the fake")
	}
	if _, ok := e.store.snapshot()["google/ada@example.com"]; ok {
		t.Error("the refresh token is still in the keyring")
	}
	if list, _ := e.acc.List(); len(list) != 0 {
		t.Errorf("still listed: %+v", list)
	}
	e.noSecrets(t, page)
	if _, err := other.Remove(ctx, "ada@example.com"); err == nil || !strings.Contains(err.Error(), "no Google account ada@example.com") {
		t.Errorf("removing again: %v", err)
	}
	asSignInNeeded(t, func() error { _, err := other.Client(ctx, "ada@example.com"); return err }())
}

// Access tokens that expire are refreshed silently, call after call.
func TestSilentRefresh(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.SetAccessTTL(5 * time.Second) // inside x/oauth2's 10 s margin: every call refreshes
	e.add(t)
	for range 3 {
		hc, err := e.acc.Client(context.Background(), "ada@example.com")
		if err != nil {
			t.Fatal(err)
		}
		whoami(t, e.fake, hc)
	}
	if n := e.fake.Counts().Refreshes; n < 3 {
		t.Errorf("%d refreshes, want one per call", n)
	}
}

func TestRemoveOffline(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.add(t)
	e.fake.Close() // Google cannot be reached
	res, err := e.acc.Remove(context.Background(), "ada@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if res.RevokeError == nil || !strings.Contains(res.RevokeError.Error(), "could not reach") {
		t.Fatalf("revoke error: %v", res.RevokeError)
	}
	e.noSecrets(t, res.RevokeError.Error())
	if _, ok := e.store.snapshot()["google/ada@example.com"]; ok {
		t.Error("the refresh token is still in the keyring")
	}
	if list, _ := e.acc.List(); len(list) != 0 {
		t.Errorf("still listed: %+v", list)
	}
}

func TestGranularConsent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.SetConsent(googletest.Consent{Scopes: []string{google.ScopeCalendar}})
	added := e.add(t)
	if !slices.Equal(added.Account.Scopes, []string{"calendar"}) || !slices.Equal(added.Missing, []string{"gmail"}) {
		t.Fatalf("added: %+v", added)
	}
	msgs := added.Messages()
	want := "ada@example.com did not grant gmail access (https://www.googleapis.com/auth/gmail.modify): " +
		"the gmail server's tools and new-mail notifications will not work for this account; " +
		"to fix it, run `mcptray auth google add` again and tick every box on Google's consent page"
	if len(msgs) != 1 || msgs[0] != want {
		t.Errorf("messages: %q", msgs)
	}
	// Nothing granted: no account is kept, and the token is revoked.
	e.fake.SetConsent(googletest.Consent{Email: "bob@example.com", Scopes: []string{}})
	_, err := e.acc.Add(context.Background(), google.AddOptions{})
	if err == nil || !strings.Contains(err.Error(), "bob@example.com granted none of calendar, gmail") {
		t.Errorf("nothing granted: %v", err)
	}
	if page := e.browser.page(t); !strings.Contains(page, "did not complete") {
		t.Errorf("page: %s", page)
	}
	if _, ok := e.store.snapshot()["google/bob@example.com"]; ok || e.fake.Counts().Revocations != 1 {
		t.Errorf("a sign-in with nothing granted was kept (revocations %d)", e.fake.Counts().Revocations)
	}
}

func TestAddScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if _, err := google.ParseServices("calendar,mail"); err == nil || err.Error() != `unknown Google service "mail": the choices are calendar and gmail` {
		t.Errorf("bad service: %v", err)
	}
	svcs, err := google.ParseServices("gmail")
	if err != nil {
		t.Fatal(err)
	}
	added := e.add(t, svcs...)
	if !slices.Equal(added.Account.Scopes, []string{"gmail"}) || len(added.Missing) != 0 {
		t.Errorf("added: %+v", added)
	}
}

func TestInvalidGrant(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		desc       string
		want, miss string
	}{
		{"Bad Request", `Google no longer accepts its saved sign-in (Google said: "Bad Request"): the access was revoked, or the account's password changed`, "In production"},
		{googletest.ExpiredOrRevoked, `publish it "In production"`, "password changed"},
	} {
		t.Run(c.desc, func(t *testing.T) {
			e := newEnv(t)
			e.add(t)
			ctx := context.Background()
			if _, err := e.acc.Client(ctx, "ada@example.com"); err != nil {
				t.Fatal(err)
			}
			e.fake.FailRefresh("ada@example.com", c.desc)
			e.fake.SetAccessTTL(time.Second)
			// The cached access token is still good for an hour: drop it
			// by starting as another process would.
			acc := e.accounts()
			_, err := acc.Client(ctx, "ada@example.com")
			sn := asSignInNeeded(t, err)
			e.noSecrets(t, err.Error())
			if sn.Email != "ada@example.com" || !strings.Contains(sn.Reason, c.want) || strings.Contains(sn.Reason, c.miss) {
				t.Errorf("reason: %s", sn.Reason)
			}
			if c.desc == googletest.ExpiredOrRevoked && !strings.Contains(sn.Reason, `"Testing", Google ends every sign-in after 7 days`) {
				t.Errorf("reason lacks the Testing expiry: %s", sn.Reason)
			}
			// The status is persisted: a third process sees it, and asks
			// Google no more.
			refused := e.fake.Counts().Refused
			list, _ := e.accounts().List()
			if len(list) != 1 || list[0].Status != google.StatusNeedsSignIn || list[0].Reason != sn.Reason {
				t.Errorf("list: %+v", list)
			}
			_, err = e.accounts().Client(ctx, "ada@example.com")
			asSignInNeeded(t, err)
			if e.fake.Counts().Refused != refused {
				t.Error("an account that needs to sign in still asked Google")
			}
			// Signing in again makes it ok.
			e.fake.RestoreRefresh("ada@example.com")
			e.add(t)
			if list, _ := e.acc.List(); list[0].Status != google.StatusOK || list[0].Reason != "" {
				t.Errorf("after signing in again: %+v", list)
			}
			if _, err := acc.Client(ctx, "ada@example.com"); err != nil {
				t.Errorf("client after signing in again: %v", err)
			}
		})
	}
}

func TestNoAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.acc.Client(context.Background(), "")
	sn := asSignInNeeded(t, err)
	if sn.Email != "" || sn.Error() != "no Google account is signed in: no Google account has been added yet" {
		t.Errorf("%q", sn.Error())
	}
	_, err = e.acc.Client(context.Background(), "zed@example.com")
	if sn := asSignInNeeded(t, err); sn.Email != "zed@example.com" {
		t.Errorf("%v", sn)
	}
}

func TestNoClient(t *testing.T) {
	t.Parallel()
	acc := google.New(google.Options{Store: newMemStore(), Path: t.TempDir() + "/a.json"})
	_, err := acc.Add(context.Background(), google.AddOptions{})
	if !errors.Is(err, google.ErrNoClient) || !strings.Contains(err.Error(), "mcptray auth google client FILE") {
		t.Errorf("%v", err)
	}
}

// A keyring that cannot be reached is an error naming what is missing:
// nothing crashes, and nothing is written anywhere else.
func TestKeyringUnavailable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.add(t)
	e.store.err = errors.New("no Secret Service on the session D-Bus: start gnome-keyring")
	acc := e.accounts()
	ctx := context.Background()
	_, err := acc.Client(ctx, "ada@example.com")
	if err == nil || !strings.Contains(err.Error(), "no Secret Service on the session D-Bus") {
		t.Errorf("client: %v", err)
	}
	var sn *google.SignInNeededError
	if errors.As(err, &sn) {
		t.Error("an unavailable keyring is not a reason to sign in again")
	}
	if _, err := acc.Add(ctx, google.AddOptions{}); err == nil || !strings.Contains(err.Error(), "reading the Google OAuth client from the keyring: no Secret Service") {
		t.Errorf("add: %v", err)
	}
	if _, err := acc.Remove(ctx, "ada@example.com"); err == nil || !strings.Contains(err.Error(), "no Secret Service") {
		t.Errorf("remove: %v", err)
	}
	if list, _ := acc.List(); len(list) != 1 {
		t.Errorf("the account went away with the keyring: %+v", list)
	}
}

func TestCancelledOnGooglesPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.SetConsent(googletest.Consent{Deny: true})
	_, err := e.acc.Add(context.Background(), google.AddOptions{})
	if err == nil || err.Error() != "the sign-in was cancelled on Google's page (access_denied)" {
		t.Errorf("%v", err)
	}
	if page := e.browser.page(t); !strings.Contains(page, "The sign-in was cancelled on Google") {
		t.Errorf("page: %s", page)
	}
}

// The loopback answers only the redirect of its own sign-in: a wrong state
// gets a page saying so, and the sign-in still completes.
func TestLoopbackState(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s, err := e.acc.StartSignIn(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The authorization request: the installed-app flow's parameters.
	au, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	q := au.Query()
	for k, want := range map[string]string{
		"access_type": "offline", "prompt": "consent", "code_challenge_method": "S256", "response_type": "code",
		"scope": "openid email " + google.ScopeCalendar + " " + google.ScopeGmail, "client_id": e.fake.ClientID(),
	} {
		if q.Get(k) != want {
			t.Errorf("%s=%q, want %q", k, q.Get(k), want)
		}
	}
	if ru, err := url.Parse(q.Get("redirect_uri")); err != nil || ru.Scheme != "http" || ru.Hostname() != "127.0.0.1" || ru.Port() == "" || ru.Port() == "0" {
		t.Errorf("redirect_uri %q", q.Get("redirect_uri"))
	}
	if len(q.Get("state")) < 16 || len(q.Get("code_challenge")) < 43 {
		t.Errorf("state %q, code_challenge %q", q.Get("state"), q.Get("code_challenge"))
	}
	resp, err := noRedirect.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, _ := resp.Location()
	if loc == nil || loc.Hostname() != "127.0.0.1" {
		t.Fatalf("the consent page redirected to %v", loc)
	}
	forged := *loc
	q = forged.Query()
	q.Set("state", "forged")
	forged.RawQuery = q.Encode()
	resp, err = http.Get(forged.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("forged state: %s", resp.Status)
	}
	resp, err = http.Get(loc.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	added, err := s.Wait(ctx)
	if err != nil || added.Account.Email != "ada@example.com" {
		t.Fatalf("%v %+v", err, added)
	}
}

// A server holding a refresh token that stopped working picks up the one a
// new sign-in (another process) put in the keyring, without asking.
func TestSignedInAgainElsewhere(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.fake.SetAccessTTL(5 * time.Second) // every call refreshes
	e.add(t)
	ctx := context.Background()
	if _, err := e.acc.Client(ctx, "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	e.fake.FailRefresh("ada@example.com", googletest.ExpiredOrRevoked)
	cliAcc := e.accounts()
	if _, err := cliAcc.Add(ctx, google.AddOptions{}); err != nil {
		t.Fatal(err)
	}
	e.browser.page(t)
	hc, err := e.acc.Client(ctx, "ada@example.com")
	if err != nil {
		t.Fatalf("the server after a sign-in elsewhere: %v", err)
	}
	whoami(t, e.fake, hc)
	if list, _ := e.acc.List(); list[0].Status != google.StatusOK {
		t.Errorf("status: %+v", list[0])
	}
}

// Nobody finishes the sign-in: Add gives up after its timeout, saying so.
func TestSignInTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acc := google.New(google.Options{Store: e.store, Path: e.path, OpenBrowser: func(string) error { return nil },
		SignInTimeout: 50 * time.Millisecond})
	var out strings.Builder
	_, err := acc.Add(context.Background(), google.AddOptions{Out: &out})
	if err == nil || err.Error() != "the Google sign-in was not finished in the browser within 50ms" {
		t.Errorf("%v", err)
	}
	if !strings.Contains(out.String(), "If it did not open, visit:\n\n  "+e.fake.URL+googletest.AuthPath+"?") {
		t.Errorf("out: %s", out.String())
	}
}
