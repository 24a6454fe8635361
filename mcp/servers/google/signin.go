package google

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/mcp/loopback"
	"golang.org/x/oauth2"
)

// DefaultSignInTimeout is how long a sign-in waits for the browser unless
// Options say otherwise.
const DefaultSignInTimeout = 5 * time.Minute

// callbackPath is the loopback redirect's path.
const callbackPath = "/oauth2callback"

// SignIn is one installed-app sign-in in progress: a loopback listener on
// 127.0.0.1:PORT (mcp/loopback) waiting for Google's redirect. Open URL in
// a browser, then Wait. Close ends it.
type SignIn struct {
	// URL is Google's consent page for this sign-in.
	URL string

	a        *Accounts
	cfg      *oauth2.Config
	clientID string
	services []string
	verifier string
	l        *loopback.Listener

	res signInResult // written by finish before l.Done is closed
}

type signInResult struct {
	added *Added
	err   error
}

// Added is a finished sign-in.
type Added struct {
	Account Account
	// Missing are the services asked for that the person did not grant.
	Missing []string
}

// Messages are the lines saying what each missing service disables.
func (ad *Added) Messages() []string {
	var out []string
	for _, s := range ad.Missing {
		out = append(out, MissingMessage(ad.Account.Email, s))
	}
	return out
}

// StartSignIn starts a sign-in for services (DefaultServices when empty),
// with loginHint ("" for none) preselecting the account on Google's page.
func (a *Accounts) StartSignIn(services []string, loginHint string) (*SignIn, error) {
	if len(services) == 0 {
		services = DefaultServices
	}
	c, err := LoadClient(a.opts.Store)
	if err != nil {
		return nil, err
	}
	l, err := loopback.Listen(0, callbackPath)
	if err != nil {
		return nil, fmt.Errorf("google sign-in: %w", err)
	}
	state := randomID()
	s := &SignIn{
		a:        a,
		cfg:      c.config(l.RedirectURL(), scopesFor(services)),
		clientID: c.ID,
		services: slices.Clone(services),
		verifier: oauth2.GenerateVerifier(),
		l:        l,
	}
	opts := []oauth2.AuthCodeOption{oauth2.AccessTypeOffline, oauth2.ApprovalForce, oauth2.S256ChallengeOption(s.verifier)}
	if loginHint != "" {
		opts = append(opts, oauth2.SetAuthURLParam("login_hint", loginHint))
	}
	s.URL = s.cfg.AuthCodeURL(state, opts...)
	l.Serve(state, s.finishRedirect)
	return s, nil
}

// Close stops the loopback listener, letting a page being sent finish
// (for a second at most).
func (s *SignIn) Close() error { return s.l.Close() }

// Wait waits for the browser to come back (Options.SignInTimeout at most) and
// returns the account signed in.
func (s *SignIn) Wait(ctx context.Context) (*Added, error) {
	t := time.NewTimer(s.a.opts.SignInTimeout)
	defer t.Stop()
	select {
	case <-s.l.Done():
		return s.res.added, s.res.err
	case <-ctx.Done():
		return nil, fmt.Errorf("the Google sign-in was stopped before it finished: %w", ctx.Err())
	case <-t.C:
		return nil, fmt.Errorf("the Google sign-in was not finished in the browser within %v", s.a.opts.SignInTimeout)
	}
}

// finishRedirect serves Google's redirect (the loopback listener checked
// its Host and state): it exchanges the code and says how it went.
func (s *SignIn) finishRedirect(q url.Values) loopback.Page {
	var res signInResult
	if e := q.Get("error"); e != "" {
		res.err = googleDenied(e, q.Get("error_description"))
	} else if code := q.Get("code"); code == "" {
		res.err = errors.New("google's redirect carried no authorization code")
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res.added, res.err = s.finish(ctx, code)
		cancel()
	}
	s.res = res
	if res.err != nil {
		return loopback.Page{Title: "The sign-in did not complete", Body: capitalize(res.err.Error()) + "."}
	}
	body := "Signed in to Google as " + res.added.Account.Email + ". You can close this tab."
	for _, m := range res.added.Messages() {
		body += "\n\nNote: " + m + "."
	}
	return loopback.Page{Title: "Signed in", Body: body}
}

func googleDenied(code, desc string) error {
	if code == "access_denied" {
		return errors.New("the sign-in was cancelled on Google's page (access_denied)")
	}
	if desc != "" {
		return fmt.Errorf("google refused the sign-in: %s (%s)", code, desc)
	}
	return fmt.Errorf("google refused the sign-in: %s", code)
}

// finish exchanges the code (with the PKCE verifier), reads the address
// from the ID token, checks the scopes granted and keeps the refresh token.
func (s *SignIn) finish(ctx context.Context, code string) (*Added, error) {
	a := s.a
	tok, err := s.cfg.Exchange(a.oauthContext(ctx), code, oauth2.VerifierOption(s.verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode != "" {
			return nil, fmt.Errorf("google refused the sign-in code: %s %s", re.ErrorCode, re.ErrorDescription)
		}
		return nil, fmt.Errorf("exchanging the sign-in code at Google: %w", err)
	}
	email, err := s.email(tok)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		return nil, errors.New("google sent no refresh token, so the sign-in would not last; sign in again")
	}
	granted, _ := tok.Extra("scope").(string)
	have, missing := s.services, []string(nil)
	if tok.Extra("scope") != nil { // absent means all that was asked (RFC 6749 §5.1)
		have, missing = grantedServices(s.services, granted)
	}
	if len(have) == 0 {
		if err := a.revoke(ctx, tok.RefreshToken); err != nil {
			a.log.Warn("revoking a sign-in with no service granted", "err", err)
		}
		return nil, fmt.Errorf("%s granted none of %s: mcptray keeps no sign-in without them; sign in again and tick the boxes on Google's consent page",
			email, strings.Join(s.services, ", "))
	}
	if err := a.opts.Store.Set(accountEntry(email), tok.RefreshToken); err != nil {
		return nil, fmt.Errorf("storing the sign-in of %s in the keyring: %w", email, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.sources, email) // the next call uses the new refresh token
	var acc Account
	err = a.update(func(list []Account) []Account {
		for i := range list {
			if strings.EqualFold(list[i].Email, email) {
				list[i].Scopes, list[i].Status, list[i].Reason = have, StatusOK, ""
				acc = list[i]
				return list
			}
		}
		acc = Account{Email: email, Scopes: have, Status: StatusOK, Added: time.Now().UTC().Truncate(time.Second)}
		return append(list, acc)
	})
	if err != nil {
		return nil, err
	}
	return &Added{Account: acc, Missing: missing}, nil
}

// email reads the account's address from the ID token of Google's answer.
// The token came straight from the token endpoint over TLS, so its claims
// are read without checking its signature (OpenID Connect Core §3.1.3.7).
func (s *SignIn) email(tok *oauth2.Token) (string, error) {
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return "", errors.New("google's answer has no ID token, so the account's address is unknown (was the openid scope refused?)")
	}
	p, err := parseIDToken(raw)
	if err != nil {
		return "", fmt.Errorf("reading the ID token in Google's answer: %w", err)
	}
	if p.Audience != s.clientID {
		return "", errors.New("the ID token in Google's answer was issued to another OAuth client")
	}
	email := p.Email
	if email == "" {
		return "", errors.New("the ID token in Google's answer has no email address (was the email scope refused?)")
	}
	return strings.ToLower(email), nil
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
