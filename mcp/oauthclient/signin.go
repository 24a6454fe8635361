package oauthclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcptray/mcptray/mcp/loopback"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// callbackPath is the loopback redirect's path.
const callbackPath = "/callback"

// SignIn signs the person in to e's authorization server: open gets the
// authorization URL (the caller opens a browser or shows it; SignIn never
// does), and SignIn waits for the redirect (Options.SignInTimeout at
// most), exchanges the code and stores the token.
func (c *Client) SignIn(ctx context.Context, e Entry, open func(url string) error) (Info, error) {
	if e.Server == "" || e.URL == "" {
		return Info{}, errors.New("signing in: the entry has no name or no URL")
	}
	if u, err := url.Parse(e.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return Info{}, fmt.Errorf("signing in to %s: its URL %q is not an http(s) URL", e.Server, e.URL)
	}
	if open == nil {
		return Info{}, errors.New("signing in: nothing to open the sign-in page with")
	}
	req, resp, err := c.challengeFor(ctx, e)
	if err != nil {
		return Info{}, err
	}
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	d, err := c.discover(ctx, e.URL, cs)
	if err != nil {
		return Info{}, fmt.Errorf("signing in to %s: %w", e.Server, err)
	}
	old, _ := c.load(e)
	var granted []string
	if old != nil && old.Issuer == d.asm.Issuer {
		granted = old.Scopes
	}
	var info Info
	err = c.signInOnce(ctx, e, d, req, resp, granted, open, &info)
	if isInvalidClient(err) {
		// The provider deleted the registration between our check and
		// the exchange: register again, once.
		c.log.Info("the authorization server no longer knows the registration; registering again", "server", e.Server, "issuer", d.asm.Issuer)
		if derr := c.delete(regKey(d.asm.Issuer)); derr != nil {
			return Info{}, derr
		}
		err = c.signInOnce(ctx, e, d, req, resp, granted, open, &info)
	}
	if err != nil {
		return Info{}, fmt.Errorf("signing in to %s at %s: %w", e.Server, hostOf(d.asm.Issuer), err)
	}
	c.mu.Lock()
	delete(c.retried, e.Server)
	delete(c.challenges, e.Server)
	c.mu.Unlock()
	return info, nil
}

// challengeFor is the request and the server's 401/403 answer that the
// sign-in starts from: the one Authorize kept, or a fresh unauthenticated
// request to the server.
func (c *Client) challengeFor(ctx context.Context, e Entry) (*http.Request, *http.Response, error) {
	c.mu.Lock()
	ch, ok := c.challenges[e.Server]
	c.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("signing in to %s: %w", e.Server, err)
	}
	if ok && ch.url == e.URL {
		h := http.Header{}
		for _, v := range ch.header {
			h.Add("WWW-Authenticate", v)
		}
		return req, &http.Response{StatusCode: ch.status, Header: h, Body: io.NopCloser(strings.NewReader(""))}, nil
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcptray","version":"0"}}}`
	probe, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader([]byte(body)))
	if err != nil {
		return nil, nil, err
	}
	probe.Header.Set("Content-Type", "application/json")
	probe.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.hc.Do(probe)
	if err != nil {
		return nil, nil, fmt.Errorf("signing in to %s: reaching the server: %w", e.Server, redactURLError(err))
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		// It asks for nothing now; sign in anyway with what discovery
		// finds (the person asked to).
		resp.StatusCode, resp.Header = http.StatusUnauthorized, http.Header{}
	}
	resp.Body = io.NopCloser(strings.NewReader(""))
	return req, resp, nil
}

// signInOnce is one round of the sign-in: registration, listener,
// go-sdk's handler, storage.
func (c *Client) signInOnce(ctx context.Context, e Entry, d *discovery, req *http.Request, resp *http.Response, granted []string, open func(string) error, info *Info) error {
	asm := d.asm
	cfg := &auth.AuthorizationCodeHandlerConfig{
		Client:              c.hc,
		RequestRefreshToken: true,
		ScopeFilter: func(discovered []string) []string {
			return union(granted, discovered, e.Scopes)
		},
	}
	rec := &tokenRecord{Issuer: asm.Issuer, URL: e.URL, Resource: d.resource, TokenEndpoint: asm.TokenEndpoint,
		RevocationEndpoint: asm.RevocationEndpoint}
	var l *loopback.Listener
	var err error
	switch {
	case e.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported:
		if l, err = loopback.Listen(e.CallbackPort, callbackPath); err != nil {
			return err
		}
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: e.ClientMetadataURL}
		rec.Registration, rec.ClientID, rec.AuthMethod = "metadata-document", e.ClientMetadataURL, "none"
	case e.ClientID != "":
		if l, err = loopback.Listen(e.CallbackPort, callbackPath); err != nil {
			return err
		}
		if l.Moved() {
			l.Close()
			return fmt.Errorf("port %d of the client's redirect URI is taken by another program; free it and sign in again", e.CallbackPort)
		}
		pre := &oauthex.ClientCredentials{ClientID: e.ClientID}
		if e.ClientSecret != "" {
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: e.ClientSecret}
		}
		cfg.PreregisteredClient = pre
		rec.Registration, rec.ClientID, rec.AuthMethod = "preregistered", e.ClientID, authMethod(asm.TokenEndpointAuthMethodsSupported)
	default:
		var reg *registration
		reg, l, err = c.registration(ctx, asm)
		if err != nil {
			return err
		}
		pre := &oauthex.ClientCredentials{ClientID: reg.ClientID, Issuer: asm.Issuer}
		if reg.ClientSecret != "" {
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: reg.ClientSecret}
		}
		cfg.PreregisteredClient = pre
		rec.Registration, rec.ClientID, rec.ClientSecret = "dynamic", reg.ClientID, reg.ClientSecret
		rec.AuthMethod = authMethod(asm.TokenEndpointAuthMethodsSupported)
	}
	defer l.Close()
	cfg.RedirectURL = l.RedirectURL()

	outcome := make(chan loopback.Page, 1) // the page the browser shows once the exchange is done
	cfg.AuthorizationCodeFetcher = func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		return c.fetchCode(ctx, e, l, args.URL, open, outcome)
	}
	var tok *oauth2.Token
	var requested []string
	cfg.NewTokenSource = func(ctx context.Context, oc *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
		tok, requested = t, oc.Scopes
		return oauth2.StaticTokenSource(t), nil
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(strings.NewReader(""))
	err = h.Authorize(ctx, req, resp)
	if err == nil && tok == nil {
		err = errors.New("no token came back")
	}
	if err != nil {
		outcome <- loopback.Page{Title: "The sign-in did not complete", Body: "mcptray could not finish signing in to " + e.Server + ". It says why."}
		return err
	}
	rec.AccessToken, rec.RefreshToken, rec.TokenType, rec.Expiry = tok.AccessToken, tok.RefreshToken, tok.TokenType, tok.Expiry
	rec.Scopes = requested
	if s, _ := tok.Extra("scope").(string); s != "" {
		rec.Scopes = strings.Fields(s)
	}
	unlock := c.lockEntry(e.Server)
	err = c.save(e, rec)
	unlock()
	if err != nil {
		outcome <- loopback.Page{Title: "The sign-in did not complete", Body: "mcptray could not keep the sign-in in the keyring."}
		return err
	}
	outcome <- loopback.Page{Title: "Signed in", Body: "Signed in to " + e.Server + " at " + hostOf(asm.Issuer) + ". You can close this tab."}
	*info = infoOf(e, rec)
	return nil
}

// fetchCode is go-sdk's AuthorizationCodeFetcher: it serves the loopback
// redirect for the state in authURL, hands authURL to open, and waits.
func (c *Client) fetchCode(ctx context.Context, e Entry, l *loopback.Listener, authURL string, open func(string) error, outcome <-chan loopback.Page) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	state := u.Query().Get("state")
	got := make(chan url.Values, 1)
	l.Serve(state, func(q url.Values) loopback.Page {
		got <- q
		if q.Get("error") != "" {
			return loopback.Page{Title: "The sign-in did not complete", Body: denied(q).Error() + "."}
		}
		select {
		case p := <-outcome:
			return p
		case <-time.After(time.Minute):
			return loopback.Page{Title: "Signed in?", Body: "mcptray got the answer but is still finishing. You can close this tab."}
		}
	})
	if err := open(authURL); err != nil {
		return nil, fmt.Errorf("opening the sign-in page: %w", err)
	}
	t := time.NewTimer(c.opts.SignInTimeout)
	defer t.Stop()
	select {
	case q := <-got:
		if q.Get("error") != "" {
			return nil, denied(q)
		}
		if q.Get("code") == "" {
			return nil, errors.New("the authorization server's redirect carried no code")
		}
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("the sign-in was stopped before it finished: %w", ctx.Err())
	case <-t.C:
		return nil, fmt.Errorf("the sign-in was not finished in the browser within %v", c.opts.SignInTimeout)
	}
}

// denied is the error of a redirect carrying error=; invalid_client is an
// *oauth2.RetrieveError, so that SignIn registers again.
func denied(q url.Values) error {
	code, desc := q.Get("error"), q.Get("error_description")
	switch code {
	case "access_denied":
		return errors.New("the sign-in was cancelled on the authorization server's page (access_denied)")
	case "invalid_client":
		return &oauth2.RetrieveError{Response: &http.Response{StatusCode: http.StatusBadRequest}, ErrorCode: code, ErrorDescription: desc}
	}
	if desc != "" {
		return fmt.Errorf("the authorization server refused the sign-in: %s (%s)", code, desc)
	}
	return fmt.Errorf("the authorization server refused the sign-in: %s", code)
}

// authMethod is the token endpoint authentication go-sdk picks for a
// pre-registered client, for our refreshes.
func authMethod(supported []string) string {
	for _, m := range []string{"client_secret_post", "client_secret_basic"} {
		if contains(supported, m) {
			return m
		}
	}
	return ""
}

// registration is the issuer's stored dynamic registration with a
// listener on its redirect port, or a new one (registered and stored)
// when there is none, its port can't be had, or the provider deleted it.
func (c *Client) registration(ctx context.Context, asm *oauthex.AuthServerMeta) (*registration, *loopback.Listener, error) {
	unlock := c.lockIssuer(asm.Issuer)
	defer unlock()
	var reg registration
	ok, err := c.getJSON(regKey(asm.Issuer), &reg)
	if err != nil {
		return nil, nil, err
	}
	if ok && reg.Issuer == asm.Issuer && reg.Port > 0 {
		l, err := loopback.Listen(reg.Port, callbackPath)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case l.Moved():
			c.log.Info("the registration's redirect port is taken; registering again", "issuer", asm.Issuer, "port", reg.Port)
			return c.register(ctx, asm, l)
		case c.registrationGone(ctx, asm.TokenEndpoint, &reg):
			c.log.Info("the authorization server no longer knows the registration; registering again", "issuer", asm.Issuer)
			return c.register(ctx, asm, l)
		}
		return &reg, l, nil
	}
	l, err := loopback.Listen(0, callbackPath)
	if err != nil {
		return nil, nil, err
	}
	return c.register(ctx, asm, l)
}

// register registers a client for l's redirect URI (RFC 7591) and stores
// it. The caller holds the issuer's lock.
func (c *Client) register(ctx context.Context, asm *oauthex.AuthServerMeta, l *loopback.Listener) (*registration, *loopback.Listener, error) {
	if asm.RegistrationEndpoint == "" {
		l.Close()
		return nil, nil, fmt.Errorf("%s offers no dynamic client registration; give mcptray a client in the entry's \"oauth\" block (clientId)", hostOf(asm.Issuer))
	}
	meta := &oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{l.RedirectURL()},
		TokenEndpointAuthMethod: "none",
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		ClientName:              c.opts.ClientName,
	}
	resp, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, meta, c.hc)
	if err != nil {
		l.Close()
		return nil, nil, fmt.Errorf("registering mcptray at %s: %w", hostOf(asm.Issuer), err)
	}
	reg := &registration{Issuer: asm.Issuer, ClientID: resp.ClientID, ClientSecret: resp.ClientSecret,
		AuthMethod: resp.TokenEndpointAuthMethod, RedirectURI: l.RedirectURL(), Port: l.Port(), Registered: time.Now().UTC()}
	if err := c.setJSON(regKey(asm.Issuer), reg); err != nil {
		l.Close()
		return nil, nil, err
	}
	return reg, l, nil
}
