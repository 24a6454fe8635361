//go:build unix && !linux

package wire

import (
	"syscall"
	"unsafe"
)

// Elsewhere pipeFile and the HTTP endpoint use os.File's and net.Conn's
// own reads and writes; streamWriter's inline writes are plain ones.
const rawIO = false

func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) {
	for {
		n, err := syscall.Write(int(fd), b)
		if err != syscall.EINTR {
			errno, _ := err.(syscall.Errno)
			return max(n, 0), errno
		}
	}
}

func rawRead(fd uintptr, b []byte) (int, syscall.Errno) {
	for {
		n, err := syscall.Read(int(fd), b)
		if err != syscall.EINTR {
			errno, _ := err.(syscall.Errno)
			return max(n, 0), errno
		}
	}
}

func fcntlGetfl(fd uintptr) (int, syscall.Errno) {
	fl, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	return int(fl), e
}

// HungUp polls fd, without waiting, for the end of its peer: POLLERR (a
// pipe with no reader), POLLHUP (a socket shut down both ways), POLLNVAL.
func HungUp(fd uintptr) bool {
	pfd := pollFd{fd: int32(fd), events: pollOut}
	for {
		n, _, e := syscall.Syscall(syscall.SYS_POLL, uintptr(unsafe.Pointer(&pfd)), 1, 0)
		if e != syscall.EINTR {
			return e != 0 || (n == 1 && pfd.revents&(pollErr|pollHup|pollNval) != 0)
		}
	}
}
