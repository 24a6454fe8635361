// Package loopback is the one browser sign-in callback of mcptray: an
// HTTP listener on 127.0.0.1:PORT that waits for an authorization
// server's redirect (RFC 8252 §7.3), used by the Google sign-in
// (mcp/servers/google) and by the OAuth client of remote servers
// (mcp/oauthclient).
//
// Listen binds 127.0.0.1 only, on a given port (to keep the redirect URI
// a registration was made with) or any; when the port asked for cannot
// be had it binds another and says so (Moved), so that the caller
// registers again. Serve starts the HTTP server on a goroutine of its
// own; it answers only requests whose Host is its own 127.0.0.1:PORT (a
// DNS-rebinding page sends its own name), on its path, with the state
// given (compared in constant time). The first such request calls finish
// once and shows the person finish's Page; a stray callback (no state, a
// wrong one, another Host or path) gets an error page and neither ends
// nor hijacks the sign-in; a second good one sees "Already done". Done
// is closed once finish returned and its page was sent. Deliver takes a
// redirect the person pasted instead (a browser on another machine), with
// the same checks and the same once. Close stops the
// server, letting a page being sent finish (a second at most).
//
// The timeout is the caller's: it stops waiting on Done and Closes.
package loopback
