package downstream

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// maxAncestry bounds the walk up the parent links (they cannot loop, but
// the walk reads files another process changes meanwhile).
const maxAncestry = 1024

// InspectPeer says whether pid is one of this process's servers or their
// descendants, by one walk from pid up its parent links, as /proc shows
// them now. A process on that chain makes pid a server's when it
//   - is a running server, or is in a running server's process group;
//   - carries, in its environment, a running server's marker (serverEnv)
//     or this instance's (InstanceEnv=instance): every server and all
//     that it starts inherit both unless they clear them;
//   - is this process: pid descends from mcptray, and mcptray runs
//     nothing else that talks to its own control socket but its window
//     and popup (OwnProcess), which are the person's. Since mcptray is
//     a child subreaper (Subreap), a server's orphan — a double fork, a
//     setsid — is reparented to it, so this holds after its chain to
//     the server broke and it cleared its environment.
//
// This process itself is not a server's (the tray, in-process). A pid
// whose /proc cannot be read counts as a server's: it is gone, or not the
// user's, and either way not a person at a terminal; so does one whose
// start time is no longer start (when start is not 0: the process that
// connected is gone and another reuses its pid), and pid 0 or 1 (the
// kernel did not say).
func InspectPeer(pid int, start uint64, instance string) Peer {
	p := Peer{PID: pid, Command: procComm(pid)}
	self := os.Getpid()
	switch {
	case pid == self:
		return p
	case pid <= 1:
		p.OfServers, p.Why = true, "the kernel did not say which process it is"
		return p
	case start != 0 && procStart(pid) != start:
		p.OfServers, p.Why = true, "the process that connected is gone"
		return p
	case ownProcess(pid, procStart(pid)):
		return p // the tray app's window or popup (OwnProcess)
	}
	servers := liveServers()
	var inst []byte
	if instance != "" {
		inst = []byte(InstanceEnv + "=" + instance)
	}
	mark := func(server, why string) {
		if p.Server == "" {
			p.Server = server
		}
		if !p.OfServers {
			p.OfServers, p.Why = true, why
		}
	}
	cur := pid
	for range maxAncestry {
		if cur == self {
			mark("", "it descends from mcptray, which starts no such process itself")
			break
		}
		if cur <= 1 {
			break
		}
		st, err := readProcStat(cur)
		if err != nil {
			if cur == pid {
				mark("", fmt.Sprintf("its process cannot be read: %v", err))
			}
			break
		}
		env, envErr := os.ReadFile("/proc/" + strconv.Itoa(cur) + "/environ")
		for _, s := range servers {
			switch {
			case cur == s.pid && st.start == s.start:
				mark(s.name, fmt.Sprintf("it is server %q or descends from it", s.name))
			case st.pgrp == s.pid:
				mark(s.name, fmt.Sprintf("it is in server %q's process group", s.name))
			case envErr == nil && hasEnvEntry(env, s.marker):
				mark(s.name, fmt.Sprintf("it carries server %q's marker (%s)", s.name, serverEnv))
			}
		}
		if envErr == nil && inst != nil && hasEnvEntry(env, inst) {
			mark("", "it carries this instance's marker ("+InstanceEnv+")")
		}
		if p.Server != "" {
			break // named: nothing above can say more
		}
		cur = st.ppid
	}
	return p
}

// procComm is pid's command name, "" when it cannot be read.
func procComm(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return string(bytes.TrimSuffix(b, []byte("\n")))
}

// liveServers is a copy of the running servers.
func liveServers() []liveServer {
	live.mu.Lock()
	defer live.mu.Unlock()
	out := make([]liveServer, 0, len(live.servers))
	for _, s := range live.servers {
		out = append(out, s)
	}
	return out
}
