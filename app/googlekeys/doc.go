// Package googlekeys keeps the Google accounts' secrets in the OS keyring:
// it is package google's Store on app/keyring, and the Accounts of a data
// dir built on it. Both mcptray (`auth google`, the tray's Google tab) and
// mcptray-google (the gcal and gmail servers) use it, so they find the same
// entries: google/client and google/<email>.
//
// It starts no goroutine and holds no state of its own.
package googlekeys
