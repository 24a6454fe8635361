//go:build linux

package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcptray/mcptray/app/control"
	"github.com/mcptray/mcptray/internal/testkit"
)

// The tests here run the real app — the real core and ui.Run with the GL
// driver — in the desktop session of scripts/desktop-session.sh (Xvfb, a
// private D-Bus, gnome-keyring, dunst), and drive it the way a person's
// desktop does: the tray over D-Bus (StatusNotifierItem + dbusmenu), the
// windows with xdotool. They run only inside that session
// (MCPTRAY_TEST_SESSION=1) and fail, rather than skip, when the session is
// there but broken. Screenshots go to $MCPTRAY_ARTIFACTS.

// needSession skips t outside the desktop session and fails it when the
// session lacks something.
func needSession(t testing.TB) {
	t.Helper()
	if os.Getenv("MCPTRAY_TEST_SESSION") != "1" {
		t.Skip("needs a desktop session: run under scripts/desktop-session.sh (make test does)")
	}
	for _, v := range []string{"DISPLAY", "DBUS_SESSION_BUS_ADDRESS"} {
		if os.Getenv(v) == "" {
			t.Fatalf("MCPTRAY_TEST_SESSION=1 but %s is not set", v)
		}
	}
	for _, tool := range []string{"xdotool", "import", "dunstctl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("MCPTRAY_TEST_SESSION=1 but %s is missing (run scripts/deps.sh)", tool)
		}
	}
}

// realApp is the app under test, a child process.
type realApp struct {
	t      testing.TB
	cmd    *exec.Cmd
	config string
	data   string
	home   string
	out    appOutput
	exited chan error // receives the exit once; alive puts it back
	reaped bool
}

// fakeServer is an mcp.json entry running this test binary as a fake MCP
// server in mode.
func fakeServer(mode string) map[string]any {
	exe, _ := os.Executable()
	return map[string]any{"command": exe, "env": map[string]string{
		"MCPTRAY_FAKE_SERVER": mode, "GORACE": "atexit_sleep_ms=0"}}
}

func writeJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path+".tmp", b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

// startApp starts the app on a temp config holding servers, with env added
// to the session's environment.
func startApp(t testing.TB, servers map[string]any, env ...string) *realApp {
	t.Helper()
	return startAppConfig(t, map[string]any{"mcpServers": servers}, env...)
}

// startAppConfig is startApp with the whole of mcp.json.
func startAppConfig(t testing.TB, cfg map[string]any, env ...string) *realApp {
	t.Helper()
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	writeJSON(t, config, cfg)
	return startAppAt(t, config, filepath.Join(dir, "data"), filepath.Join(dir, "home"), env...)
}

// restartApp starts another app on a's config, data dir and home, as
// autostart would after a crash.
func restartApp(t testing.TB, a *realApp, env ...string) *realApp {
	t.Helper()
	return startAppAt(t, a.config, a.data, a.home, env...)
}

// startAppAt starts the app on config and data, with home as its HOME.
func startAppAt(t testing.TB, config, data, home string, env ...string) *realApp {
	t.Helper()
	out, err := os.OpenFile(filepath.Join(t.TempDir(), "app.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	a := &realApp{t: t, config: config, data: data, home: home, out: appOutput(out.Name()), exited: make(chan error, 1)}
	a.cmd = exec.Command(os.Args[0], "-test.run=^$")
	a.cmd.Env = append(os.Environ(), childEnv+"=1", childConfigEnv+"="+a.config, childDataEnv+"="+a.data,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
	a.cmd.Env = append(a.cmd.Env, env...)
	a.cmd.Stdout = out
	a.cmd.Stderr = out
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("starting the app: %v", err)
	}
	go func() { a.exited <- a.cmd.Wait() }()
	t.Cleanup(func() {
		if !a.reaped {
			a.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-a.exited:
			case <-time.After(20 * time.Second):
				t.Errorf("the app did not exit within 20s of SIGTERM (its goroutines at that moment are in its output)")
				a.cmd.Process.Signal(syscall.SIGQUIT) // the Go runtime prints every goroutine's stack
				select {
				case <-a.exited:
				case <-time.After(5 * time.Second):
					a.cmd.Process.Kill()
					<-a.exited
				}
			}
		}
		out := a.out.String()
		t.Logf("app output:\n%s", out)
		if strings.Contains(out, "Error in Fyne call thread") {
			t.Error("Fyne thread check failed in the app (see its output)")
		}
	})
	return a
}

// appOutput is the app's stdout and stderr, a file, which the processes
// of its window and popup write too: with a pipe, the app's Wait would
// wait for them when the app is killed and they live on.
type appOutput string

// String is what was written so far.
func (o appOutput) String() string {
	b, _ := os.ReadFile(string(o))
	return string(b)
}

// alive fails the test if the app has exited.
func (a *realApp) alive() {
	a.t.Helper()
	select {
	case err := <-a.exited:
		a.exited <- err
		a.t.Fatalf("the app exited early (%v)", err)
	default:
	}
}

// waitExit waits for the app to exit and fails unless it exits 0 after
// printing that ui.Run returned nil.
func (a *realApp) waitExit(within time.Duration) {
	a.t.Helper()
	select {
	case err := <-a.exited:
		a.reaped = true
		if err != nil {
			a.t.Errorf("the app exited with %v", err)
		}
	case <-time.After(within):
		// SIGQUIT: the Go runtime prints every goroutine's stack, which
		// the app's output (logged at cleanup) then shows.
		a.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-a.exited:
			a.reaped = true
		case <-time.After(5 * time.Second):
		}
		a.t.Fatalf("the app did not exit within %v (its goroutines at that moment are in its output)", within)
	}
	if o := a.out.String(); !strings.Contains(o, childDone+"<nil>") {
		a.t.Errorf("the app's output lacks %q", childDone+"<nil>")
	}
}

// status asks the app's core over its control socket.
func (a *realApp) status() control.Status {
	a.t.Helper()
	cl, err := control.Dial(a.data)
	if err != nil {
		return control.Status{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, _ := cl.Status(ctx)
	return st
}

func (a *realApp) server(name string) control.ServerStatus {
	for _, s := range a.status().Servers {
		if s.Name == name {
			return s
		}
	}
	return control.ServerStatus{}
}

// artifactsDir is where tests leave files worth looking at after a run:
// $MCPTRAY_ARTIFACTS (make test sets it) or a temp dir of the test.
func artifactsDir(t testing.TB) string {
	dir := os.Getenv("MCPTRAY_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("making the artifacts dir: %v", err)
	}
	return dir
}

// findWindow waits for a mapped window whose title is title and returns its
// X id.
func findWindow(t testing.TB, a *realApp, title string) string {
	t.Helper()
	var id string
	testkit.WaitForWithin(t, 60*time.Second, "a window titled "+title, func() bool {
		a.alive()
		o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+title+"$").Output()
		id, _, _ = strings.Cut(strings.TrimSpace(string(o)), "\n")
		return id != ""
	})
	return id
}

// findMainWindow is the main window: the window titled mcptray that is as
// wide as the main window opens (the popup for mcptray's own requests is
// titled mcptray too, and narrower).
func findMainWindow(t testing.TB, a *realApp) string {
	t.Helper()
	var id string
	testkit.WaitForWithin(t, 60*time.Second, "the main window", func() bool {
		a.alive()
		for _, w := range windowsTitled("mcptray") {
			geo, err := exec.Command("xdotool", "getwindowgeometry", "--shell", w).Output()
			if err == nil && strings.Contains(string(geo), "WIDTH=900") {
				id = w
				return true
			}
		}
		return false
	})
	return id
}

// windowGone waits until no mapped window is titled title.
func windowGone(t testing.TB, a *realApp, title string) {
	t.Helper()
	testkit.WaitFor(t, "the window "+title+" to go", func() bool {
		a.alive()
		o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+title+"$").Output()
		return strings.TrimSpace(string(o)) == ""
	})
}

// screenshot saves the X window win ("root" for the screen) as name in
// the artifacts dir once it is drawn (at least 16 colours) and still (two
// captures in a row the same: no animation under way), and returns the
// path.
func screenshot(t testing.TB, a *realApp, win, name string) string {
	t.Helper()
	shot := filepath.Join(artifactsDir(t), name)
	var last []byte
	testkit.WaitForWithin(t, 60*time.Second, name+" to be drawn", func() bool {
		if a != nil {
			a.alive()
		}
		cur := capture(win)
		still := len(cur) > 0 && bytes.Equal(cur, last)
		last = cur
		if !still {
			return false
		}
		if err := exec.Command("import", "-window", win, shot).Run(); err != nil {
			t.Logf("import: %v", err)
			return false
		}
		return countColours(t, shot) >= 16
	})
	t.Logf("screenshot: %s", shot)
	return shot
}

// capture is the raw RGBA pixels of X window win.
func capture(win string) []byte {
	out, _ := exec.Command("import", "-window", win, "-depth", "8", "rgba:-").Output()
	return out
}

// screenshotChange is screenshot for a window whose content is changing
// (a tab was just selected): it waits until the window's pixels differ
// from before (a capture) and two captures in a row are the same.
func screenshotChange(t testing.TB, a *realApp, win, name string, before []byte) string {
	t.Helper()
	var last []byte
	testkit.WaitFor(t, name+" to show the change", func() bool {
		a.alive()
		cur := capture(win)
		settled := len(cur) > 0 && bytes.Equal(cur, last) && !bytes.Equal(cur, before)
		last = cur
		return settled
	})
	shot := filepath.Join(artifactsDir(t), name)
	if err := exec.Command("import", "-window", win, shot).Run(); err != nil {
		t.Fatalf("import: %v", err)
	}
	t.Logf("screenshot: %s", shot)
	return shot
}

// countColours counts the distinct colours in the PNG at path (up to 1000).
func countColours(t testing.TB, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return 0 // written half-way
	}
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, al := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, al}] = true
			if len(seen) >= 1000 {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// xdo runs xdotool with args.
func xdo(t testing.TB, args ...string) {
	t.Helper()
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		t.Fatalf("xdotool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// sessionBus connects to the session bus, closed at the end of t.
func sessionBus(t testing.TB) *dbus.Conn {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connecting to the session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// trayDest is the D-Bus name fyne.io/systray exports its tray item under.
func trayDest(pid int) string { return fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", pid) }

// menuItem is one item of the tray's dbusmenu.
type menuItem struct {
	id       int32
	label    string
	checkbox bool // toggle-type checkmark
	checked  bool // toggle-state 1
	enabled  bool
}

// menuLayout is a dbusmenu layout node: (ia{sv}av).
type menuLayout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

// readTrayMenu returns the items of the app's tray menu, in order (separators
// left out).
func readTrayMenu(t testing.TB, conn *dbus.Conn, pid int) []menuItem {
	t.Helper()
	var rev uint32
	var root menuLayout
	err := conn.Object(trayDest(pid), "/StatusNotifierMenu").Call(
		"com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &root)
	if err != nil {
		t.Logf("GetLayout: %v", err)
		return nil
	}
	var items []menuItem
	for _, v := range root.Children {
		fields, ok := v.Value().([]any)
		if !ok || len(fields) != 3 {
			continue
		}
		props, _ := fields[1].(map[string]dbus.Variant)
		if typ, _ := props["type"].Value().(string); typ == "separator" {
			continue
		}
		it := menuItem{enabled: true}
		it.id, _ = fields[0].(int32)
		it.label, _ = props["label"].Value().(string)
		if typ, _ := props["toggle-type"].Value().(string); typ == "checkmark" {
			it.checkbox = true
		}
		if s, ok := props["toggle-state"].Value().(int32); ok && s == 1 {
			it.checked = true
		}
		if e, ok := props["enabled"].Value().(bool); ok && !e {
			it.enabled = false
		}
		items = append(items, it)
	}
	return items
}

func menuString(items []menuItem) string {
	var b strings.Builder
	for _, it := range items {
		switch {
		case !it.enabled:
			b.WriteString("(" + it.label + ")")
		case it.checked:
			b.WriteString("[x] " + it.label)
		case it.checkbox:
			b.WriteString("[ ] " + it.label)
		default:
			b.WriteString(it.label)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// waitMenu waits until the tray menu satisfies cond and returns it.
func waitMenu(t testing.TB, a *realApp, conn *dbus.Conn, what string, cond func([]menuItem) bool) []menuItem {
	t.Helper()
	var items []menuItem
	testkit.WaitForWithin(t, 60*time.Second, what, func() bool {
		a.alive()
		items = readTrayMenu(t, conn, a.cmd.Process.Pid)
		return cond(items)
	})
	return items
}

// hasItem reports whether items has one labelled label.
func hasItem(items []menuItem, label string) bool {
	_, ok := findItem(items, label)
	return ok
}

func findItem(items []menuItem, label string) (menuItem, bool) {
	for _, it := range items {
		if it.label == label {
			return it, true
		}
	}
	return menuItem{}, false
}

// clickTrayItem clicks the tray menu item labelled label, the way a tray
// host does.
func clickTrayItem(t testing.TB, a *realApp, conn *dbus.Conn, label string) {
	t.Helper()
	it, ok := findItem(readTrayMenu(t, conn, a.cmd.Process.Pid), label)
	if !ok {
		t.Fatalf("no tray item %q", label)
	}
	call := conn.Object(trayDest(a.cmd.Process.Pid), "/StatusNotifierMenu").Call(
		"com.canonical.dbusmenu.Event", 0, it.id, "clicked", dbus.MakeVariant(int32(0)), uint32(time.Now().Unix()))
	if call.Err != nil {
		t.Logf("dbusmenu Event: %v (the app may have quit before replying)", call.Err)
	}
}

// registeredItems is the tray host's list of registered tray items.
func registeredItems(conn *dbus.Conn) []string {
	v, err := conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher").
		GetProperty("org.kde.StatusNotifierWatcher.RegisteredStatusNotifierItems")
	if err != nil {
		return nil
	}
	items, _ := v.Value().([]string)
	return items
}

// waitRegistered waits until the app's tray item is registered with the
// tray host.
func waitRegistered(t testing.TB, a *realApp, conn *dbus.Conn) {
	t.Helper()
	dest := trayDest(a.cmd.Process.Pid)
	testkit.WaitForWithin(t, 60*time.Second, "the tray item to register with the tray host", func() bool {
		a.alive()
		var owner string
		if conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, dest).Store(&owner) != nil {
			return false
		}
		for _, it := range registeredItems(conn) {
			if strings.HasPrefix(it, owner+"/") || it == owner || strings.HasPrefix(it, dest) {
				return true
			}
		}
		return false
	})
}

// notifications watches the session bus for desktop notifications sent
// to org.freedesktop.Notifications; their summaries arrive on the
// returned channel.
func notifications(t testing.TB) <-chan string {
	t.Helper()
	msgs := monitorBus(t, []string{"type='method_call',interface='org.freedesktop.Notifications',member='Notify'"}, 32)
	out := make(chan string, 32)
	go func() {
		for m := range msgs {
			if len(m.Body) >= 4 {
				if summary, ok := m.Body[3].(string); ok {
					select {
					case out <- summary:
					default:
					}
				}
			}
		}
	}()
	return out
}

// waitNotification waits for a notification whose summary contains want.
func waitNotification(t testing.TB, a *realApp, seen <-chan string, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case s := <-seen:
			t.Logf("notification: %q", s)
			if strings.Contains(s, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no notification %q within 30s", want)
		}
		a.alive()
	}
}

// dunstCount is how many notifications dunst has shown or holds.
func dunstCount(t testing.TB) int {
	t.Helper()
	total := 0
	for _, what := range []string{"displayed", "history", "waiting"} {
		out, err := exec.Command("dunstctl", "count", what).Output()
		if err != nil {
			t.Fatalf("dunstctl count %s: %v", what, err)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		total += n
	}
	return total
}

// pidAlive reports whether process pid exists.
func pidAlive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}
