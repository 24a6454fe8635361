//go:build linux

package keyring

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dbus "github.com/godbus/dbus/v5"
)

// runChild runs Get(name) in a child process with the given extra
// environment and returns what it saw.
func runChild(t *testing.T, name string, env ...string) childResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + name}, env...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var r childResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("child output %q: %v", out, err)
	}
	return r
}

func wantUnavailable(t *testing.T, r childResult, reason string) {
	t.Helper()
	want := `reading "probe": ` + reason
	if r.Message != want {
		t.Errorf("message:\n got: %s\nwant: %s", r.Message, want)
	}
	if !r.Unavailable {
		t.Error("the error does not match ErrUnavailable")
	}
	if r.NotFound {
		t.Error("the error matches ErrNotFound")
	}
	if r.Detail == "" || r.Detail == "<nil>" {
		t.Error("the underlying detail is lost")
	}
	t.Logf("shown: %s\ndetail: %s", r.Message, r.Detail)
}

func TestNoSessionBus(t *testing.T) {
	r := runChild(t, "probe", "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent")
	wantUnavailable(t, r, "no session D-Bus, which the keyring needs: run mcptray inside a desktop session "+
		"(DBUS_SESSION_BUS_ADDRESS is unset or points nowhere)")
}

func TestNoSecretService(t *testing.T) {
	addr := privateBus(t)
	r := runChild(t, "probe", "DBUS_SESSION_BUS_ADDRESS="+addr)
	wantUnavailable(t, r, "no Secret Service on the session D-Bus: start gnome-keyring (or another Secret Service) and unlock it")
}

func TestLockedKeyring(t *testing.T) {
	daemon := needTool(t, "gnome-keyring-daemon")
	addr := privateBus(t)
	home := t.TempDir()
	// A fresh gnome-keyring, never unlocked: it has no unlocked default
	// collection, and on this bus no prompter can ask for a password.
	cmd := exec.Command(daemon, "--foreground", "--components=secrets")
	cmd.Env = append(os.Environ(),
		"DBUS_SESSION_BUS_ADDRESS="+addr,
		"HOME="+home,
		"XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_RUNTIME_DIR="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"),
	)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	waitForName(t, addr, "org.freedesktop.secrets")

	r := runChild(t, "probe", "DBUS_SESSION_BUS_ADDRESS="+addr, "HOME="+home)
	wantUnavailable(t, r, "the keyring is locked: unlock the default (login) keyring, for example in Seahorse, and try again")
}

// privateBus starts a session-type dbus-daemon that can activate no
// services, and returns its address.
func privateBus(t *testing.T) string {
	t.Helper()
	daemon := needTool(t, "dbus-daemon")
	dir := t.TempDir()
	conf := filepath.Join(dir, "session.conf")
	err := os.WriteFile(conf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=`+dir+`</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(daemon, "--config-file="+conf, "--nofork", "--print-address=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// dbus-daemon prints its address once it listens.
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		if a == "" {
			t.Fatal("dbus-daemon printed no address")
		}
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("dbus-daemon printed no address within 10s")
	}
	return ""
}

// waitForName waits until a client owns name on the bus at addr.
func waitForName(t *testing.T, addr, name string) {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// NameOwnerChanged tells when it happens; subscribe before checking.
	if err := conn.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, name)); err != nil {
		t.Fatal(err)
	}
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for !has {
		select {
		case s := <-signals:
			if len(s.Body) == 3 && s.Body[0] == name && s.Body[2] != "" {
				has = true
			}
		case <-deadline:
			t.Fatalf("nobody took %s on the bus within 10s", name)
		}
	}
}

// D-Bus replies that the tests above cannot provoke with a real daemon.
func TestUnavailableReasonForDBusReplies(t *testing.T) {
	for _, tc := range []struct {
		in   error
		want string
	}{
		{dbus.Error{Name: "org.freedesktop.DBus.Error.NoReply", Body: []any{"Did not receive a reply"}},
			"the Secret Service on the session D-Bus does not answer: restart gnome-keyring (or your Secret Service)"},
		{&dbus.Error{Name: "org.freedesktop.Secret.Error.IsLocked"},
			"the keyring is locked: unlock the default (login) keyring, for example in Seahorse, and try again"},
		{dbus.Error{Name: "org.freedesktop.DBus.Error.Spawn.ChildExited", Body: []any{"Process exited with status 1"}},
			"no Secret Service on the session D-Bus: start gnome-keyring (or another Secret Service) and unlock it"},
		{dbus.Error{Name: "org.freedesktop.Secret.Error.NoSuchObject", Body: []any{"No such item\nat path /x"}},
			"the Secret Service refused the request: No such item"},
		{dbus.ErrClosed,
			"no session D-Bus, which the keyring needs: run mcptray inside a desktop session (DBUS_SESSION_BUS_ADDRESS is unset or points nowhere)"},
	} {
		got := classify(tc.in, "")
		if !errors.Is(got, ErrUnavailable) || got.Error() != tc.want {
			t.Errorf("classify(%#v):\n got: %v (unavailable: %v)\nwant: %s", tc.in, got, errors.Is(got, ErrUnavailable), tc.want)
		}
		if !errors.Is(got, tc.in) && !errors.As(got, new(dbus.Error)) && !errors.As(got, new(*dbus.Error)) {
			t.Errorf("classify(%#v) lost the detail", tc.in)
		}
	}
	// An error the package does not recognise passes through unchanged.
	other := errors.New("something else")
	if got := classify(other, ""); got != other || errors.Is(got, ErrUnavailable) {
		t.Errorf("classify(%v) = %v", other, got)
	}
}
