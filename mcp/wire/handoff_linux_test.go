package wire

import (
	"os/exec"
	"runtime"
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
	for range runtime.NumCPU() {
		busy := exec.Command("yes") // its output goes to /dev/null
		busy.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := busy.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { busy.Process.Kill(); busy.Wait() })
	}
	time.Sleep(100 * time.Millisecond)

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
