// Package oauthtest is a fake OAuth authorization server with a protected
// MCP server behind it, on one httptest server, for the tests of
// mcp/oauthclient and the end-to-end tests of remote servers that sign in.
//
// The MCP server (go-sdk's, one tool "echo") is at URL()+"/mcp"; it
// answers 401 with WWW-Authenticate naming its protected-resource
// metadata (RFC 9728, at /.well-known/oauth-protected-resource/mcp) unless
// the request carries an access token of the current issuer issued for
// that resource. The authorization servers are path issuers,
// URL()+"/as1" and, after SwitchIssuer, URL()+"/as2", each with RFC 8414
// metadata, /register (RFC 7591), /authorize (approves at once: a 302 to
// the redirect_uri, which must be registered exactly), /token (PKCE S256
// checked, refresh tokens rotated: a used one is dead) and /revoke.
//
// Preregister adds a confidential client (its secret checked at /token);
// RegisterConfidential makes registrations confidential, with one auth method;
// AcceptMetadataDocuments takes an https client_id (CIMD).
// Toggles for the pitfalls: NoExpiry (no expires_in), DeleteClients
// (invalid_client), WrongAudience (tokens for another resource),
// RequireScope (403 insufficient_scope on tools/call), NeverEnoughScope
// (403 insufficient_scope on everything, whatever the token), SwitchIssuer,
// RefuseRefresh (invalid_grant), RefuseInitialize (a 2026-07-28-only
// server: legacy initialize answered 400). Counts and Requests say what clients
// did; Browser is a stand-in browser that follows /authorize's 302 to the
// loopback listener.
//
// The handlers run on the httptest server's goroutines, under one mutex.
// Close stops the server.
package oauthtest
