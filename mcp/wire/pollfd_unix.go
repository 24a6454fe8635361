//go:build unix

package wire

// pollFd is struct pollfd of poll(2), for hungUp; the flags have the same
// values on Linux and the BSDs.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const (
	pollOut  = 0x4
	pollErr  = 0x8
	pollHup  = 0x10
	pollNval = 0x20
)
