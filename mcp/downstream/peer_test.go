//go:build linux

package downstream

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcptray/mcptray/mcp/mcptest"
)

// InspectPeer on real processes: this process (the tray, in-process) is
// the person's; a server and its group are that server's, by name; a
// child of ours descends from mcptray; an orphan outside our tree is a
// server's only when it carries the instance's marker; a pid that is gone
// is not the person's.
func TestInspectPeer(t *testing.T) {
	if p := InspectPeer(os.Getpid(), 0, "inst"); p.OfServers {
		t.Errorf("this process: %+v", p)
	}

	pidfile := filepath.Join(t.TempDir(), "grandchild.pid")
	f := startFake(t, "grandchild", Hooks{}, withEnv(mcptest.PidFileEnv+"="+pidfile))
	gc := readPidFile(t, pidfile)
	for _, pid := range []int{f.PID(), gc} {
		if p := InspectPeer(pid, ProcStart(pid), "inst"); !p.OfServers || p.Server != "grandchild" || p.Command == "" {
			t.Errorf("server's process %d: %+v", pid, p)
		}
	}

	// Orphans: a daemonizer's setsid'd sleeper, reparented above us (this
	// test process is no subreaper).
	orphan := func(env ...string) int {
		t.Helper()
		file := filepath.Join(t.TempDir(), "orphan.pid")
		d := exec.Command(os.Args[0])
		d.Env = mcptest.Env("daemonizer", append(env, mcptest.PidFileEnv+"="+file)...)
		if out, err := d.CombinedOutput(); err != nil {
			t.Fatalf("daemonizer: %v: %s", err, out)
		}
		pid := readPidFile(t, file)
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
		if st, err := readProcStat(pid); err != nil || st.ppid == os.Getpid() {
			t.Skipf("the orphan %d is ours (%+v, %v): this test process is a subreaper", pid, st, err)
		}
		return pid
	}
	if p := InspectPeer(orphan(InstanceEnv+"=inst"), 0, "inst"); !p.OfServers || p.Server != "" || !strings.Contains(p.Why, InstanceEnv) {
		t.Errorf("an orphan with the instance's marker: %+v", p)
	}
	if p := InspectPeer(orphan(InstanceEnv+"=another"), 0, "inst"); p.OfServers {
		t.Errorf("an orphan of no server of ours: %+v", p)
	}

	child := exec.Command(os.Args[0])
	child.Env = mcptest.Env("sleeper")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	pid := child.Process.Pid
	start := ProcStart(pid)
	if p := InspectPeer(pid, start, "inst"); !p.OfServers || !strings.Contains(p.Why, "descends from mcptray") {
		t.Errorf("a child: %+v", p)
	}
	if p := InspectPeer(pid, start+1, "inst"); !p.OfServers || !strings.Contains(p.Why, "is gone") {
		t.Errorf("a pid that names another process now: %+v", p)
	}
	child.Process.Kill()
	child.Wait()
	if p := InspectPeer(pid, 0, "inst"); !p.OfServers || !strings.Contains(p.Why, "cannot be read") {
		t.Errorf("a process that is gone: %+v", p)
	}
	if p := InspectPeer(0, 0, "inst"); !p.OfServers {
		t.Errorf("pid 0: %+v", p)
	}
}
