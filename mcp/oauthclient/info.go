package oauthclient

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Info is e's sign-in as it may be shown: never a token.
func (c *Client) Info(e Entry) (Info, error) {
	r, err := c.load(e)
	if err != nil {
		return Info{Server: e.Server}, err
	}
	if r == nil {
		return Info{Server: e.Server, State: StateSignedOut}, nil
	}
	return infoOf(e, r), nil
}

func infoOf(e Entry, r *tokenRecord) Info {
	st := StateSignedIn
	if r.RefreshToken == "" && !r.Expiry.IsZero() && time.Now().After(r.Expiry) {
		st = StateExpired
	}
	return Info{Server: e.Server, Issuer: r.Issuer, Scopes: slices.Clone(r.Scopes), Expiry: r.Expiry, State: st, Registration: r.Registration}
}

// Logout revokes e's tokens where the authorization server offers
// revocation (RFC 7009), then forgets them, whatever the revocation said.
// The issuer's registration stays for the next sign-in.
func (c *Client) Logout(ctx context.Context, e Entry) error {
	unlock := c.lockEntry(e.Server)
	defer unlock()
	r, err := c.load(e)
	if err != nil {
		return err
	}
	var revokeErr error
	if r != nil && r.RevocationEndpoint != "" {
		secret := c.secretFor(e, r)
		if r.RefreshToken != "" {
			revokeErr = c.revoke(ctx, r, secret, r.RefreshToken, "refresh_token")
		}
		if err := c.revoke(ctx, r, secret, r.AccessToken, "access_token"); err != nil && revokeErr == nil {
			revokeErr = err
		}
	}
	c.mu.Lock()
	delete(c.retried, e.Server)
	delete(c.challenges, e.Server)
	c.mu.Unlock()
	if err := c.forget(e); err != nil {
		return err
	}
	if revokeErr != nil {
		return fmt.Errorf("signed out of %s here, but %w", e.Server, revokeErr)
	}
	return nil
}
