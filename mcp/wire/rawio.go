package wire

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
)

// Raw I/O: the gateway's own pipes and sockets are read and written with
// raw read(2) and write(2) calls under the runtime's network poller
// (syscall.RawConn): a call that would block waits in the poller as an
// os.File's or net.Conn's does, and Close or a deadline wakes it, but a
// call that doesn't block skips the scheduler's system-call entry. Why
// that matters is in rawio_linux.go; elsewhere rawIO is false and the
// standard library's reads and writes are used.

// readRaw reads once into b through rc, waiting in the poller while
// there is nothing to read. err is the poller's (closed, deadline), errno
// the system call's.
func readRaw(rc syscall.RawConn, b []byte) (n int, errno syscall.Errno, err error) {
	err = rc.Read(func(fd uintptr) bool {
		n, errno = rawRead(fd, b)
		return errno != syscall.EAGAIN
	})
	return n, errno, err
}

// writeRaw writes all of b through rc, waiting in the poller while the
// descriptor takes nothing. progress, when set, counts the bytes as they
// go out, before writeRaw returns.
func writeRaw(rc syscall.RawConn, b []byte, progress *atomic.Uint64) (n int, errno syscall.Errno, err error) {
	err = rc.Write(func(fd uintptr) bool {
		for n < len(b) {
			var m int
			if m, errno = rawWrite(fd, b[n:]); errno != 0 {
				return errno != syscall.EAGAIN
			}
			n += m
			if progress != nil {
				progress.Add(uint64(m))
			}
		}
		return true
	})
	return n, errno, err
}

// rawConnOf returns the RawConn of a descriptor that raw I/O may use: a
// non-blocking one (os.File and net leave a descriptor the poller took
// non-blocking), or nil.
func rawConnOf(c syscall.Conn) syscall.RawConn {
	if !rawIO {
		return nil
	}
	return nonBlockingConn(c)
}

// nonBlockingConn returns c's RawConn when its descriptor is non-blocking,
// else nil.
func nonBlockingConn(c syscall.Conn) syscall.RawConn {
	rc, err := c.SyscallConn()
	if err != nil || !nonBlocking(rc) {
		return nil
	}
	return rc
}

// nonBlocking reports whether rc's descriptor is in non-blocking mode. A
// raw read or write on a blocking one would stall the scheduler, and a
// "try" write would wait.
func nonBlocking(rc syscall.RawConn) bool {
	nb := false
	rc.Control(func(fd uintptr) {
		fl, errno := fcntlGetfl(fd)
		nb = errno == 0 && fl&syscall.O_NONBLOCK != 0
	})
	return nb
}

// A pipeFile is an *os.File (a server's stdin or stdout, an assistant's
// handed-over stdio) read and written with raw I/O, when it can be.
type PipeFile struct {
	f  *os.File
	rc syscall.RawConn // nil: f's own Read and Write

	written atomic.Uint64 // bytes written so far (Written)
}

// Written is how many bytes Write and TryWrite have written so far,
// counted as they go out (a Write still waiting included).
func (p *PipeFile) Written() uint64 { return p.written.Load() }

// NewPipeFile wraps f for raw I/O.
func NewPipeFile(f *os.File) *PipeFile { return &PipeFile{f: f, rc: rawConnOf(f)} }

// Read reads with raw I/O when it can, else with f.Read.
func (p *PipeFile) Read(b []byte) (int, error) {
	if p.rc == nil || len(b) == 0 {
		return p.f.Read(b)
	}
	n, errno, err := readRaw(p.rc, b)
	switch {
	case err != nil:
		return 0, p.pollErr("read", err)
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes with raw I/O when it can, else with f.Write.
func (p *PipeFile) Write(b []byte) (int, error) {
	if p.rc == nil || len(b) == 0 {
		n, err := p.f.Write(b)
		p.written.Add(uint64(n))
		return n, err
	}
	n, errno, err := writeRaw(p.rc, b, &p.written)
	switch {
	case err != nil:
		return n, p.pollErr("write", err)
	case errno != 0:
		return n, &os.PathError{Op: "write", Path: p.f.Name(), Err: errno}
	}
	return n, nil
}

// TryWrite writes what the descriptor takes now, without waiting, and
// returns how much that was: 0 when it takes nothing, or when raw I/O is
// not possible here (then only Write writes).
func (p *PipeFile) TryWrite(b []byte) int {
	if p.rc == nil || len(b) == 0 {
		return 0
	}
	n := 0
	p.rc.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, errno := rawWrite(fd, b[n:])
			if errno != 0 || m <= 0 {
				break // EAGAIN and real errors alike: Write reports them
			}
			n += m
		}
		return true
	})
	p.written.Add(uint64(n))
	return n
}

// Close closes the file.
func (p *PipeFile) Close() error { return p.f.Close() }

// pollErr is the error the poller gave a raw read or write, as os.File
// would report it: a deadline stays itself, anything else (the file was
// closed) is os.ErrClosed.
func (p *PipeFile) pollErr(op string, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &os.PathError{Op: op, Path: p.f.Name(), Err: os.ErrDeadlineExceeded}
	}
	return &os.PathError{Op: op, Path: p.f.Name(), Err: os.ErrClosed}
}

// StdioStream is the stream ServeStream takes for an assistant's stdin
// and stdout handed over as two descriptors (`mcptray connect`): in is
// read and out written with raw I/O, and streamWriter writes replies to
// out inline (SyscallConn).
func StdioStream(in, out *os.File) io.ReadWriteCloser {
	return &stdioStream{in: NewPipeFile(in), out: NewPipeFile(out)}
}

type stdioStream struct{ in, out *PipeFile }

func (s *stdioStream) Read(b []byte) (int, error)  { return s.in.Read(b) }
func (s *stdioStream) Write(b []byte) (int, error) { return s.out.Write(b) }
func (s *stdioStream) Close() error                { return errors.Join(s.in.Close(), s.out.Close()) }

// SyscallConn is out's.
func (s *stdioStream) SyscallConn() (syscall.RawConn, error) { return s.out.f.SyscallConn() }
