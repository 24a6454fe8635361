//go:build unix

package control

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
)

// dialProbe connects to the control socket sock once, to see whether an
// instance serves it.
func dialProbe(sock string) (net.Conn, error) { return net.Dial("unix", sock) }

// dialSocket connects to the control socket sock.
func dialSocket(ctx context.Context, sock string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", sock)
}

// notRunning says whether a dial's error means no instance serves the
// socket: there is none, or one that a killed instance left.
func notRunning(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED)
}
