package downstream

import "sync"

// Peer is what the process table says of a process on the other end of
// mcptray's control socket (DESIGN.md §14, "only the person answers"):
// whether it is one of the servers this package started, or descends
// from one. InspectPeer fills it in (peer_linux.go; elsewhere it knows
// nothing, peer_other.go).
type Peer struct {
	PID     int
	Command string // its name (/proc/PID/comm), for the log; "" when unknown
	// Server is the name (StdioSpec.Name) of the running server it
	// belongs to, "" when none is known.
	Server string
	// OfServers is set when the process is a server's, or nothing can
	// be known of it: Why says which.
	OfServers bool
	Why       string
}

// liveServer is a running stdio server, as the peer check knows it.
type liveServer struct {
	name   string
	pid    int     // also its process group id
	start  uint64  // the leader's start time: a reused pid is not it
	marker []byte  // serverEnv=…
	job    uintptr // Windows: its Job Object's handle, open while it is live (0 elsewhere)
}

// live are the stdio servers running now: added when a server starts,
// removed once it and its family are gone.
var live = struct {
	mu      sync.Mutex
	servers map[int]liveServer // by pid; guarded by mu
	own     map[int]uint64     // this instance's window processes: start time by pid; guarded by mu
}{servers: map[int]liveServer{}, own: map[int]uint64{}}

// OwnProcess records pid as a process this instance started for the
// person — the tray app's window or popup (`mcptray window`), which
// talks to the control socket as the CLI does — so that the peer check
// does not count it among what descends from mcptray (InspectPeer). Only
// that process: what it starts in turn still descends from mcptray.
// forget takes it off once it has ended.
func OwnProcess(pid int) (forget func()) {
	start := procStart(pid)
	live.mu.Lock()
	live.own[pid] = start
	live.mu.Unlock()
	return func() {
		live.mu.Lock()
		if live.own[pid] == start {
			delete(live.own, pid)
		}
		live.mu.Unlock()
	}
}

// ownProcess says whether pid, started at start, is one of this
// instance's window processes (OwnProcess).
func ownProcess(pid int, start uint64) bool {
	live.mu.Lock()
	defer live.mu.Unlock()
	s, ok := live.own[pid]
	return ok && s == start
}

// ProcStart is pid's start time, 0 when it cannot be read (or outside
// Linux): with the pid, it tells a process from a later one that reuses
// the pid.
func ProcStart(pid int) uint64 { return procStart(pid) }

func addLive(s liveServer) {
	live.mu.Lock()
	live.servers[s.pid] = s
	live.mu.Unlock()
}

func removeLive(pid int) {
	live.mu.Lock()
	delete(live.servers, pid)
	live.mu.Unlock()
}
