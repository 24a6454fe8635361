// Package google is what mcptray's Google servers (gcal, gmail) share:
// the user's own OAuth client (imported from the JSON file Google's console
// downloads), the accounts signed in with it, the installed-app sign-in on
// a loopback redirect (PKCE S256 + state), refresh tokens in the OS
// keyring (entry google/<email>, the refresh token only), access tokens in
// RAM, and the base URL both APIs are served under
// (MCPTRAY_GOOGLE_API_URL).
//
// Accounts (accounts.go, tokens.go) keeps each account's metadata in a
// file of the data dir (AccountsFile) and its refresh token in the
// keyring; it implements AccountSource, with one token source per account
// in RAM. A sign-in (signin.go) is a SignIn: StartSignIn starts its
// loopback listener (mcp/loopback, the one shared with remote servers'
// OAuth: Host and state checked there) on a goroutine of its own, Wait
// waits for Google's redirect, Close stops the listener. Add (add.go) drives one from the
// command line, SignInByElicitation (elicit.go) from a tool call.
//
// It imports neither the gateway nor app: the keyring is reached through
// the Store its caller (cli) gives it.
package google
