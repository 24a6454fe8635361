// Package google is what mcptray's Google servers (gcal, gmail) share:
// the user's own OAuth client (imported from the JSON file Google's console
// downloads), the accounts signed in with it, the installed-app sign-in on
// a loopback redirect (PKCE S256 + state), refresh tokens in the OS
// keyring (entry google/<email>, the refresh token only), access tokens in
// RAM, and the base URL both APIs are served under
// (MCPTRAY_GOOGLE_API_URL).
//
// It imports neither the gateway nor app: the keyring is reached through
// the Store its caller (cli) gives it.
package google
