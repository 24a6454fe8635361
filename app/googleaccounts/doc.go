// Package googleaccounts is the Google accounts as the tray's Google tab
// shows and changes them: the imported OAuth client, the signed-in
// accounts ([Account], never a token), signing one in ([Manager.Add]:
// the browser, Google's consent page, the loopback redirect) and removing
// one ([Manager.Remove], revoked at Google). The work is package google's
// (mcp/servers/google) on app/googlekeys' keyring Store; this package
// gives the UI plain values and logs what changed.
//
// A [Manager] holds only its data dir and logger; every call reads the
// accounts file and the keyring afresh, so several may run at once (the
// UI calls them off its main goroutine). Add runs the sign-in's loopback
// server until the redirect comes or ctx ends, and stops it before it
// returns; nothing else starts a goroutine. It imports no app package but
// app/googlekeys (and, through it, app/keyring), so app's Core only wraps
// it.
package googleaccounts
