package wire

import (
	"io"
	"net"
	"os"
	"syscall"
)

// RawListener wraps the HTTP endpoint's listener: the TCP connections it
// accepts are read and written with raw I/O (rawio.go), so net/http's
// reads and writes cost what the stdio ones do. Deadlines and Close work
// as on any net.Conn (net/http relies on both).
func RawListener(ln net.Listener) net.Listener {
	if !rawIO {
		return ln
	}
	return rawListener{ln}
}

type rawListener struct{ net.Listener }

func (l rawListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		if rc := rawConnOf(tc); rc != nil {
			return &rawTCPConn{TCPConn: tc, rc: rc}, nil
		}
	}
	return c, nil
}

// rawTCPConn is a *net.TCPConn whose Read and Write are raw.
type rawTCPConn struct {
	*net.TCPConn
	rc syscall.RawConn
}

func (c *rawTCPConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, errno, err := readRaw(c.rc, b)
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *rawTCPConn) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, errno, err := writeRaw(c.rc, b, nil)
	switch {
	case err != nil:
		return n, c.opError("write", err)
	case errno != 0:
		return n, c.opError("write", os.NewSyscallError("write", errno))
	}
	return n, nil
}

// opError wraps err as net.TCPConn does: the poller's errors already are
// net.ErrClosed or os.ErrDeadlineExceeded.
func (c *rawTCPConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
