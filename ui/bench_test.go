//go:build linux

package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkTrayRSS reports the resident memory of the tray app (the real
// core and UI, not its servers) with 20 servers running: in the tray with
// no window open (how it mostly runs: no window, no GL driver or font
// loaded) and with the window open (the tray app and the window's
// process). BenchmarkTrayMemory measures the real binary at more points. The target is
// at most 80 MB. Needs the desktop session (make bench).
func BenchmarkTrayRSS(b *testing.B) {
	needSession(b)
	startWatcher(b)
	conn := sessionBus(b)
	servers := map[string]any{}
	for i := range 20 {
		servers[fmt.Sprintf("s%02d", i)] = fakeServer("echo")
	}
	a := startApp(b, servers)
	waitRegistered(b, a, conn)
	waitMenu(b, a, conn, "20 servers ready", func(items []menuItem) bool {
		return len(items) > 0 && items[0].label == "20 running"
	})
	pid := a.cmd.Process.Pid
	hidden := settledRSS(b, pid)
	clickTrayItem(b, a, conn, "Open mcptray…")
	win := findWindow(b, a, "mcptray")
	screenshot(b, a, win, "window-20-servers.png")
	// The window is a process of its own (children.go): both count.
	wpid := windowPID(b, win)
	shown := settledRSS(b, pid) + settledRSS(b, wpid)
	// The OpenGL driver's libraries (Mesa's llvmpipe loads all of LLVM
	// under Xvfb): file pages, shared with every other GL program; in the
	// window's process.
	gl := glRSS(b, wpid)
	b.ReportMetric(hidden, "MB-rss-tray")
	b.ReportMetric(shown, "MB-rss-window")
	b.ReportMetric(gl, "MB-rss-gl-libs")
	verdict := "met"
	if hidden > 80 {
		verdict = "MISSED"
	}
	b.Logf("tray app RSS with 20 servers: %.1f MB in the tray (target ≤ 80 MB: %s); %.1f MB once the window has opened (%.1f MB of it the GL driver's libraries)",
		hidden, verdict, shown, gl)
}

// glRSS is how much of process pid's resident set are the OpenGL
// driver's libraries (libGL*, *_dri.so, libgallium, libLLVM).
func glRSS(b *testing.B, pid int) float64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		b.Fatal(err)
	}
	var kb int
	gl := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-"):
			path := ""
			if len(f) >= 6 {
				path = f[5]
			}
			base := path[strings.LastIndex(path, "/")+1:]
			gl = strings.HasPrefix(base, "libGL") || strings.HasPrefix(base, "libLLVM") ||
				strings.HasPrefix(base, "libgallium") || strings.Contains(base, "_dri.so")
		case gl && len(f) == 3 && f[0] == "Rss:":
			n, _ := strconv.Atoi(f[1])
			kb += n
		}
	}
	return float64(kb) / 1024
}

// settledRSS is process pid's resident set in MB, once it stops growing
// (two readings 500 ms apart within 1 MB).
func settledRSS(b *testing.B, pid int) float64 {
	b.Helper()
	prev := -100.0
	for range 20 {
		cur := rssMB(b, pid)
		if cur-prev < 1 {
			return cur
		}
		prev = cur
		time.Sleep(500 * time.Millisecond) // sampling a level, not waiting for an event
	}
	return prev
}

// rssMB reads VmRSS of process pid.
func rssMB(b *testing.B, pid int) float64 {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS in /proc/PID/status")
	return 0
}

// BenchmarkTrayIdle reports what the tray app costs while nobody uses it:
// CPU (% of one CPU) and thread wake-ups (context switches of all its
// threads) per second over idleWindow, first with no window shown (how it
// mostly runs: Fyne's loop dozes, doze.go), then with the main window
// open (the tray app and the window's process together: the window's Fyne
// loop polls and redraws 60 times a second). One server.
// Needs the desktop session (make bench).
func BenchmarkTrayIdle(b *testing.B) {
	needSession(b)
	startWatcher(b)
	conn := sessionBus(b)
	a := startApp(b, map[string]any{"echo": fakeServer("echo")}, childDozeEnv+"=as-shipped")
	waitRegistered(b, a, conn)
	waitMenu(b, a, conn, "the server ready", func(items []menuItem) bool {
		return len(items) > 0 && items[0].label == "1 running"
	})
	pid := a.cmd.Process.Pid
	time.Sleep(2 * time.Second) // let start-up work settle; measuring a level
	hiddenCPU, hiddenWakes := idleCost(b, pid)
	clickTrayItem(b, a, conn, "Open mcptray…")
	win := findWindow(b, a, "mcptray")
	time.Sleep(2 * time.Second)
	shownCPU, shownWakes := idleCost(b, pid, windowPID(b, win)) // the window is a process of its own
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(hiddenCPU, "cpu%-hidden")
	b.ReportMetric(hiddenWakes, "wakeups/s-hidden")
	b.ReportMetric(shownCPU, "cpu%-window")
	b.ReportMetric(shownWakes, "wakeups/s-window")
	b.Logf("tray app idle: %.1f %% CPU and %.0f wake-ups/s with no window shown; %.1f %% and %.0f/s with the window open",
		hiddenCPU, hiddenWakes, shownCPU, shownWakes)
}

// idleWindow is how long idleCost watches.
const idleWindow = 10 * time.Second

// idleCost watches processes pids for idleWindow and returns the CPU they
// used (% of one CPU) and their threads' context switches per second, in
// all.
func idleCost(b *testing.B, pids ...int) (cpu, wakeups float64) {
	b.Helper()
	sum := func() (ticks, sw int) {
		for _, pid := range pids {
			ticks += cpuTicks(b, pid)
			sw += switches(b, pid)
		}
		return ticks, sw
	}
	t0, s0 := sum()
	time.Sleep(idleWindow) // measuring a rate over a fixed time
	t1, s1 := sum()
	const ticksPerSecond = 100 // USER_HZ
	secs := idleWindow.Seconds()
	return float64(t1-t0) / ticksPerSecond / secs * 100, float64(s1-s0) / secs
}

// cpuTicks is process pid's user plus system time, in clock ticks.
func cpuTicks(b *testing.B, pid int) int {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's closing parenthesis: utime and stime
	// are the 12th and 13th of them.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}

// switches sums the context switches of every thread of process pid.
func switches(b *testing.B, pid int) int {
	b.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if err != nil || len(tasks) == 0 {
		b.Fatalf("no threads of %d: %v", pid, err)
	}
	n := 0
	for _, task := range tasks {
		data, err := os.ReadFile(task)
		if err != nil {
			continue // a thread that ended meanwhile
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				k, _ := strconv.Atoi(strings.TrimSpace(v))
				n += k
			} else if v, ok := strings.CutPrefix(line, "nonvoluntary_ctxt_switches:"); ok {
				k, _ := strconv.Atoi(strings.TrimSpace(v))
				n += k
			}
		}
	}
	return n
}
