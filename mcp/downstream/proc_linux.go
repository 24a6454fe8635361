package downstream

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// serverProcAttr puts a server in its own process group, and kills it when
// mcptray dies. Strictly, Linux sends the parent-death signal when the
// *thread* that forked exits; Go only ends a thread when a goroutine locked
// to it exits, so don't call Start from a goroutine that did LockOSThread.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// watchdogProcAttr gives the watchdog its own group (a Ctrl-C meant for
// mcptray must not reach it first) and SIGTERM when mcptray dies.
func watchdogProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// selfExecutable is what the watchdog runs: this very binary, even if its
// file was replaced or removed since.
func selfExecutable() (string, error) { return "/proc/self/exe", nil }

// groupGone reports whether no live process is left in the group. Zombies
// don't count: one whose parent never reaps it is dead all the same.
func groupGone(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	alive := false
	eachProc(func(pid int, st procStat) bool {
		if st.pgrp == pgid && st.state != 'Z' && st.state != 'X' {
			alive = true
			return false
		}
		return true
	})
	return !alive
}

// ReapGroup kills (SIGKILL) what is left of a process group started by an
// earlier mcptray instance that died without stopping it. Only processes in
// that group whose environment holds InstanceEnv=instance are killed, so a
// process group id reused by an unrelated program is left alone. It returns
// how many processes it killed.
func ReapGroup(pgid int, instance string) (int, error) {
	if pgid <= 1 {
		return 0, fmt.Errorf("reaping process group %d: not a server's group", pgid)
	}
	if instance == "" {
		return 0, fmt.Errorf("reaping process group %d: no instance marker", pgid)
	}
	marker := []byte(InstanceEnv + "=" + instance)
	self := os.Getpid()
	killed := 0
	err := eachProc(func(pid int, st procStat) bool {
		if st.pgrp != pgid || pid == self || st.state == 'Z' || st.state == 'X' {
			return true
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil || !hasEnvEntry(env, marker) {
			return true
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
		return true
	})
	if err != nil {
		return killed, fmt.Errorf("reaping process group %d: %w", pgid, err)
	}
	return killed, nil
}

// ReapInstance kills (SIGKILL) every process, in any group or session,
// whose environment holds InstanceEnv=instance: what is left of a dead
// instance's servers after ReapGroup, the descendants that left their
// server's group (setsid) and lost the watchdog with the instance. The
// marker is random per instance, and the caller holds the data dir's lock,
// so no live instance's process carries it. It returns how many processes
// it killed.
func ReapInstance(instance string) (int, error) {
	if instance == "" {
		return 0, fmt.Errorf("reaping instance: no instance marker")
	}
	marker := []byte(InstanceEnv + "=" + instance)
	self := os.Getpid()
	killed := 0
	err := eachProc(func(pid int, st procStat) bool {
		if pid == self || st.state == 'Z' || st.state == 'X' {
			return true
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err == nil && hasEnvEntry(env, marker) && syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
		return true
	})
	if err != nil {
		return killed, fmt.Errorf("reaping instance %s: %w", instance, err)
	}
	return killed, nil
}

func hasEnvEntry(environ, entry []byte) bool {
	for kv := range bytes.SplitSeq(environ, []byte{0}) {
		if bytes.Equal(kv, entry) {
			return true
		}
	}
	return false
}

// procStat is the part of /proc/PID/stat that we read.
type procStat struct {
	state byte
	ppid  int
	pgrp  int
	start uint64 // starttime: with the pid, tells a process from a later one with the same pid
}

// dead reports a zombie or a process being reaped.
func (st procStat) dead() bool { return st.state == 'Z' || st.state == 'X' }

// eachProc calls f for every process in /proc until f returns false.
func eachProc(f func(pid int, st procStat) bool) error {
	d, err := os.Open("/proc")
	if err != nil {
		return err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return err
	}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		st, err := readProcStat(pid)
		if err != nil {
			continue // gone meanwhile
		}
		if !f(pid, st) {
			return nil
		}
	}
	return nil
}

// readProcStat parses "pid (comm) state ppid pgrp … starttime …"; comm may
// hold spaces and parentheses, so fields are counted after the last ')'.
func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("malformed stat")
	}
	fields := bytes.Fields(b[i+1:])
	if len(fields) < 20 || len(fields[0]) != 1 {
		return procStat{}, errors.New("malformed stat")
	}
	ppid, err1 := strconv.Atoi(string(fields[1]))
	pgrp, err2 := strconv.Atoi(string(fields[2]))
	start, err3 := strconv.ParseUint(string(fields[19]), 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return procStat{}, err
	}
	return procStat{state: fields[0][0], ppid: ppid, pgrp: pgrp, start: start}, nil
}
