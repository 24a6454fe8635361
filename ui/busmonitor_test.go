//go:build linux

package ui

import (
	"testing"

	"github.com/godbus/dbus/v5"
)

// monitorBus turns a new session-bus connection into a monitor of the
// messages that match rules, and returns them. The cleanup stops the
// eavesdropping before it closes the connection: godbus v5.2.4's Close
// closes the channel while its reader may still select a send to it
// ("send on closed channel" in Conn.inWorker when a message arrives
// during Close), so the channel is taken back under godbus's own lock
// first and closed here, where no send can follow.
func monitorBus(t testing.TB, rules []string, buffer int) <-chan *dbus.Message {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatalf("connecting to the session bus: %v", err)
	}
	if call := conn.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0, rules, uint32(0)); call.Err != nil {
		conn.Close()
		t.Fatalf("monitoring the session bus: %v", call.Err)
	}
	msgs := make(chan *dbus.Message, buffer)
	conn.Eavesdrop(msgs)
	t.Cleanup(func() {
		conn.Eavesdrop(nil)
		close(msgs)
		conn.Close()
	})
	return msgs
}
