package downstream

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWindowsStopClosesStdinFirst: a server that ends when its stdin
// closes is stopped by that alone, well within the stop grace, with its
// own exit code (0), not the job's kill.
func TestWindowsStopClosesStdinFirst(t *testing.T) {
	spec := fakeSpec("echo")
	spec.StopGrace, spec.TermGrace = 20*time.Second, 20*time.Second
	s := startFake(t, spec)
	res, err := s.CallTool(context.Background(), "echo", map[string]any{"message": "hi"})
	if err != nil || len(res.Content) == 0 {
		t.Fatalf("echo: %v, %v", res, err)
	}
	began := time.Now()
	s.Close()
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("stop took %s: the server did not end when its stdin closed", took)
	}
	if got := s.proc.state.ExitCode(); got != 0 {
		t.Errorf("server's exit code %d, want 0 (it ended by itself)", got)
	}
	if reason, code := s.ExitReason(), s.ExitCode(); reason != "stopped" {
		t.Errorf("exit reason %q (code %d), want stopped", reason, code)
	}
	waitGone(t, "server", s.PID())
}

// TestWindowsStopEndsJob: a server that ignores its stdin's end is ended
// with its job after both graces, with its child; the child, which holds
// the server's stdout, is ended too when the server exits by itself.
func TestWindowsStopEndsJob(t *testing.T) {
	pidfile := filepath.Join(tempDir(t), "pid")
	spec := fakeSpec("silent")
	s := startFakeNoInit(t, spec)
	began := time.Now()
	s.stop(func() {}, spec.StopGrace, spec.TermGrace)
	if took := time.Since(began); took < spec.StopGrace+spec.TermGrace {
		t.Errorf("ended after %s, before both graces (%s)", took, spec.StopGrace+spec.TermGrace)
	}
	if got := s.state.ExitCode(); got != killedCode {
		t.Errorf("exit code %d, want %d (the job's kill)", got, killedCode)
	}
	waitGone(t, "server", s.pid)

	gc := startFake(t, fakeSpec("grandchild", mcptest.PidFileEnv+"="+pidfile))
	child := readPidFile(t, pidfile)
	gc.Close()
	waitGone(t, "server", gc.PID())
	waitGone(t, "its child", child)
}

// startFakeNoInit starts a server that never answers (no initialize): the
// process alone, in its job.
func startFakeNoInit(t *testing.T, spec StdioSpec) *process {
	t.Helper()
	pipes, err := newStdioPipes()
	if err != nil {
		t.Fatal(err)
	}
	p, err := startProcess(spec, os.Args[0], pipes.childIn, pipes.childOut, pipes.childErr)
	pipes.closeChildEnds()
	if err != nil {
		pipes.closeOurEnds()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.kill()
		pipes.closeOurEnds()
	})
	return p
}

// TestWindowsJobHoldsDetachedOrphan: a sleeper started detached, by a
// child that then exited, is still in the server's job: stopping the
// server ends it.
func TestWindowsJobHoldsDetachedOrphan(t *testing.T) {
	pidfile := filepath.Join(tempDir(t), "pid")
	s := startFake(t, fakeSpec("escaper", mcptest.PidFileEnv+"="+pidfile, mcptest.OrphanEnv+"=1"))
	orphan := readPidFile(t, pidfile)
	if processGone(orphan) {
		t.Fatalf("the orphan (pid %d) is not running", orphan)
	}
	if p := InspectPeer(orphan, ProcStart(orphan), ""); !p.OfServers || p.Server != "escaper" {
		t.Errorf("InspectPeer(orphan) = %+v, want server escaper's", p)
	}
	s.Close()
	waitGone(t, "the orphan", orphan)
}

// TestWindowsInspectPeer: a server's child is the server's; this process
// and a process it starts itself are not; a pid that was a server's
// child and is gone counts as a server's.
func TestWindowsInspectPeer(t *testing.T) {
	pidfile := filepath.Join(tempDir(t), "pid")
	s := startFake(t, fakeSpec("grandchild", mcptest.PidFileEnv+"="+pidfile))
	child := readPidFile(t, pidfile)
	start := ProcStart(child)
	if start == 0 {
		t.Errorf("ProcStart(%d) = 0", child)
	}
	if p := InspectPeer(child, start, ""); !p.OfServers || p.Server != "grandchild" {
		t.Errorf("InspectPeer(server's child) = %+v, want server grandchild's", p)
	}
	if p := InspectPeer(s.PID(), ProcStart(s.PID()), ""); !p.OfServers || p.Server != "grandchild" {
		t.Errorf("InspectPeer(server) = %+v, want server grandchild's", p)
	}
	if p := InspectPeer(os.Getpid(), ProcStart(os.Getpid()), ""); p.OfServers {
		t.Errorf("InspectPeer(self) = %+v, want not a server's", p)
	}
	other := exec.Command(os.Args[0])
	other.Env = mcptest.Env("sleeper")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	if p := InspectPeer(other.Process.Pid, ProcStart(other.Process.Pid), ""); p.OfServers {
		t.Errorf("InspectPeer(a process of our own) = %+v, want not a server's", p)
	}
	if p := InspectPeer(child, start+1, ""); !p.OfServers {
		t.Errorf("InspectPeer(child, another start time) = %+v, want a server's (the one that connected is gone)", p)
	}
}

// TestWindowsKilledParentEndsServers: when mcptray is killed (here a
// stand-in, ended by TerminateProcess), the system closes its job handles
// and every server ends with its descendants, the detached orphan too.
func TestWindowsKilledParentEndsServers(t *testing.T) {
	pidfile := filepath.Join(tempDir(t), "pid")
	parent := exec.Command(os.Args[0])
	parent.Env = append(mcptest.Env(""), testParentEnv+"=1", testPidFileEnv+"="+pidfile)
	parent.Stderr = os.Stderr
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		parent.Process.Kill()
		parent.Wait()
		t.Fatalf("reading the parent's pids: %v", err)
	}
	pids := strings.Fields(line)
	if len(pids) != 3 {
		t.Fatalf("parent printed %q, want SERVER GRANDCHILD ESCAPEE", line)
	}
	parent.Process.Kill()
	parent.Wait()
	for i, what := range []string{"server", "its child", "the detached orphan"} {
		pid := atoi(t, pids[i])
		waitGone(t, what, pid)
	}
}

// TestWindowsExitCode: a server that exits before initialize is
// described by its exit code and its last stderr line.
func TestWindowsExitCode(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Start(ctx, fakeSpec("crash"), Hooks{})
	if err == nil || !strings.Contains(err.Error(), "exited with code 3 before initialize: panic: boom") {
		t.Errorf("Start(crash) = %v, want exited with code 3 before initialize: panic: boom", err)
	}
}

// TestWindowsLookCommand: a bare name is found with PATHEXT's extensions
// in a PATH given as Path (names without case), and a path without its
// .exe too; a name not found is told how to find it on Windows.
func TestWindowsLookCommand(t *testing.T) {
	exe := os.Args[0]
	dir, name := filepath.Dir(exe), strings.TrimSuffix(filepath.Base(exe), ".exe")
	got, err := lookCommand(name, []string{"Path=" + dir}, "")
	if err != nil || !strings.EqualFold(got, filepath.Join(dir, name+".exe")) {
		t.Errorf("lookCommand(%q) = %q, %v; want %s", name, got, err, exe)
	}
	got, err = lookCommand(filepath.Join(dir, name), nil, "")
	if err != nil || !strings.EqualFold(got, filepath.Join(dir, name+".exe")) {
		t.Errorf("lookCommand(%q) = %q, %v; want %s", filepath.Join(dir, name), got, err, exe)
	}
	if _, err := lookCommand("no-such-command-here", []string{"Path=" + dir}, ""); err == nil || !strings.Contains(err.Error(), "(`where no-such-command-here` in a terminal prints it)") {
		t.Errorf("lookCommand(no-such-command-here) = %v, want not found, naming where", err)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a pid: %q", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestWindowsCRLFServer: a server whose lines end in "\r\n" starts, lists
// its tools and answers a call, over Windows' pipes.
func TestWindowsCRLFServer(t *testing.T) {
	s := startFake(t, fakeSpec("crlf"))
	res, err := s.CallTool(context.Background(), "echo", map[string]any{"message": "over crlf"})
	if err != nil || len(res.Content) != 1 {
		t.Fatalf("echo: %v, %v", res, err)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; text != "over crlf" {
		t.Errorf("echo answered %q", text)
	}
}
