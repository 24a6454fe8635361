package wire

import (
	"syscall"
	"unsafe"
)

// On Linux, pipeFile and the HTTP endpoint's connections make their
// read(2) and write(2) as raw system calls. The descriptor is non-blocking,
// so the call never blocks; what it skips is the scheduler's system-call
// entry, which wakes the runtime's sysmon thread whenever the process had
// been idle — a futex wake-up and a thread switch per message of a
// request/reply exchange, which a small VM pays for in tens of microseconds
// (docs/performance.md).
const rawIO = true

func rawRead(fd uintptr, b []byte) (int, syscall.Errno) {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e != syscall.EINTR {
			return int(n), e
		}
	}
}

func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e != syscall.EINTR {
			return int(n), e
		}
	}
}

func fcntlGetfl(fd uintptr) (int, syscall.Errno) {
	fl, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	return int(fl), e
}

// HungUp polls fd, without waiting, for the end of its peer: POLLERR (a
// pipe with no reader), POLLHUP (a socket shut down both ways), POLLNVAL.
func HungUp(fd uintptr) bool {
	pfd := pollFd{fd: int32(fd), events: pollOut}
	var ts syscall.Timespec
	for {
		n, _, e := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if e != syscall.EINTR {
			return e != 0 || (n == 1 && pfd.revents&(pollErr|pollHup|pollNval) != 0)
		}
	}
}
