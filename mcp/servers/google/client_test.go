package google_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/mcp/servers/google"
	"github.com/mcptray/mcptray/mcp/servers/google/googletest"
	"golang.org/x/oauth2"
)

func TestParseClientFile(t *testing.T) {
	t.Parallel()
	c, err := google.ParseClientFile([]byte(`{"installed":{"client_id":"id.apps.googleusercontent.com","client_secret":"GOCSPX-x","redirect_uris":["http://localhost"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.AuthURI != google.GoogleAuthURI || c.TokenURI != google.GoogleTokenURI {
		t.Errorf("default endpoints: %+v", c)
	}
	if u, err := c.RevokeURL(); err != nil || u != "https://oauth2.googleapis.com/revoke" {
		t.Errorf("revoke URL: %s %v", u, err)
	}
	c, err = google.ParseClientFile([]byte(`{"installed":{"client_id":"i","client_secret":"s","auth_uri":"https://example.com/a/auth","token_uri":"https://example.com/o/token"}}`))
	if err != nil || c.AuthURI != "https://example.com/a/auth" {
		t.Fatal(err, c)
	}
	if u, _ := c.RevokeURL(); u != "https://example.com/o/revoke" {
		t.Errorf("revoke URL: %s", u)
	}
	c.TokenURI = "https://example.com/oauth/access"
	if _, err := c.RevokeURL(); err == nil || !strings.Contains(err.Error(), "does not end in /token") {
		t.Errorf("revoke URL of a token URI not ending in token: %v", err)
	}

	const desktop = `mcptray needs a "Desktop app"`
	for _, c := range []struct{ name, file, want string }{
		{"web client", `{"web":{"client_id":"i","client_secret":"s"}}`, `this is a "Web application" OAuth client`},
		{"service account", `{"type":"service_account","project_id":"p","private_key":"-----BEGIN PRIVATE KEY-----"}`, "this is a service account key"},
		{"gcloud credential", `{"type":"authorized_user","client_id":"i","refresh_token":"r"}`, "gcloud user credential"},
		{"other JSON", `{"hello":"world"}`, `this JSON file is not an OAuth client (it has no "installed" part)`},
		{"JSON array", `[1,2]`, "this JSON file is not an OAuth client (it is not a JSON object)"},
		{"not JSON", "client_id=abc\n", "this file is not JSON"},
		{"no secret", `{"installed":{"client_id":"i"}}`, "this Desktop app client file has no client_secret"},
		{"bad token_uri", `{"installed":{"client_id":"i","client_secret":"s","token_uri":"file:///etc/passwd"}}`, `token_uri "file:///etc/passwd" is not an http(s) URL`},
	} {
		_, err := google.ParseClientFile([]byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !strings.Contains(err.Error(), "Desktop app") || !strings.Contains(err.Error(), "console.cloud.google.com") {
			t.Errorf("%s: the error does not say what to download: %v", c.name, err)
		}
		if c.name != "not JSON" && c.name != "no secret" && c.name != "bad token_uri" && c.name != "JSON array" && !strings.Contains(err.Error(), desktop) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// authorizeURL is a valid authorization request to the fake, with one
// parameter changed (or removed, for "").
func authorizeURL(fake *googletest.Server, key, value string) string {
	q := url.Values{
		"client_id": {fake.ClientID()}, "redirect_uri": {"http://127.0.0.1:1/cb"}, "response_type": {"code"},
		"scope": {"openid email"}, "state": {"st"}, "code_challenge": {"abc"}, "code_challenge_method": {"S256"},
	}
	if value == "" {
		q.Del(key)
	} else {
		q.Set(key, value)
	}
	return fake.URL + googletest.AuthPath + "?" + q.Encode()
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func TestFakeAuthorizeChecks(t *testing.T) {
	t.Parallel()
	fake := googletest.New()
	defer fake.Close()
	for _, c := range []struct {
		key, value string
		code       int
	}{
		{"state", "st", http.StatusFound}, // all well
		{"client_id", "other", http.StatusUnauthorized},
		{"redirect_uri", "http://localhost:1/cb", http.StatusBadRequest},
		{"redirect_uri", "https://evil.example/cb", http.StatusBadRequest},
		{"response_type", "token", http.StatusBadRequest},
		{"code_challenge_method", "plain", http.StatusBadRequest},
		{"code_challenge", "", http.StatusBadRequest},
	} {
		resp, err := noRedirect.Get(authorizeURL(fake, c.key, c.value))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.code {
			t.Errorf("%s=%q: %s, want %d", c.key, c.value, resp.Status, c.code)
		}
	}
}

// The fake's token endpoint enforces PKCE, single-use codes and the client
// secret, seen through the real x/oauth2 client.
func TestFakeTokenChecks(t *testing.T) {
	t.Parallel()
	fake := googletest.New()
	defer fake.Close()
	verifier := oauth2.GenerateVerifier()
	cfg := &oauth2.Config{
		ClientID: fake.ClientID(), ClientSecret: fake.ClientSecret(),
		Endpoint:    oauth2.Endpoint{AuthURL: fake.URL + googletest.AuthPath, TokenURL: fake.URL + googletest.TokenPath, AuthStyle: oauth2.AuthStyleInParams},
		RedirectURL: "http://127.0.0.1:9/cb", Scopes: []string{"openid", "email", google.ScopeCalendar},
	}
	code := func() string {
		t.Helper()
		resp, err := noRedirect.Get(cfg.AuthCodeURL("st", oauth2.AccessTypeOffline, oauth2.S256ChallengeOption(verifier)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, err := resp.Location()
		if err != nil {
			t.Fatal(err)
		}
		if loc.Query().Get("state") != "st" {
			t.Errorf("state not passed back: %s", loc)
		}
		return loc.Query().Get("code")
	}
	ctx := context.Background()
	refused := func(what string, err error, want string) {
		t.Helper()
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) || re.ErrorCode+": "+re.ErrorDescription != want {
			t.Errorf("%s: %v, want %s", what, err, want)
		}
	}
	c := code()
	_, err := cfg.Exchange(ctx, c, oauth2.VerifierOption(oauth2.GenerateVerifier()))
	refused("a wrong verifier", err, "invalid_grant: Invalid code verifier.")
	_, err = cfg.Exchange(ctx, c, oauth2.VerifierOption(verifier))
	refused("a code used once already", err, "invalid_grant: Bad Request")
	_, err = cfg.Exchange(ctx, code())
	refused("no verifier", err, "invalid_grant: Missing code verifier.")
	bad := *cfg
	bad.ClientSecret = "wrong"
	_, err = bad.Exchange(ctx, code(), oauth2.VerifierOption(verifier))
	refused("a wrong client secret", err, "invalid_client: Unauthorized")

	tok, err := cfg.Exchange(ctx, code(), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if tok.RefreshToken == "" || tok.Extra("id_token") == nil || tok.Extra("scope") != "openid email "+google.ScopeCalendar {
		t.Errorf("token: %+v", tok)
	}
	// Refresh, then invalid_grant when switched.
	tok.Expiry = tok.Expiry.Add(-2 * 3600e9)
	if _, err := cfg.TokenSource(ctx, tok).Token(); err != nil {
		t.Errorf("refresh: %v", err)
	}
	fake.FailRefresh(googletest.DefaultEmail, googletest.ExpiredOrRevoked)
	_, err = cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	refused("a failing account's refresh", err, "invalid_grant: "+googletest.ExpiredOrRevoked)
	if n := fake.Counts(); n.Exchanges != 1 || n.Refreshes != 1 || n.Refused != 5 || n.Authorizations != 4 {
		t.Errorf("counts: %+v", n)
	}
}
