// Package oauthclient is mcptray's OAuth client for remote (HTTP) MCP
// servers that sign in: it keeps their tokens and registrations in a
// Store (the app backs it with the OS keyring, app/oauthkeys), hands the
// transport a token, and signs the person in through the browser when
// the person asks. It is built on go-sdk's auth.AuthorizationCodeHandler
// (discovery RFC 9728/8414/OIDC, CIMD → pre-registered → dynamic
// registration, scopes and step-up, PKCE, resource, iss) and on
// golang.org/x/oauth2, with the loopback redirect of mcp/loopback.
//
// The API (stable; the app, the CLI and the UI build on it):
//
//	c := oauthclient.New(store, oauthclient.Options{})
//	h := c.Handler(entry)   // auth.OAuthHandler for downstream.HTTPSpec.OAuth
//	info, err := c.SignIn(ctx, entry, open)   // the person's sign-in
//	err := c.Logout(ctx, entry)               // revoke where offered, forget
//	info, err := c.Info(entry)                // issuer, scopes, expiry, state: never a token
//	err := c.Complete(entry, pastedAddress)   // a sign-in whose browser is on another machine
//
// Handler never opens a browser (Options.OnNeedsSignIn hears each
// NeedsSignIn it answers, also mid-session). With a usable stored token it serves it,
// refreshing it a minute before expiry and saving a rotated refresh token
// at once (a token without expires_in is good until a 401). A 401 with no
// usable token (none, or a refresh refused) makes Authorize return a
// *NeedsSignIn (errors.As-able through downstream's start error); a 403
// insufficient_scope one with StepUp set. A 401 on a stored token gets one
// refresh and one retry; a 401 on the token that refresh gave returns a
// *TokenRefused (audience mismatch, usually) instead of looping.
//
// SignIn is the interactive sign-in: discovery (its own, to learn the
// issuer first), registration, a loopback listener, open(url) (the caller
// opens a browser or shows the URL; SignIn never does), the code exchange
// and storage. Registration: the entry's client metadata URL when the
// authorization server supports CIMD, else the entry's pre-registered
// client, else a dynamic registration kept per issuer and reused (handed
// to go-sdk as a pre-registered client bound to that issuer), with the
// redirect port it was made for. A new registration is go-sdk's own (so
// the exchange authenticates as the registration says), kept from the
// client it used. It registers again when the port can't be had, when
// the issuer changed (a client_id is never sent to another issuer), and,
// once, when the provider deleted it (invalid_client: a refresh with a
// dummy refresh token tells before the browser opens; the real exchange
// too). Sign-ins that register on one issuer run one at a time; a new
// sign-in of an entry ends the one it had waiting (its tab abandoned).
//
// Store keys (values JSON; the Store adds its own prefix):
//
//	server/<entry>             which issuer and URL the entry's token is for
//	token/<issuer>#<entry>     the entry's token set (and the client it was issued to)
//	reg/<issuer>               the dynamic registration for that issuer
//
// A token is served only to the URL it was issued for. No token, refresh
// token or client secret goes to a log, an error, argv or a file.
//
// A Client keeps each entry's token in RAM once read, so a request reads
// no keyring; a 401 and a refresh read the Store again (another process,
// the CLI say, may have signed in or rotated the token meanwhile).
//
// Goroutines: SignIn's loopback listener (mcp/loopback) runs while SignIn
// runs; nothing else outlives a call. A Client is safe for concurrent use
// by several handlers; refreshes of one entry are serialised within the
// process and re-read the Store first (another process may have rotated
// the token).
//
// oauthtest (a subpackage) is a fake authorization server and protected
// MCP server for tests, in this package's and in end-to-end tests.
package oauthclient
