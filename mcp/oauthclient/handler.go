package oauthclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// handler is Handler's auth.OAuthHandler for one entry.
type handler struct {
	c *Client
	e Entry
}

var _ auth.OAuthHandler = (*handler)(nil)

// Handler is e's auth.OAuthHandler, for the HTTP transport: it serves
// the stored token and never opens a browser (see the package doc).
func (c *Client) Handler(e Entry) auth.OAuthHandler { return &handler{c: c, e: e} }

// TokenSource serves e's stored token, refreshed first when it expires
// within a minute; nil (no Authorization header) when there is no usable
// token, so that the server's 401 reaches Authorize.
func (h *handler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	r, err := h.c.usable(ctx, h.e)
	if err != nil || r == nil {
		return nil, err
	}
	return oauth2.StaticTokenSource(r.token()), nil
}

// usable is e's token record, refreshed when it is about to expire; nil
// when there is none, or it cannot be refreshed (then a sign-in is due).
func (c *Client) usable(ctx context.Context, e Entry) (*tokenRecord, error) {
	r, err := c.current(e)
	if err != nil || r == nil {
		return nil, err
	}
	if r.Expiry.IsZero() || time.Until(r.Expiry) > refreshMargin {
		return r, nil
	}
	unlock := c.lockEntry(e.Server)
	defer unlock()
	// Another handler or process may have refreshed it meanwhile.
	if r, err = c.load(e); err != nil || r == nil {
		return nil, err
	}
	if r.Expiry.IsZero() || time.Until(r.Expiry) > refreshMargin {
		return r, nil
	}
	if r.RefreshToken == "" {
		if time.Now().Before(r.Expiry) {
			return r, nil
		}
		return nil, nil
	}
	n, err := c.refreshAndSave(ctx, e, r)
	if err != nil {
		if refusedGrant(err) {
			return nil, nil
		}
		if time.Now().Before(r.Expiry) {
			return r, nil // good for a little longer; the next request tries again
		}
		return nil, err
	}
	return n, nil
}

// refreshAndSave refreshes r and stores the result at once (a rotated
// refresh token is lost otherwise). The caller holds e's lock. A refresh
// the server refused forgets the token.
func (c *Client) refreshAndSave(ctx context.Context, e Entry, r *tokenRecord) (*tokenRecord, error) {
	n, err := c.refresh(ctx, r, c.secretFor(e, r))
	if err != nil {
		if refusedGrant(err) {
			// Another process (the CLI, a second mcptray) may have
			// rotated it: its token is the one to use, not a reason to
			// forget.
			if cur, rerr := c.read(e); rerr == nil && cur != nil && cur.URL == e.URL && cur.RefreshToken != r.RefreshToken {
				c.remember(e.Server, cur)
				return cur, nil
			}
			c.log.Info("the authorization server refused to refresh a token; a sign-in is needed", "server", e.Server, "issuer", r.Issuer)
			if ferr := c.forget(e); ferr != nil {
				c.log.Warn("forgetting a refused token", "server", e.Server, "err", ferr)
			}
		}
		return nil, fmt.Errorf("refreshing %s's token at %s: %w", e.Server, hostOf(r.Issuer), err)
	}
	if err := c.save(e, n); err != nil {
		return nil, err
	}
	c.log.Debug("token refreshed", "server", e.Server, "issuer", r.Issuer, "rotated", n.RefreshToken != r.RefreshToken)
	return n, nil
}

// secretFor is the client secret for r's client: the entry's for its
// pre-registered client, the registration's (kept in r) otherwise.
func (c *Client) secretFor(e Entry, r *tokenRecord) string {
	if r.Registration == "preregistered" && r.ClientID == e.ClientID {
		return e.ClientSecret
	}
	return r.ClientSecret
}

// Authorize answers a 401 or 403 of the server (see the package doc).
func (h *handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	err := h.authorize(ctx, req, resp)
	if ns, ok := err.(*NeedsSignIn); ok && h.c.opts.OnNeedsSignIn != nil {
		h.c.opts.OnNeedsSignIn(ns)
	}
	return err
}

func (h *handler) authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	c, e := h.c, h.e
	header := resp.Header.Values("WWW-Authenticate")
	cs, _ := oauthex.ParseWWWAuthenticate(header)
	if resp.StatusCode == http.StatusForbidden && challengeError(cs) != "insufficient_scope" {
		return nil // not ours: the retry's answer goes back as it is
	}
	c.mu.Lock()
	c.challenges[e.Server] = challenge{url: e.URL, status: resp.StatusCode, header: header}
	c.mu.Unlock()

	r, err := c.load(e)
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusForbidden {
		ns := c.needsSignIn(ctx, e, cs, r)
		ns.StepUp = true
		return ns
	}
	if r == nil {
		return c.needsSignIn(ctx, e, cs, nil)
	}
	sent, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if sent != r.AccessToken {
		if r.RefreshToken == "" && !r.Expiry.IsZero() && time.Now().After(r.Expiry) {
			// Expired, and nothing to refresh it with: TokenSource sent none.
			if err := c.forget(e); err != nil {
				return err
			}
			return c.needsSignIn(ctx, e, cs, r)
		}
		return nil // the token changed since (a sign-in, another refresh): retry with it
	}
	c.mu.Lock()
	m := c.retried[e.Server]
	c.mu.Unlock()
	if m.access == sent && time.Since(m.at) < retryWindow {
		return &TokenRefused{Server: e.Server, Issuer: r.Issuer}
	}
	// A server that moved to another authorization server: the old
	// issuer's token is not refreshed, and a sign-in is due.
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	d, derr := c.discover(dctx, e.URL, cs)
	cancel()
	if derr == nil && strings.TrimSuffix(d.asm.Issuer, "/") != strings.TrimSuffix(r.Issuer, "/") {
		c.log.Info("the server names another authorization server; a sign-in is needed", "server", e.Server, "was", r.Issuer, "now", d.asm.Issuer)
		return c.needsSignIn(ctx, e, cs, nil)
	}
	if r.RefreshToken == "" {
		if err := c.forget(e); err != nil {
			return err
		}
		return c.needsSignIn(ctx, e, cs, r)
	}
	unlock := c.lockEntry(e.Server)
	cur, err := c.load(e)
	if err == nil && cur != nil && cur.AccessToken != sent {
		unlock()
		return nil // refreshed meanwhile
	}
	if err == nil && cur != nil {
		r = cur // the Store's: its refresh token is the latest
	}
	n, err := c.refreshAndSave(ctx, e, r)
	unlock()
	if err != nil {
		if refusedGrant(err) {
			return c.needsSignIn(ctx, e, cs, r)
		}
		return err
	}
	c.mu.Lock()
	c.retried[e.Server] = retryMark{access: n.AccessToken, at: time.Now()}
	c.mu.Unlock()
	return nil
}

// ObserveResponse is told of each answer of the server to a request the
// handler's token signed (downstream calls it): a token a 401 made that
// then worked is no longer suspect, so a later 401 on it is refreshed
// again rather than counted as a refusal.
func (h *handler) ObserveResponse(req *http.Request, resp *http.Response) {
	if resp.StatusCode/100 != 2 {
		return
	}
	sent, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	if m, ok := h.c.retried[h.e.Server]; ok && m.access == sent {
		delete(h.c.retried, h.e.Server)
	}
}

// needsSignIn is the NeedsSignIn for e: the issuer from discovery (the
// stored token's when it fails), the scopes the challenge names joined
// with the entry's and those already granted.
func (c *Client) needsSignIn(ctx context.Context, e Entry, cs []oauthex.Challenge, r *tokenRecord) *NeedsSignIn {
	ns := &NeedsSignIn{Server: e.Server}
	var granted []string
	if r != nil {
		ns.Issuer, granted = r.Issuer, r.Scopes
	}
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	d, err := c.discover(dctx, e.URL, cs)
	if err != nil {
		c.log.Info("discovering the authorization server", "server", e.Server, "err", err)
	} else {
		ns.Issuer = d.asm.Issuer
	}
	scopes := challengeScopes(cs)
	if len(scopes) == 0 && d != nil {
		scopes = d.scopes
	}
	ns.Scopes = union(granted, scopes, e.Scopes)
	ns.IssuerHost = hostOf(ns.Issuer)
	if ns.Issuer == "" {
		ns.IssuerHost = hostOf(e.URL)
	}
	return ns
}
