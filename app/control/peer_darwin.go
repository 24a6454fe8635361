package control

import (
	"errors"
	"net"

	"golang.org/x/sys/unix"
)

// peerPID is the pid of the process that connected to the control socket,
// from the kernel (LOCAL_PEERPID): what it was when it connected, whatever
// it says about itself.
func peerPID(conn net.Conn) (int, error) {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return 0, errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var pid int
	var pidErr error
	if err := raw.Control(func(fd uintptr) {
		pid, pidErr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	}); err != nil {
		return 0, err
	}
	if pidErr != nil {
		return 0, pidErr
	}
	return pid, nil
}
