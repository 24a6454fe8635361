//go:build unix

package app

import "os"

// openLog opens a log file for reading; its writer may still rename it.
func openLog(path string) (*os.File, error) { return os.Open(path) }
