// Package googletest is a stateful fake of Google's OAuth endpoints and of
// the Calendar and Gmail REST APIs, one httptest server behind the real
// clients (golang.org/x/oauth2, google.golang.org/api). It enforces what
// Google enforces: PKCE, state, bearer tokens that expire, refresh tokens
// that can be revoked (invalid_grant), scopes, expired sync cursors
// (Calendar 410, Gmail history 404), rate limits (429, 403), partial
// responses (fields).
//
// One Server serves everything: OAuth under /o/oauth2/ and /token,
// /revoke; the Calendar API under /calendar/v3/; Gmail under
// /gmail/v1/users/{userId}/ (and its media uploads under /upload/gmail/).
// Its URL is both the client file's auth_uri/token_uri base and
// MCPTRAY_GOOGLE_API_URL; the calendar/v3 client takes URL+"/calendar/v3/"
// as its endpoint, the gmail/v1 client URL+"/".
//
// Gmail (gmail*.go) keeps each account's mailbox: messages as raw RFC 822
// bytes with their labels and threads, labels, drafts, send-as aliases
// and a history of changes. Tests act on it from outside (DeliverMessage,
// ChangeLabels, ExpireHistory, …) and read it back (Messages,
// SentMessages). Every API request is counted and recorded per API
// (CalendarRequests, GmailRequests); LoadDiscovery reads Google's
// discovery documents for contract tests of those recordings.
//
// The handlers run on the httptest server's goroutines; each API's state
// is under its own mutex. Close stops the server.
package googletest
