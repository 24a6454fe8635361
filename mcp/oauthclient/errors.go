package oauthclient

import (
	"fmt"
	"strings"
)

// NeedsSignIn is Authorize's answer when the server wants a sign-in that
// only the person can give: no usable token, a refresh refused, or
// (StepUp) more scopes than the token has.
type NeedsSignIn struct {
	Server string
	// Issuer is the authorization server's issuer, and IssuerHost its host
	// ("" when discovery failed: then the server's host).
	Issuer     string
	IssuerHost string
	// Scopes are the scopes a sign-in will ask for.
	Scopes []string
	// StepUp: signed in, but the server wants scopes the token lacks
	// (403 insufficient_scope).
	StepUp bool
}

func (e *NeedsSignIn) Error() string {
	if e.StepUp {
		return fmt.Sprintf("%s needs you to sign in again at %s to grant %s", e.Server, e.IssuerHost, strings.Join(e.Scopes, " "))
	}
	return fmt.Sprintf("%s needs you to sign in at %s", e.Server, e.IssuerHost)
}

// TokenRefused is Authorize's answer when the server refused a token just
// issued or refreshed for it: signing in again would not help (usually the
// token's audience is another server's, or the server's URL is wrong).
type TokenRefused struct {
	Server string
	Issuer string
}

func (e *TokenRefused) Error() string {
	return fmt.Sprintf("%s refused a fresh token from %s (its audience may not match the server's URL); check the server's URL", e.Server, e.Issuer)
}
