// Package googletest is a stateful fake of Google's OAuth endpoints and of
// the Calendar and Gmail REST APIs, one httptest server behind the real
// clients (golang.org/x/oauth2, google.golang.org/api). It enforces what
// Google enforces: PKCE, state, bearer tokens that expire, refresh tokens
// that can be revoked (invalid_grant), expired sync cursors (410), rate
// limits (429).
//
// One Server serves everything: OAuth under /o/oauth2/ and /token,
// /revoke; the Calendar API under /calendar/v3/; Gmail under /gmail/v1/.
// Its URL is both the client file's auth_uri/token_uri base and
// MCPTRAY_GOOGLE_API_URL.
package googletest
