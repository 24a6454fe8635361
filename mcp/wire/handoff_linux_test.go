package wire

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHandOffBesideBusyCPUs: with a real CPU-bound process on every CPU,
// real yields are slow (each waits out another task's slice), and the
// guard lets only a few of them through (8 of 1000 tries on a 2-vCPU VM;
// without the guard a third to a half of the tries were slow). Where the
// scheduler does not make a yielder wait, none is slow, and there is
// nothing to guard against.
func TestHandOffBesideBusyCPUs(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: the gateway does not hand off (handoff.go)")
	}
	var pids []int
	for range runtime.NumCPU() {
		busy := exec.Command("yes") // its output goes to /dev/null
		busy.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := busy.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { busy.Process.Kill(); busy.Wait() })
		pids = append(pids, busy.Process.Pid)
	}
	waitBusy(t, pids)

	tries, yields, slow := 1000, 0, 0
	h := newHandOffGuard(func() {
		t0 := time.Now()
		schedYield()
		if yields++; time.Since(t0) >= slowYield {
			slow++
		}
	}, true)
	for range tries {
		time.Sleep(300 * time.Microsecond)
		h.yield()
	}
	t.Logf("%d tries: %d yields, %d slow", tries, yields, slow)
	if slow > 30 {
		t.Errorf("%d of %d yields were slow (waited out a busy task's slice); the guard should have paused after a few", slow, yields)
	}
}

// waitBusy waits until each of pids runs yes and has had the CPU (its
// utime in /proc/PID/stat is above zero).
func waitBusy(t *testing.T, pids []int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		busy := 0
		for _, pid := range pids {
			stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime …
			if f := strings.Fields(string(stat)); len(f) > 13 && f[1] == "(yes)" && f[13] != "0" {
				busy++
			}
		}
		if busy == len(pids) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for the busy processes to run (%d of %d)", busy, len(pids))
		}
	}
}
