package downstream

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// A stray is a server's descendant outside its process group: it called
// setsid() or setpgid(), so a signal to the group misses it. It is known
// by pid and start time, so a later process that reuses the pid is never
// signalled in its place.
type stray struct {
	pid   int
	start uint64
}

// procStart is pid's start time, 0 when it cannot be read.
func procStart(pid int) uint64 {
	st, err := readProcStat(pid)
	if err != nil {
		return 0
	}
	return st.start
}

// scanStrays walks /proc once and returns the live strays of the server
// whose group is pgid. A process is of the server's family when it
// descends (by parent links, as they are now) from the leader — only
// while the leader's start time still matches leaderStart, so a reused
// pid adds nothing —, from a process of the group, from a known stray, or
// when its environment holds marker (an orphan whose chain to the server
// is broken: reparented to this subreaper, or to init after a kill -9).
func scanStrays(leader int, leaderStart uint64, pgid int, marker []byte, known []stray) []stray {
	type entry struct {
		pid int
		st  procStat
	}
	var all []entry
	eachProc(func(pid int, st procStat) bool {
		all = append(all, entry{pid, st})
		return true
	})
	self := os.Getpid()
	children := make(map[int][]int, len(all))
	family := map[int]bool{}
	var queue []int
	add := func(pid int) {
		if !family[pid] {
			family[pid] = true
			queue = append(queue, pid)
		}
	}
	knownStart := make(map[int]uint64, len(known))
	for _, s := range known {
		knownStart[s.pid] = s.start
	}
	for _, e := range all {
		children[e.st.ppid] = append(children[e.st.ppid], e.pid)
		switch {
		case e.pid == self:
		case e.pid == leader && leaderStart != 0 && e.st.start == leaderStart,
			e.st.pgrp == pgid,
			knownStart[e.pid] != 0 && knownStart[e.pid] == e.st.start:
			add(e.pid)
		case len(marker) > 0 && !e.st.dead() && hasMarker(e.pid, marker):
			add(e.pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if c != self {
				add(c)
			}
		}
	}
	var out []stray
	for _, e := range all {
		if family[e.pid] && e.st.pgrp != pgid && !e.st.dead() {
			out = append(out, stray{e.pid, e.st.start})
		}
	}
	return out
}

// hasMarker reports whether pid's environment holds the entry marker. It
// is false for another user's process (its environ is not readable) and
// for one that overwrote its environment block.
func hasMarker(pid int, marker []byte) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && hasEnvEntry(env, marker)
}

// strayAlive reports whether s still runs (a zombie does not).
func strayAlive(s stray) bool {
	st, err := readProcStat(s.pid)
	return err == nil && st.start == s.start && !st.dead()
}

// signalStray sends sig to s if it is still the same process.
func signalStray(s stray, sig syscall.Signal) {
	if s.pid > 1 && strayAlive(s) {
		syscall.Kill(s.pid, sig)
	}
}

// killMarked SIGKILLs every process whose environment holds one of
// markers, again until a scan finds none (a process may fork while it is
// killed; its children inherit the marker), for up to d. It returns how
// many it killed. The watchdog uses it after mcptray died, when the
// strays' links to their servers are gone.
func killMarked(markers [][]byte, d time.Duration) int {
	if len(markers) == 0 {
		return 0
	}
	self := os.Getpid()
	killed := map[stray]bool{}
	deadline := time.Now().Add(d)
	for {
		found := 0
		eachProc(func(pid int, st procStat) bool {
			if pid == self || st.dead() {
				return true
			}
			env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
			if err != nil {
				return true
			}
			for _, m := range markers {
				if hasEnvEntry(env, m) {
					found++
					if syscall.Kill(pid, syscall.SIGKILL) == nil {
						killed[stray{pid, st.start}] = true
					}
					break
				}
			}
			return true
		})
		if found == 0 || time.Now().After(deadline) {
			return len(killed)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
