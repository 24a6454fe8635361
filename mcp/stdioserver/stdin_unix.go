//go:build unix

package stdioserver

import (
	"io"
	"os"
	"syscall"
)

// stdin returns standard input taken by the poller when it is a pipe or
// a socket, else os.Stdin.
func stdin() io.ReadCloser {
	var st syscall.Stat_t
	if err := syscall.Fstat(0, &st); err != nil {
		return os.Stdin
	}
	if t := st.Mode & syscall.S_IFMT; t != syscall.S_IFIFO && t != syscall.S_IFSOCK {
		return os.Stdin
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	return os.NewFile(0, "/dev/stdin") // non-blocking: os takes it into the poller
}
