package exitwait

import (
	"os"

	"golang.org/x/sys/unix"
)

// awaitExit returns once the child pid has exited (it stays a zombie until
// reaped), or at once when it cannot wait in the poller; the caller's
// waitid then blocks, as before.
//
// The pid is safe to open: it is our child, and nobody reaps it before the
// caller does.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd") // non-blocking: os takes it into the poller
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	// The poller reports the pidfd readable once the child has exited; the
	// check runs before each wait, so an exit before the first is not missed.
	rc.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		switch err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err {
		case nil:
			return info.Signo != 0 // 0 while the child runs
		case unix.EAGAIN, unix.EINTR:
			return false
		default:
			return true // let exec's waitid tell
		}
	})
}
