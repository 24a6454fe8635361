//go:build !linux

package wire

// Unread cannot tell here how much of a pipe is unread: ok is false.
func (p *PipeFile) Unread() (n int, ok bool) { return 0, false }
