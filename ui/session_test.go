package ui

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// TestRealWindow opens the real app (GL driver, tray over D-Bus) in the
// desktop session of scripts/desktop-session.sh, takes a screenshot of its
// window, then quits it through its tray menu. It runs only inside that
// session (MCPTRAY_TEST_SESSION=1) and fails, rather than skips, when the
// session is there but broken.
func TestRealWindow(t *testing.T) {
	if os.Getenv("MCPTRAY_TEST_SESSION") != "1" {
		t.Skip("needs a desktop session: run under scripts/desktop-session.sh (make test does)")
	}
	for _, v := range []string{"DISPLAY", "DBUS_SESSION_BUS_ADDRESS"} {
		if os.Getenv(v) == "" {
			t.Fatalf("MCPTRAY_TEST_SESSION=1 but %s is not set", v)
		}
	}
	for _, tool := range []string{"xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("MCPTRAY_TEST_SESSION=1 but %s is missing (run scripts/deps.sh)", tool)
		}
	}

	home := t.TempDir()
	var out syncBuffer
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"=1", "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
	child.Stdout = &out
	child.Stderr = &out
	if err := child.Start(); err != nil {
		t.Fatalf("starting the app: %v", err)
	}
	exited := make(chan error, 1) // holds the child's exit until received for good
	go func() { exited <- child.Wait() }()
	reaped := false
	defer func() {
		if !reaped {
			child.Process.Kill()
			<-exited
		}
		t.Logf("app output:\n%s", out.String())
	}()

	// alive fails the test if the app has exited.
	alive := func() {
		t.Helper()
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("the app exited early (%v)", err)
		default:
		}
	}

	var win string
	waitFor(t, 90*time.Second, "the mcptray window to be mapped", func() bool {
		alive()
		o, _ := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^mcptray$").Output()
		win = strings.TrimSpace(string(o))
		return win != ""
	})
	t.Logf("window id %s", win)

	shot := filepath.Join(artifactsDir(t), "real-window.png")
	var colours int
	waitFor(t, 60*time.Second, "the window to be drawn", func() bool {
		alive()
		if err := exec.Command("import", "-window", "root", shot).Run(); err != nil {
			t.Logf("import: %v", err)
			return false
		}
		colours = countColours(t, shot)
		return colours >= 16
	})
	t.Logf("screenshot with %d colours: %s", colours, shot)

	menu := trayMenu(t, child.Process.Pid, alive)
	quit, ok := menu["Quit"]
	if !ok {
		t.Fatalf("tray menu %v has no Quit", menu)
	}
	if _, ok := menu["Open mcptray"]; !ok {
		t.Errorf("tray menu %v has no Open mcptray", menu)
	}
	clickTrayItem(t, child.Process.Pid, quit)

	select {
	case err := <-exited:
		reaped = true
		if err != nil {
			t.Errorf("the app exited with %v after Quit", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the app did not exit within 30s of Quit")
	}
	o := out.String()
	if !strings.Contains(o, childDone+"<nil>") {
		t.Errorf("the app's output lacks %q", childDone+"<nil>")
	}
	if strings.Contains(o, "Error in Fyne call thread") {
		t.Error("Fyne thread check failed in the app (see its output)")
	}
}

// waitFor polls cond until it holds, failing t after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		<-tick.C
	}
}

// artifactsDir is where tests leave files worth looking at after a run:
// $MCPTRAY_ARTIFACTS (make test sets it) or a temp dir of the test.
func artifactsDir(t *testing.T) string {
	dir := os.Getenv("MCPTRAY_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("making the artifacts dir: %v", err)
	}
	return dir
}

// countColours counts the distinct colours in the PNG at path (up to 1000).
func countColours(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= 1000 {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// trayDest is the D-Bus name fyne.io/systray exports its tray item under.
func trayDest(pid int) string { return fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", pid) }

// trayMenu waits for the app's tray item, then returns its menu's labels
// mapped to their dbusmenu item ids.
func trayMenu(t *testing.T, pid int, alive func()) map[string]int32 {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connecting to the session bus: %v", err)
	}
	defer conn.Close()
	dest := trayDest(pid)
	waitFor(t, 30*time.Second, dest+" on the session bus", func() bool {
		alive()
		var has bool
		err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, dest).Store(&has)
		return err == nil && has
	})

	menu := map[string]int32{}
	waitFor(t, 30*time.Second, "the tray menu to have items", func() bool {
		alive()
		var rev uint32
		var root menuLayout
		err := conn.Object(dest, "/StatusNotifierMenu").Call(
			"com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &root)
		if err != nil {
			t.Logf("GetLayout: %v", err)
			return false
		}
		clear(menu)
		collectMenu(root.Children, menu)
		return len(menu) > 0
	})
	return menu
}

// menuLayout is a dbusmenu layout node: (ia{sv}av).
type menuLayout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

func collectMenu(children []dbus.Variant, into map[string]int32) {
	for _, v := range children {
		fields, ok := v.Value().([]any)
		if !ok || len(fields) != 3 {
			continue
		}
		id, _ := fields[0].(int32)
		props, _ := fields[1].(map[string]dbus.Variant)
		if label, ok := props["label"].Value().(string); ok && label != "" {
			into[label] = id
		}
		if sub, ok := fields[2].([]dbus.Variant); ok {
			collectMenu(sub, into)
		}
	}
}

// clickTrayItem clicks the tray menu item id, the way a tray host does.
func clickTrayItem(t *testing.T, pid int, id int32) {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connecting to the session bus: %v", err)
	}
	defer conn.Close()
	call := conn.Object(trayDest(pid), "/StatusNotifierMenu").Call(
		"com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(int32(0)), uint32(time.Now().Unix()))
	if call.Err != nil {
		t.Logf("dbusmenu Event: %v (the app may have quit before replying)", call.Err)
	}
}
