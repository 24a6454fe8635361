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

// errSuperseded ends a sign-in that a newer one of the same entry
// replaced.
var errSuperseded = errors.New("a newer sign-in replaced this one")

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
		return Info{}, fmt.Errorf("signing in to %s: its URL is not an http(s) URL", e.Server) // the URL may hold a secret
	}
	if open == nil {
		return Info{}, errors.New("signing in: nothing to open the sign-in page with")
	}
	ctx, cancel := context.WithCancelCause(ctx)
	run := &signInRun{cancel: cancel}
	c.mu.Lock()
	if old := c.signIns[e.Server]; old != nil {
		old.cancel(errSuperseded)
	}
	c.signIns[e.Server] = run
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.signIns[e.Server] == run {
			delete(c.signIns, e.Server)
		}
		c.mu.Unlock()
		cancel(nil)
	}()
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
	registered := false // go-sdk registers a new client this round
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
		// One registration per issuer: a second sign-in on it waits for
		// the first, then reuses what it registered.
		unlock := c.lockIssuer(asm.Issuer)
		defer unlock()
		var reg *registration
		reg, l, err = c.storedRegistration(ctx, asm)
		if err != nil {
			return err
		}
		rec.Registration = "dynamic"
		if reg != nil {
			pre := &oauthex.ClientCredentials{ClientID: reg.ClientID, Issuer: asm.Issuer}
			if reg.ClientSecret != "" {
				pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: reg.ClientSecret}
			}
			cfg.PreregisteredClient = pre
			rec.ClientID, rec.ClientSecret, rec.AuthMethod = reg.ClientID, reg.ClientSecret, reg.AuthMethod
			if rec.AuthMethod == "" {
				rec.AuthMethod = authMethod(asm.TokenEndpointAuthMethodsSupported)
			}
			break
		}
		if asm.RegistrationEndpoint == "" {
			l.Close()
			return fmt.Errorf("%s offers no dynamic client registration; give mcptray a client in the entry's \"oauth\" block (clientId)", hostOf(asm.Issuer))
		}
		// go-sdk registers (and so authenticates at the token endpoint
		// the way the registration says); SignIn keeps what it registered.
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{l.RedirectURL()},
			TokenEndpointAuthMethod: "none",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			ClientName:              c.opts.ClientName,
		}}
		registered = true
	}
	defer l.Close()
	cfg.RedirectURL = l.RedirectURL()

	outcome := make(chan loopback.Page, 1) // the page the browser shows once the exchange is done
	cfg.AuthorizationCodeFetcher = func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		return c.fetchCode(ctx, e, l, args.URL, open, outcome)
	}
	var tok *oauth2.Token
	var used *oauth2.Config // the client go-sdk used: a new registration's id, secret and auth style
	cfg.NewTokenSource = func(ctx context.Context, oc *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
		tok, used = t, oc
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
		outcome <- loopback.Page{Title: "The sign-in did not complete", Body: "mcptray could not finish signing in to " + e.Server + "; it says why where you started the sign-in."}
		return err
	}
	if registered {
		reg := &registration{Issuer: asm.Issuer, ClientID: used.ClientID, ClientSecret: used.ClientSecret,
			AuthMethod: styleMethod(used.Endpoint.AuthStyle, used.ClientSecret), RedirectURI: l.RedirectURL(), Port: l.Port(),
			Registered: time.Now().UTC()}
		if err := c.setJSON(regKey(asm.Issuer), reg); err != nil {
			c.log.Warn("keeping the new registration", "issuer", asm.Issuer, "err", err)
		}
		rec.ClientID, rec.ClientSecret, rec.AuthMethod = reg.ClientID, reg.ClientSecret, reg.AuthMethod
	}
	rec.AccessToken, rec.RefreshToken, rec.TokenType, rec.Expiry = tok.AccessToken, tok.RefreshToken, tok.TokenType, tok.Expiry
	rec.Scopes = used.Scopes
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
	c.mu.Lock()
	c.waiting[e.Server] = l
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		if c.waiting[e.Server] == l {
			delete(c.waiting, e.Server)
		}
		c.mu.Unlock()
	}()
	// open may wait for the page to be shown (a browser run to the end,
	// a test's stand-in), which waits for the exchange: it runs on its own.
	opened := make(chan error, 1)
	go func() { opened <- open(authURL) }()
	t := time.NewTimer(c.opts.SignInTimeout)
	defer t.Stop()
	for {
		select {
		case err := <-opened:
			if err != nil {
				return nil, fmt.Errorf("opening the sign-in page: %w", err)
			}
			opened = nil
			continue
		case q := <-got:
			if q.Get("error") != "" {
				return nil, denied(q)
			}
			if q.Get("code") == "" {
				return nil, errors.New("the authorization server's redirect carried no code")
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errSuperseded) {
				return nil, errSuperseded
			}
			return nil, fmt.Errorf("the sign-in was stopped before it finished: %w", ctx.Err())
		case <-t.C:
			return nil, fmt.Errorf("the sign-in was not finished in the browser within %v", c.opts.SignInTimeout)
		}
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

// styleMethod names the token endpoint authentication go-sdk used.
func styleMethod(style oauth2.AuthStyle, secret string) string {
	switch {
	case secret == "":
		return "none"
	case style == oauth2.AuthStyleInParams:
		return "client_secret_post"
	case style == oauth2.AuthStyleInHeader:
		return "client_secret_basic"
	}
	return ""
}

// storedRegistration is the issuer's stored dynamic registration with a
// listener on its redirect port; nil (with a listener on another port)
// when a new one is due: there is none, its port can't be had, or the
// provider deleted it. The caller holds the issuer's lock.
func (c *Client) storedRegistration(ctx context.Context, asm *oauthex.AuthServerMeta) (*registration, *loopback.Listener, error) {
	var reg registration
	ok, err := c.getJSON(regKey(asm.Issuer), &reg)
	if err != nil {
		return nil, nil, err
	}
	if !ok || reg.Issuer != asm.Issuer || reg.Port <= 0 {
		l, err := loopback.Listen(0, callbackPath)
		return nil, l, err
	}
	l, err := loopback.Listen(reg.Port, callbackPath)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case l.Moved():
		c.log.Info("the registration's redirect port is taken; registering again", "issuer", asm.Issuer, "port", reg.Port)
		return nil, l, nil
	case c.registrationGone(ctx, asm.TokenEndpoint, &reg):
		c.log.Info("the authorization server no longer knows the registration; registering again", "issuer", asm.Issuer)
		return nil, l, nil
	}
	return &reg, l, nil
}

// Complete finishes e's sign-in in progress with the address the
// person's browser ended on, pasted by the person: for a browser on
// another machine (an SSH session), whose redirect to 127.0.0.1 never
// reaches mcptray. The address is checked as the redirect would be (this
// sign-in's state, once); SignIn then goes on as after the redirect.
func (c *Client) Complete(e Entry, redirect string) error {
	c.mu.Lock()
	l := c.waiting[e.Server]
	c.mu.Unlock()
	if l == nil {
		return fmt.Errorf("no sign-in to %s is waiting for its browser", e.Server)
	}
	if _, err := l.Deliver(redirect); err != nil {
		return fmt.Errorf("completing the sign-in to %s: %w", e.Server, err)
	}
	return nil
}
