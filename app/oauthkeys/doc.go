// Package oauthkeys keeps the OAuth sign-ins of remote servers in the OS
// keyring: it is mcp/oauthclient's Store on app/keyring, entries
// "oauth/<key>" (oauth/server/…, oauth/token/…, oauth/reg/…).
//
// A value longer than PartBytes is split, because a keyring entry is
// small (Windows' Credential Manager holds 2,560 bytes, macOS's Keychain
// about 3,000, and a token set with a JWT access token is often bigger):
// its parts go to "oauth-part/<i>/<key>" (i from 1, each at most
// PartBytes, cut between characters), written first; then the head entry
// "oauth/<key>" becomes "mcptray-parts:N:SHA256" naming how many parts
// there are and what they hold, so a reader never joins parts of two
// writes (it reads again once, then says the value is torn). Parts a
// shorter value no longer needs are deleted after its head is written;
// Delete removes the head and every part.
//
// It starts no goroutine and holds no state of its own. Writes of one key
// from two processes are not serialised (mcp/oauthclient serialises them
// within one).
package oauthkeys
