package control

import (
	"errors"
	"net"

	"golang.org/x/sys/windows"
)

// peerPID is the pid of the process that opened the control pipe, from
// the pipe itself (GetNamedPipeClientProcessId): what it was when it
// connected, whatever it says about itself.
func peerPID(conn net.Conn) (int, error) {
	fc, ok := conn.(interface{ Fd() uintptr })
	if !ok {
		return 0, errors.New("not a named pipe")
	}
	var pid uint32
	if err := windows.GetNamedPipeClientProcessId(windows.Handle(fc.Fd()), &pid); err != nil {
		return 0, err
	}
	return int(pid), nil
}
