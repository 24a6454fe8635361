//go:build linux

package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// BenchmarkTrayMemory measures the real tray binary (built here, as `make
// build` does: this test binary's own pages would add ≈ 5 MB) with 20
// servers, under the desktop session, at issue 31's four points:
//
//	tray     in the tray only, trayMemorySettle after start
//	window   the main window open, on each tab in turn (the most of them)
//	closed   trayMemorySettle after the window was closed (WM_DELETE_WINDOW)
//	popups   trayMemorySettle after 10 popups, each shown and answered
//
// Each figure is summed over the mcptray processes — the instance and any
// window or popup process of the same executable, found by /proc/PID/exe;
// not the servers, and not the watchdog (reported apart): RSS, anonymous
// RSS, PSS (shared pages split between the processes that map them), the
// Go heap's objects and everything the Go runtime mapped (from each
// process's MCPTRAY_MEMSTATS file, cli/memstats.go), and threads. The
// targets (issue 31): tray ≤ 40 MB, closed and popups within +10 MB of
// tray. Where the memory goes is logged per point (smapsRSS): the
// binary's pages, the GL driver's libraries, other libraries, the C
// heap's brk area, the rest of the anonymous memory, and how much of it
// the Go runtime holds at most; and while a popup was open (popup-open).
func BenchmarkTrayMemory(b *testing.B) {
	needSession(b)
	startWatcher(b)
	conn := sessionBus(b)
	bin := buildTrayBinary(b)
	stats := b.TempDir()
	servers := map[string]any{"ssh": fakeServer("asker")} // it asks for a password: the popups
	for i := range 19 {
		servers[fmt.Sprintf("s%02d", i)] = fakeServer("echo")
	}
	a := startTrayBinary(b, bin, map[string]any{"mcpServers": servers,
		"x-mcptray": map[string]any{"trustConfigEdits": true}}, memstatsEnv+"="+stats)
	started := time.Now()
	waitRegistered(b, a, conn)
	waitMenu(b, a, conn, "20 servers ready", func(items []menuItem) bool {
		return len(items) > 0 && items[0].label == "20 running"
	})
	m := &trayMeter{b: b, bin: bin, instance: a.cmd.Process.Pid, stats: stats}

	// 1. In the tray only.
	time.Sleep(time.Until(started.Add(trayMemorySettle))) // measuring a level
	tray := m.settled()

	// 2. The main window, on each tab.
	clickTrayItem(b, a, conn, "Open mcptray…")
	win := findWindow(b, a, "mcptray")
	waitDrawn(b, a, win, nil)
	window := m.settled()
	for i := 1; i < len(tabOrder); i++ {
		before := capture(win)
		xdo(b, "windowfocus", "--sync", win)
		xdo(b, "key", "--window", win, "ctrl+"+strconv.Itoa(i+1))
		waitDrawn(b, a, win, before)
		if r := m.settled(); r.rss > window.rss {
			window = r
		}
	}

	// 3. The window closed as a person closes it.
	closeWindow(b, win)
	windowGone(b, a, "mcptray")
	time.Sleep(trayMemorySettle)
	closed := m.settled()

	// 4. Ten popups, each shown and answered.
	var popupOpen trayReading
	for i := range 10 {
		call := callTool(b, a, "ssh__login", map[string]any{"user": fmt.Sprintf("u%d", i)})
		popup := findWindow(b, a, "ssh")
		waitDrawn(b, a, popup, nil)
		if r := m.read(); r.rss > popupOpen.rss {
			popupOpen = r
		}
		xdo(b, "windowraise", popup)
		xdo(b, "windowfocus", "--sync", popup)
		xdo(b, "type", "--delay", "10", "popup password")
		xdo(b, "key", "Return")
		if reply := call.wait(b); !strings.HasPrefix(reply, "logged in as") {
			b.Fatalf("popup %d: the tool's reply %q; want the login accepted", i+1, reply)
		}
		windowGone(b, a, "ssh")
	}
	time.Sleep(trayMemorySettle)
	popups := m.settled()

	b.ReportMetric(0, "ns/op")
	for _, p := range []struct {
		name string
		r    trayReading
	}{{"tray", tray}, {"window", window}, {"closed", closed}, {"popups", popups}} {
		b.ReportMetric(p.r.rss, "MB-rss-"+p.name)
		b.ReportMetric(p.r.anon, "MB-anon-"+p.name)
		b.ReportMetric(p.r.goHeap, "MB-goheap-"+p.name)
		b.ReportMetric(p.r.goTotal, "MB-gomapped-"+p.name)
		b.ReportMetric(float64(p.r.threads), "threads-"+p.name)
	}
	b.ReportMetric(popupOpen.rss, "MB-rss-popup-open")
	b.ReportMetric(tray.watchdog, "MB-rss-watchdog")

	var t strings.Builder
	fmt.Fprintf(&t, "the tray app's memory with 20 servers (MB; threads), summed over %s:\n", "the instance and its window/popup processes")
	fmt.Fprintf(&t, "  %-12s %6s %6s %6s %7s %7s %7s | %6s %6s %6s %6s %6s %7s\n",
		"point", "rss", "anon", "pss", "goheap", "gomap", "threads", "binary", "gl", "libs", "[heap]", "anon", "goheld")
	for _, p := range []struct {
		name string
		r    trayReading
	}{{"tray", tray}, {"window", window}, {"closed", closed}, {"popup-open", popupOpen}, {"popups", popups}} {
		r := p.r
		fmt.Fprintf(&t, "  %-12s %6.1f %6.1f %6.1f %7.1f %7.1f %7d | %6.1f %6.1f %6.1f %6.1f %6.1f %7.1f  (%s)\n",
			p.name, r.rss, r.anon, r.pss, r.goHeap, r.goTotal, r.threads,
			r.binary, r.gl, r.libs, r.cHeap, r.otherAnon, r.goHeld, r.procs)
	}
	fmt.Fprintf(&t, "  targets: tray ≤ 40 MB: %s; closed ≤ tray + 10 MB: %s; popups ≤ tray + 10 MB: %s; the watchdog %.1f MB apart",
		metOrMissed(tray.rss <= 40), metOrMissed(closed.rss <= tray.rss+10), metOrMissed(popups.rss <= tray.rss+10), tray.watchdog)
	b.Log(t.String())

	clickTrayItem(b, a, conn, "Quit")
	a.waitExitCode(30 * time.Second)
}

// waitDrawn waits until X window win's pixels are drawn and still (two
// captures in a row the same) and differ from before (nil: any). As
// screenshot and screenshotChange do, without a file or a log line: a
// benchmark's log keeps only its first lines, and the table is what
// matters.
func waitDrawn(b *testing.B, a *realApp, win string, before []byte) {
	b.Helper()
	var last []byte
	testkit.WaitForWithin(b, 60*time.Second, "the window to be drawn", func() bool {
		a.alive()
		cur := capture(win)
		still := len(cur) > 0 && bytes.Equal(cur, last) && !bytes.Equal(cur, before)
		last = cur
		return still
	})
}

// trayMemorySettle is how long after a change BenchmarkTrayMemory waits
// before it reads (issue 31: 10 s).
const trayMemorySettle = 10 * time.Second

// memstatsEnv is cli's MCPTRAY_MEMSTATS (cli/memstats.go; ui cannot
// import cli).
const memstatsEnv = "MCPTRAY_MEMSTATS"

func metOrMissed(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// buildTrayBinary builds mcptray as `make build` does (cgo, the tray app)
// into a temp dir, with -race when this test binary has it (one set of
// build flags: the cgo packages stay cached).
func buildTrayBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "mcptray")
	args := []string{"build", "-o", bin}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "-race" && s.Value == "true" {
				args = append(args, "-race")
			}
		}
	}
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append(args, ".")...)
	build.Dir = ".."     // the module's root: package main
	build.Env = startEnv // the HOME whose build cache holds the cgo packages
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	// On disk, as an installed binary is: pages of the page cache that
	// are still to be written cannot be dropped from it, and mcptray
	// drops its binary's unmapped pages at start (downstream).
	f, err := os.Open(bin)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		b.Fatalf("syncing %s: %v", bin, err)
	}
	return bin
}

// startTrayBinary starts `bin run` on a temp config holding cfg, in the
// session, with env added: the real tray app, driven like startApp's.
func startTrayBinary(b *testing.B, bin string, cfg map[string]any, env ...string) *realApp {
	b.Helper()
	dir := b.TempDir()
	home := filepath.Join(dir, "home")
	out, err := os.OpenFile(filepath.Join(dir, "app.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { out.Close() })
	a := &realApp{t: b, config: filepath.Join(dir, "mcp.json"), data: filepath.Join(dir, "data"), home: home,
		out: appOutput(out.Name()), exited: make(chan error, 1)}
	writeJSON(b, a.config, cfg)
	a.cmd = exec.Command(bin, "run", "--config", a.config, "--data", a.data)
	a.cmd.Env = append(os.Environ(), "MCPTRAY_LOGIN_SHELL=off",
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
	a.cmd.Env = append(a.cmd.Env, env...)
	a.cmd.Stdout = out // a file: the window's and the popup's processes write it too (appOutput)
	a.cmd.Stderr = out
	if err := a.cmd.Start(); err != nil {
		b.Fatalf("starting %s: %v", bin, err)
	}
	go func() { a.exited <- a.cmd.Wait() }()
	b.Cleanup(func() {
		if !a.reaped {
			a.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-a.exited:
			case <-time.After(20 * time.Second):
				b.Errorf("mcptray did not exit within 20s of SIGTERM")
				a.cmd.Process.Kill()
				<-a.exited
			}
		}
		if b.Failed() {
			b.Logf("mcptray's output:\n%s", a.out)
		}
	})
	return a
}

// waitExitCode waits for the app to exit, and fails unless it exits 0.
func (a *realApp) waitExitCode(within time.Duration) {
	a.t.Helper()
	select {
	case err := <-a.exited:
		a.reaped = true
		if err != nil {
			a.t.Errorf("mcptray exited with %v", err)
		}
	case <-time.After(within):
		a.t.Fatalf("mcptray did not exit within %v", within)
	}
}

// trayMeter reads the memory of the mcptray processes of one benchmark.
type trayMeter struct {
	b        *testing.B
	bin      string // the executable: a process is mcptray's when /proc/PID/exe is this
	instance int    // the tray app's pid
	stats    string // the MCPTRAY_MEMSTATS folder
}

// trayReading is one reading, in MB, summed over the mcptray processes.
type trayReading struct {
	rss, anon, pss  float64 // VmRSS, RssAnon; Pss from smaps_rollup
	goHeap, goTotal float64 // /memory/classes/heap/objects and /memory/classes/total
	// goHeld is what the Go runtime mapped and has not released
	// (total less heap/released): an upper bound of its resident part.
	goHeld  float64
	threads int
	// From smaps (smapsRSS): file pages — the binary's own, the GL
	// driver's libraries, the other libraries, shared with the other
	// processes that map them — and anonymous pages — the Go heap's
	// arenas, the C heap's brk area, the rest.
	binary, gl, libs float64
	cHeap, otherAnon float64
	watchdog         float64 // the watchdog's RSS, not in the sums
	procs            string  // which processes were summed: "run 1234, window 1240"
}

// settled reads until the RSS stops moving (two readings 500 ms apart
// within 1 MB) and returns the last reading.
func (m *trayMeter) settled() trayReading {
	prev := m.read()
	for range 20 {
		time.Sleep(500 * time.Millisecond) // sampling a level, not waiting for an event
		cur := m.read()
		if d := cur.rss - prev.rss; d < 1 && d > -1 {
			return cur
		}
		prev = cur
	}
	return prev
}

// read sums one reading over the mcptray processes running now.
func (m *trayMeter) read() trayReading {
	m.b.Helper()
	var r trayReading
	var names []string
	for _, pid := range m.pids() {
		if environHas(pid, downstream.WatchdogEnv+"=1") {
			if s, ok := procStatus(pid); ok {
				r.watchdog += s["VmRSS"] / 1024
			}
			continue
		}
		s, ok := procStatus(pid)
		if !ok {
			continue // gone meanwhile
		}
		r.rss += s["VmRSS"] / 1024
		r.anon += s["RssAnon"] / 1024
		r.threads += int(s["Threads"])
		r.pss += rollupPss(pid) / 1024
		m.smapsRSS(pid, &r)
		if g, ok := m.goMemory(pid); ok {
			r.goHeap += g["/memory/classes/heap/objects:bytes"] / (1 << 20)
			r.goTotal += g["/memory/classes/total:bytes"] / (1 << 20)
			r.goHeld += (g["/memory/classes/total:bytes"] - g["/memory/classes/heap/released:bytes"]) / (1 << 20)
		} else {
			m.b.Logf("no MCPTRAY_MEMSTATS readings from pid %d (%s)", pid, command(pid))
		}
		names = append(names, fmt.Sprintf("%s %d", command(pid), pid))
	}
	if len(names) == 0 {
		m.b.Fatal("no mcptray process is running")
	}
	r.procs = strings.Join(names, ", ")
	return r
}

// pids lists the processes whose executable is m.bin, the instance first.
func (m *trayMeter) pids() []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	pids := []int{}
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		if exe, err := os.Readlink(d + "/exe"); err == nil && exe == m.bin {
			pids = append(pids, pid)
		}
	}
	sort.Slice(pids, func(i, j int) bool {
		return pids[i] == m.instance || (pids[j] != m.instance && pids[i] < pids[j])
	})
	return pids
}

// goMemory is process pid's latest MCPTRAY_MEMSTATS readings.
func (m *trayMeter) goMemory(pid int) (map[string]float64, bool) {
	files, _ := filepath.Glob(filepath.Join(m.stats, fmt.Sprintf("*-%d.json", pid)))
	if len(files) != 1 {
		return nil, false
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return nil, false
	}
	var f struct {
		Metrics map[string]float64 `json:"metrics"`
	}
	return f.Metrics, json.Unmarshal(data, &f) == nil
}

// smapsRSS splits process pid's resident pages (MB) by mapping: file
// pages into the binary's own, the GL driver's libraries (as glRSS counts
// them) and the other libraries and files; anonymous pages into the C
// heap's brk area ([heap]) and the rest (the Go runtime's memory, the C
// heap's mmapped arenas, thread stacks, the GL driver's buffers: Go 1.26
// puts its heap at a random address, so smaps cannot tell them apart).
func (m *trayMeter) smapsRSS(pid int, r *trayReading) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return
	}
	var into *float64
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-"):
			path := ""
			if len(f) >= 6 {
				path = f[5]
			}
			base := filepath.Base(path)
			switch {
			case path == m.bin:
				into = &r.binary
			case strings.HasPrefix(base, "libGL") || strings.HasPrefix(base, "libLLVM") ||
				strings.HasPrefix(base, "libgallium") || strings.Contains(base, "_dri.so"):
				into = &r.gl
			case strings.HasPrefix(path, "/"):
				into = &r.libs
			case path == "[heap]":
				into = &r.cHeap
			case path == "" || strings.HasPrefix(path, "[anon") || path == "[stack]":
				into = &r.otherAnon
			default:
				into = nil // [vdso], [vvar], [vsyscall]
			}
		case into != nil && len(f) == 3 && f[0] == "Rss:":
			kb, _ := strconv.Atoi(f[1])
			*into += float64(kb) / 1024
		}
	}
}

// procStatus reads the kB (and count) fields of /proc/PID/status.
func procStatus(pid int) (map[string]float64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, false
	}
	s := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB")); err == nil {
			s[k] = float64(n)
		}
	}
	return s, s["VmRSS"] > 0
}

// rollupPss is process pid's Pss in kB.
func rollupPss(pid int) float64 {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(n)
		}
	}
	return 0
}

// environHas reports whether process pid's environment holds kv.
func environHas(pid int, kv string) bool {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	for _, e := range bytes.Split(data, []byte{0}) {
		if string(e) == kv {
			return true
		}
	}
	return false
}

// command is process pid's mcptray command (its first argument).
func command(pid int) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	args := strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
	if len(args) < 2 {
		return "run"
	}
	return args[1]
}
