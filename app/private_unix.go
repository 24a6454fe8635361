//go:build unix

package app

// makePrivate does nothing on Unix: the data dir is created 0700, its
// files 0600.
func makePrivate(string) error { return nil }
