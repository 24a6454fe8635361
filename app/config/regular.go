package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError is a file a user or a server could have swapped for
// something that is not a regular file: a named pipe, whose open or read
// would block for ever, a device, a socket or a folder. It names the kind,
// not the path (a path may hold a resolved variable).
type NotRegularError struct {
	Kind string      // "a named pipe (FIFO)", "a device", …
	Mode fs.FileMode // its type bits
}

func (e *NotRegularError) Error() string {
	return "is " + e.Kind + ", not a regular file"
}

// OpenRegular opens path for reading without blocking (O_NONBLOCK: a named
// pipe with no writer would block open itself) and refuses anything but a
// regular file with a *NotRegularError, checked on what was opened, so a
// swap between a check and the open changes nothing. Symlinks are
// followed.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) { // a socket
			return nil, &fs.PathError{Op: "open", Path: path, Err: &NotRegularError{Kind: "a socket", Mode: fs.ModeSocket}}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: &NotRegularError{Kind: kindOf(fi.Mode()), Mode: fi.Mode().Type()}}
	}
	return f, nil
}

// kindOf names a mode that is not a regular file's.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	default:
		return fmt.Sprintf("of type %s", m.Type())
	}
}

// errTooBig is readRegular's refusal of a file over its limit.
var errTooBig = errors.New("too big")

// readRegular reads the regular file at path (OpenRegular), at most limit
// bytes; a longer one is errTooBig.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errTooBig
	}
	return data, nil
}
