// Package testkeyring is for tests only: it gives a test an OS keyring
// entry to itself. The test binaries of several packages (cli, app, ui)
// use the same entries (google/client, say) of the one keyring of
// scripts/desktop-session.sh, and `go test` runs them at once; an entry is
// held under a file lock across processes, and what was in it is put back
// afterwards.
package testkeyring
