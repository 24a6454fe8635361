//go:build unix

package app

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// OpenDaemonLog makes path mcptray's own log, for an instance that runs in
// the background (`mcptray connect` starts one with --log DATA/mcptray.log).
// It returns the writer for the core's logger, which appends to path and
// rotates it at max bytes to path.1, and points the process's stdout and
// stderr at the same file, following every rotation: a panic's trace, or
// anything a library prints, lands in the current file and counts toward
// its size.
func OpenDaemonLog(path string, max int64) (io.Writer, error) {
	r := &rotatingFile{path: path, max: max, shared: true, opened: func(f *os.File) {
		unix.Dup2(int(f.Fd()), 1)
		unix.Dup2(int(f.Fd()), 2)
	}}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.open(os.O_APPEND); err != nil {
		return nil, err
	}
	return r, nil
}
