//go:build linux

package ui

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkit"
)

// The window and the popup are processes of their own (children.go): the
// tray app never loads the GL driver, a second Open raises the window
// that is there, and a window outlives a crash of the tray app and joins
// the next one.

// windowsTitled lists the ids of the mapped windows titled title.
func windowsTitled(title string) []string {
	o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+title+"$").Output()
	return strings.Fields(string(o))
}

// windowPID is the process that owns X window win (_NET_WM_PID).
func windowPID(t testing.TB, win string) int {
	t.Helper()
	o, err := exec.Command("xdotool", "getwindowpid", win).Output()
	if err != nil {
		t.Fatalf("xdotool getwindowpid %s: %v", win, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(o)))
	if err != nil {
		t.Fatalf("window %s's pid %q: %v", win, o, err)
	}
	return pid
}

// mapsGL names the OpenGL driver's libraries process pid has mapped.
func mapsGL(t testing.TB, pid int) []string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		t.Fatal(err)
	}
	var libs []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		base := f[5][strings.LastIndex(f[5], "/")+1:]
		if strings.Contains(base, "_dri.so") || strings.HasPrefix(base, "libLLVM") || strings.HasPrefix(base, "libgallium") {
			if !slices.Contains(libs, base) {
				libs = append(libs, base)
			}
		}
	}
	return libs
}

// processGone waits for process pid to end and be reaped by its parent
// (the tray app that started it learns of its end then).
func processGone(t testing.TB, pid int, what string) {
	t.Helper()
	testkit.WaitFor(t, what+" (pid "+strconv.Itoa(pid)+") to end", func() bool {
		return syscall.Kill(pid, 0) != nil // not our child: signal 0 says whether it is there
	})
}

// windowsOpen waits until the app's core lists the window kinds want as
// open (status.windows): those processes are known to it.
func (a *realApp) windowsOpen(want ...string) {
	a.t.Helper()
	testkit.WaitFor(a.t, fmt.Sprintf("the app to know of the open windows %q", want), func() bool {
		got := a.status().Windows
		slices.Sort(got)
		return slices.Equal(got, want)
	})
}

// TestRealWindowProcess: Open starts the window as a process of its own
// while the tray app stays without a GL driver; a second Open raises it
// rather than starting another; closing it ends its process and gives
// its memory back, and the tray app keeps running.
func TestRealWindowProcess(t *testing.T) {
	needSession(t)
	startTrayHost(t)
	conn := sessionBus(t)
	a := startApp(t, map[string]any{"echo": fakeServer("echo")})
	waitRegistered(t, a, conn)
	waitMenu(t, a, conn, "echo ready", func(items []menuItem) bool {
		return len(items) > 0 && items[0].label == "1 running"
	})

	clickTrayItem(t, a, conn, "Open mcptray…")
	win := findWindow(t, a, "mcptray")
	pid := windowPID(t, win)
	if pid == a.cmd.Process.Pid {
		t.Fatal("the window is in the tray app's own process")
	}
	a.windowsOpen(control.WindowMain)
	if gl := mapsGL(t, a.cmd.Process.Pid); len(gl) > 0 {
		t.Errorf("the tray app has the GL driver mapped (%v) while its window is another process", gl)
	}
	if gl := mapsGL(t, pid); len(gl) == 0 {
		t.Log("the window's process maps no GL driver library this test knows (not Mesa?)")
	}

	// Again, from the Inbox item: the same window, no second process.
	clickTrayItem(t, a, conn, "Inbox (0)…")
	clickTrayItem(t, a, conn, "Open mcptray…")
	time.Sleep(time.Second) // checking that nothing else opens
	if wins := windowsTitled("mcptray"); len(wins) != 1 || wins[0] != win {
		t.Fatalf("windows titled mcptray after a second Open: %v, want only %s", wins, win)
	}

	closeWindow(t, win)
	windowGone(t, a, "mcptray")
	processGone(t, pid, "the window's process")
	a.windowsOpen()
	a.alive()

	// It opens again after being closed.
	clickTrayItem(t, a, conn, "Open mcptray…")
	win = findWindow(t, a, "mcptray")
	if p := windowPID(t, win); p == pid || p == a.cmd.Process.Pid {
		t.Errorf("the reopened window's pid %d (the first %d, the app %d)", p, pid, a.cmd.Process.Pid)
	}
	clickTrayItem(t, a, conn, "Quit")
	a.waitExit(30 * time.Second)
	windowGone(t, a, "mcptray") // quitting mcptray closes its window
}

// TestRealWindowOutlivesACrash: the tray app is killed while its window
// is open; the window stays and joins the next tray app on the same data
// dir, whose Open raises it rather than starting a second one.
func TestRealWindowOutlivesACrash(t *testing.T) {
	needSession(t)
	startTrayHost(t)
	conn := sessionBus(t)
	a := startApp(t, map[string]any{"echo": fakeServer("echo")})
	waitRegistered(t, a, conn)
	clickTrayItem(t, a, conn, "Open mcptray…")
	win := findWindow(t, a, "mcptray")
	pid := windowPID(t, win)
	a.windowsOpen(control.WindowMain)

	a.cmd.Process.Kill()
	<-a.exited
	a.reaped = true
	time.Sleep(time.Second) // checking that the window stays
	if wins := windowsTitled("mcptray"); !slices.Contains(wins, win) {
		t.Fatalf("the window went with the tray app (windows: %v)", wins)
	}
	screenshot(t, nil, win, "window-unreachable.png") // it says mcptray is not running

	b := restartApp(t, a)
	waitRegistered(t, b, conn)
	b.windowsOpen(control.WindowMain) // the window found the new tray app
	clickTrayItem(t, b, conn, "Open mcptray…")
	time.Sleep(time.Second) // checking that nothing else opens
	if wins := windowsTitled("mcptray"); len(wins) != 1 || wins[0] != win {
		t.Fatalf("windows titled mcptray after Open in the new tray app: %v, want only %s", wins, win)
	}
	clickTrayItem(t, b, conn, "Quit")
	b.waitExit(30 * time.Second)
	processGone(t, pid, "the window's process")
}
