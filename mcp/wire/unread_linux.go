package wire

import "golang.org/x/sys/unix"

// Unread is how many bytes written to the pipe its reader has not read
// yet (FIONREAD, alias TIOCINQ, which Linux answers on either end of a pipe); ok is
// false when it cannot tell.
func (p *PipeFile) Unread() (n int, ok bool) {
	rc, err := p.f.SyscallConn()
	if err != nil {
		return 0, false
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); err != nil || ierr != nil {
		return 0, false
	}
	return n, true
}
