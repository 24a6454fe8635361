package app

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mcptray/mcptray/app/control"
)

// ErrAlreadyRunning is returned by New when another instance holds the data
// dir; the error text says where it runs.
var ErrAlreadyRunning = errors.New("mcptray is already running")

// instanceLock is an exclusive lock on DATA/mcptray.lock (lockFile: flock
// on Unix, LockFileEx on Windows), held for the life of the instance; the
// kernel drops it when the process dies, however it dies.
type instanceLock struct{ f *os.File }

func lockInstance(data string) (*instanceLock, error) {
	f, err := os.OpenFile(lockPath(data), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening lock file: %w", err)
	}
	if err := lockFile(f); err != nil {
		b, _ := os.ReadFile(lockPath(data))
		f.Close()
		pid := strings.TrimSpace(string(b))
		if _, perr := strconv.Atoi(pid); perr != nil {
			pid = "unknown"
		}
		return nil, fmt.Errorf("%w (pid %s, data dir %s, socket %s)", ErrAlreadyRunning, pid, data, control.SocketPath(data))
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &instanceLock{f: f}, nil
}

func (l *instanceLock) release() {
	if l != nil && l.f != nil {
		l.f.Close()
	}
}
