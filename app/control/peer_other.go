//go:build !linux

package control

import (
	"errors"
	"net"
)

// peerPID has no check here yet: every peer counts as the person's. The
// ports add theirs (macOS: LOCAL_PEERPID; Windows, a named pipe:
// GetNamedPipeClientProcessId) with downstream.InspectPeer's ancestry walk.
func peerPID(net.Conn) (int, error) { return 0, errors.ErrUnsupported }
