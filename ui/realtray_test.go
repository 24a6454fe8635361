//go:build linux

package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkit"
)

// TestRealTray starts the app with three servers next to a tray host and
// uses it as a person would: the tray item registers, its menu has a
// summary and one checked item per server, a click turns a server off
// (mcp.json rewritten, process gone), the window opens from the tray on
// each tab, closing it only hides it, a broken mcp.json is a desktop
// notification and a banner (the notification withdrawn once mcp.json is
// fixed), items keep their ids through those changes,
// and Quit quits. Screenshots are saved.
func TestRealTray(t *testing.T) {
	needSession(t)
	panel := startTrayHost(t)
	conn := sessionBus(t)
	seen := notifications(t)
	nw := watchNotifications(t)
	alpha := fakeServer("echo")
	alpha["env"].(map[string]string)["MCPTRAY_FAKE_ANNOTATED"] = "1" // the Servers tab shows its tools' hints
	a := startApp(t, map[string]any{
		"alpha": alpha,
		"beta":  fakeServer("echo"),
		"gamma": fakeServer("echo"),
	})
	waitRegistered(t, a, conn)

	// The whole menu (a menu being rebuilt can be read half done).
	want := "(3 running)\n[x] alpha — ready\n[x] beta — ready\n[x] gamma — ready\nInbox (0)…\nEvents…\nOpen mcptray…\nQuit\n"
	waitMenu(t, a, conn, "the tray menu with every server ready:\n"+want, func(items []menuItem) bool {
		return menuString(items) == want
	})
	quit, _ := findItem(readTrayMenu(t, conn, a.cmd.Process.Pid), "Quit")

	// Quiet: with a tray host there, the window does not open by itself.
	if o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^mcptray$").Output(); len(o) > 0 {
		t.Error("the window opened at start although a tray host is there")
	}
	if panel {
		shootTrayMenu(t, a)
	}

	// One click turns beta off: mcp.json says so and its process ends.
	pid := a.server("beta").PID
	if !pidAlive(pid) {
		t.Fatalf("beta's pid %d is not running", pid)
	}
	clickTrayItem(t, a, conn, "beta — ready")
	testkit.WaitFor(t, `"disabled": true for beta in mcp.json`, func() bool {
		var cfg struct {
			MCPServers map[string]struct {
				Disabled bool `json:"disabled"`
			} `json:"mcpServers"`
		}
		b, _ := os.ReadFile(a.config)
		return json.Unmarshal(b, &cfg) == nil && cfg.MCPServers["beta"].Disabled
	})
	testkit.WaitFor(t, "beta's process to end", func() bool {
		return a.server("beta").State == control.StateDisabled && !pidAlive(pid)
	})
	waitMenu(t, a, conn, "beta unchecked and off in the tray menu", func(items []menuItem) bool {
		it, ok := findItem(items, "beta — disabled")
		return ok && it.checkbox && !it.checked && len(items) > 0 && items[0].label == "2 running · 1 off"
	})

	// The window, from the tray, on each tab.
	clickTrayItem(t, a, conn, "Open mcptray…")
	win := findWindow(t, a, "mcptray")
	screenshot(t, a, win, "window-servers.png")
	for i, tab := range tabOrder {
		if tab == tabServers {
			continue
		}
		before := capture(win)
		xdo(t, "windowfocus", "--sync", win)
		xdo(t, "key", "--window", win, "ctrl+"+strconv.Itoa(i+1))
		screenshotChange(t, a, win, "window-"+strings.ToLower(tab)+".png", before)
	}

	// Closing the window ends its process; the app keeps running.
	winPID := windowPID(t, win)
	closeWindow(t, win)
	windowGone(t, a, "mcptray")
	processGone(t, winPID, "the window's process")
	a.alive()

	// A broken mcp.json: a notification that reaches dunst, and the banner.
	before := dunstCount(t)
	good, _ := os.ReadFile(a.config)
	broken := strings.Replace(string(good), `"mcpServers": {`, `"mcpServers": {,`, 1)
	if err := os.WriteFile(a.config, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	waitNotification(t, a, seen, "mcp.json has an error")
	note := nw.waitSent(t, a.alive, "mcp.json has an error")
	testkit.WaitForWithin(t, 10*time.Second, "dunst to count the notification", func() bool { return dunstCount(t) > before })
	waitMenu(t, a, conn, "the config error in the tray summary", func(items []menuItem) bool {
		return len(items) > 0 && strings.HasSuffix(items[0].label, "config error")
	})
	clickTrayItem(t, a, conn, "Open mcptray…")
	win = findWindow(t, a, "mcptray")
	screenshot(t, a, win, "window-config-error.png")
	if err := os.WriteFile(a.config, good, 0o600); err != nil {
		t.Fatal(err)
	}
	waitMenu(t, a, conn, "the config error gone from the tray summary", func(items []menuItem) bool {
		return len(items) > 0 && items[0].label == "2 running · 1 off"
	})
	nw.waitClosed(t, a.alive, note, closedByCall) // it parses again: the notification goes

	// Items keep their dbusmenu ids while only states change, so a click
	// on a menu a tray host read before a change still lands.
	if now, _ := findItem(readTrayMenu(t, conn, a.cmd.Process.Pid), "Quit"); now.id != quit.id {
		t.Errorf("Quit's dbusmenu id went from %d to %d while only states changed", quit.id, now.id)
	}

	// Quit in the tray quits, and the servers stop with the app.
	pids := []int{a.server("alpha").PID, a.server("gamma").PID}
	clickTrayItem(t, a, conn, "Quit")
	a.waitExit(30 * time.Second)
	if alive := slices.IndexFunc(pids, pidAlive); alive >= 0 {
		t.Errorf("server process %d outlived the app", pids[alive])
	}
}

// shootTrayMenu opens the tray icon's menu in xfce4-panel with a click,
// photographs the icon with its menu and closes the menu.
func shootTrayMenu(t *testing.T, a *realApp) {
	t.Helper()
	visible := func() map[string]geometry {
		o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--class", "wrapper-2.0").Output()
		out := map[string]geometry{}
		for _, id := range strings.Fields(string(o)) {
			out[id] = windowGeometry(id)
		}
		return out
	}
	var icon geometry
	testkit.WaitFor(t, "the tray icon in the panel", func() bool {
		a.alive()
		for _, g := range visible() {
			if g.w > 8 && g.w < 64 && g.h > 8 && g.h < 64 {
				icon = g
				return true
			}
		}
		return false
	})
	before := visible()
	xdo(t, "mousemove", strconv.Itoa(icon.x+icon.w/2), strconv.Itoa(icon.y+icon.h/2), "click", "1")
	var menu geometry
	testkit.WaitFor(t, "the tray menu to open", func() bool {
		a.alive()
		for id, g := range visible() {
			if _, old := before[id]; !old && g.h > 64 {
				menu = g
				return true
			}
		}
		return false
	})
	// The menu with the icon under it, and a margin.
	x0, y0 := max(0, min(menu.x, icon.x)-16), max(0, menu.y-16)
	x1, y1 := max(menu.x+menu.w, icon.x+icon.w)+16, icon.y+icon.h
	crop := fmt.Sprintf("%dx%d+%d+%d", x1-x0, y1-y0, x0, y0)
	shot := filepath.Join(artifactsDir(t), "tray-menu.png")
	testkit.WaitFor(t, "the tray menu to be drawn", func() bool {
		return exec.Command("import", "-window", "root", "-crop", crop, shot).Run() == nil && countColours(t, shot) >= 16
	})
	t.Logf("screenshot: %s", shot)
	xdo(t, "key", "Escape")
}

// geometry is a window's place on the screen.
type geometry struct{ x, y, w, h int }

func windowGeometry(id string) geometry {
	o, _ := exec.Command("xdotool", "getwindowgeometry", "--shell", id).Output()
	s := string(o)
	return geometry{shellValue(s, "X"), shellValue(s, "Y"), shellValue(s, "WIDTH"), shellValue(s, "HEIGHT")}
}

// shellValue reads KEY=N from xdotool's --shell output.
func shellValue(out, key string) int {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// TestRealNoSessionBus starts the app where no session bus answers: no
// tray (Fyne's tray would panic on Quit), so the window opens at once and
// says why; SIGTERM still ends it cleanly.
func TestRealNoSessionBus(t *testing.T) {
	needSession(t)
	a := startApp(t, map[string]any{"alpha": fakeServer("echo")},
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus")
	// Without the keyring mcptray asks whether to approve mcp.json's
	// entries: its popup is titled mcptray too.
	win := findMainWindow(t, a)
	screenshot(t, a, win, "window-no-tray.png")
	if err := a.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	a.waitExit(30 * time.Second)
	if strings.Contains(a.out.String(), "panic") {
		t.Error("the app panicked")
	}
}
