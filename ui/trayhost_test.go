//go:build linux

package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"

	"github.com/mcptray/mcptray/internal/testkit"
)

// A tray host for the desktop-session tests: xfce4-panel with only its
// systray plugin when it is installed (a real host: the icon shows and its
// menu can be opened and photographed), else a StatusNotifierWatcher of
// the test's own. MCPTRAY_TEST_TRAY_HOST=watcher forces the latter.

// startTrayHost starts a tray host that lives until t ends, waits until it
// owns org.kde.StatusNotifierWatcher, and reports whether it is a real
// panel.
func startTrayHost(t testing.TB) (panel bool) {
	t.Helper()
	conn := sessionBus(t)
	if ownerOf(conn, "org.kde.StatusNotifierWatcher") != "" {
		t.Fatal("a StatusNotifierWatcher is already on the session bus")
	}
	if _, err := exec.LookPath("xfce4-panel"); err == nil && os.Getenv("MCPTRAY_TEST_TRAY_HOST") != "watcher" {
		startPanel(t)
		panel = true
	} else {
		startWatcher(t)
	}
	testkit.WaitForWithin(t, 60*time.Second, "a StatusNotifierWatcher on the session bus", func() bool {
		return ownerOf(conn, "org.kde.StatusNotifierWatcher") != ""
	})
	return panel
}

func ownerOf(conn *dbus.Conn, name string) string {
	var owner string
	if conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, name).Store(&owner) != nil {
		return ""
	}
	return owner
}

// panelConfig is an xfce4-panel with one panel along the bottom of the screen
// (windows open at the top left: no window manager places them)
// holding only the notification area (systray, which hosts
// StatusNotifierItems).
const panelConfig = `<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=10;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="32"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="systray"/>
  </property>
</channel>
`

// startPanel starts xfconfd (reading a config of the test's own) and
// xfce4-panel, each in its own process group, ended with t.
func startPanel(t testing.TB) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config")
	channel := filepath.Join(cfg, "xfce4", "xfconf", "xfce-perchannel-xml")
	if err := os.MkdirAll(channel, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(channel, "xfce4-panel.xml"), []byte(panelConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+cfg,
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	conn := sessionBus(t)
	xfconfd, _ := filepath.Glob("/usr/lib/*/xfce4/xfconf/xfconfd")
	if len(xfconfd) == 0 {
		t.Fatal("xfce4-panel is installed but xfconfd is not found")
	}
	// xfconfd is bus-activated with the bus's environment otherwise: start
	// it first, with ours, so the panel reads the config above.
	startDaemon(t, dir, "xfconfd", env, xfconfd[0])
	testkit.WaitFor(t, "xfconfd on the session bus", func() bool {
		return ownerOf(conn, "org.xfce.Xfconf") != ""
	})
	// Without a window manager the panel waits ≈ 10 s before it shows.
	startDaemon(t, dir, "panel", env, "xfce4-panel", "--disable-wm-check")
}

// startDaemon starts a helper process in its own process group, logging to
// dir/name.log, and kills the group when t ends.
func startDaemon(t testing.TB, dir, name string, env []string, argv ...string) {
	t.Helper()
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		logf.Close()
		if b, _ := os.ReadFile(logf.Name()); len(b) > 0 && t.Failed() {
			t.Logf("%s log:\n%s", name, b)
		}
	})
}

// watcher is a minimal org.kde.StatusNotifierWatcher: it records the
// items that register and says a host is there.
type watcher struct {
	conn  *dbus.Conn
	props *prop.Properties
	mu    sync.Mutex // guards items
	items []string
}

func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	item := service
	if strings.HasPrefix(service, "/") {
		item = string(sender) + service
	}
	w.mu.Lock()
	w.items = append(w.items, item)
	items := append([]string(nil), w.items...)
	w.mu.Unlock()
	w.props.SetMust("org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems", items)
	w.conn.Emit("/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher.StatusNotifierItemRegistered", item)
	return nil
}

func (w *watcher) RegisterStatusNotifierHost(string) *dbus.Error { return nil }

// startWatcher owns org.kde.StatusNotifierWatcher until t ends.
func startWatcher(t testing.TB) {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	w := &watcher{conn: conn}
	const iface = "org.kde.StatusNotifierWatcher"
	if err := conn.Export(w, "/StatusNotifierWatcher", iface); err != nil {
		t.Fatal(err)
	}
	w.props, err = prop.Export(conn, "/StatusNotifierWatcher", prop.Map{iface: {
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
		"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
	}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName(iface, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: %v (reply %d)", iface, err, reply)
	}
}
