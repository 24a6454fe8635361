package downstream

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// InspectPeer says whether pid is one of this process's servers or their
// descendants: whether it is in a running server's Job Object. Every
// process a server starts is in its job, whatever becomes of its parent
// links, so no ancestry walk is needed.
//
// This process itself is not a server's (the tray, in-process). A pid that
// cannot be opened counts as a server's, as on Linux (it is gone, or not
// the user's); so does one whose start time is no longer start (when start
// is not 0: the process that connected is gone and another reuses its
// pid), and pid 0 (the pipe did not say).
func InspectPeer(pid int, start uint64, instance string) Peer {
	p := Peer{PID: pid}
	if pid == os.Getpid() {
		return p
	}
	if pid <= 0 {
		p.OfServers, p.Why = true, "the pipe did not say which process it is"
		return p
	}
	h, err := openForJobCheck(pid)
	if err != nil {
		p.OfServers, p.Why = true, fmt.Sprintf("its process cannot be opened: %v", err)
		return p
	}
	defer windows.CloseHandle(h)
	p.Command = processName(h)
	if start != 0 && procStart(pid) != start {
		p.OfServers, p.Why = true, "the process that connected is gone"
		return p
	}
	// live.mu is held while the jobs are asked: a job's handle is closed
	// only after its server leaves live (process.reap), so none is closed
	// (and its value reused) under the check.
	live.mu.Lock()
	defer live.mu.Unlock()
	for _, s := range live.servers {
		if s.job == 0 {
			continue
		}
		in, err := isProcessInJob(h, windows.Handle(s.job))
		switch {
		case err != nil:
			p.OfServers, p.Why = true, fmt.Sprintf("whether it is in server %q's job object cannot be told: %v", s.name, err)
		case in:
			p.Server = s.name
			p.OfServers, p.Why = true, fmt.Sprintf("it is in server %q's job object", s.name)
			return p
		}
	}
	return p
}

// openForJobCheck opens pid for IsProcessInJob. Windows takes
// PROCESS_QUERY_LIMITED_INFORMATION; Wine wants PROCESS_QUERY_INFORMATION,
// which is asked first.
func openForJobCheck(pid int) (windows.Handle, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_INFORMATION, false, uint32(pid))
	if err == nil {
		return h, nil
	}
	return windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
}

// processName is the base name of h's executable, "" when unknown.
func processName(h windows.Handle) string {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if windows.QueryFullProcessImageName(h, 0, &buf[0], &n) != nil {
		return ""
	}
	return filepath.Base(windows.UTF16ToString(buf[:n]))
}
