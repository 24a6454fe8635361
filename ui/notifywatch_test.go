//go:build linux

package ui

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/mcptray/mcptray/internal/testkit"
)

// notifyWatch records, as a D-Bus monitor on the session bus, what is said
// to and by org.freedesktop.Notifications (the test session's dunst): each
// Notify call with the id the daemon returned, each CloseNotification
// call, and each NotificationClosed signal with its reason.
type notifyWatch struct {
	mu      sync.Mutex
	log     []string               // every call and signal seen, in order ("Notify …", "Close 7", "Closed 7 3"); guarded by mu
	sent    []*sentNotice          // guarded by mu
	next    int                    // sent[next:] are still to be waited for (waitSent); guarded by mu
	calls   map[string]*sentNotice // sender + serial of a Notify call → its notice, until the reply; guarded by mu
	reasons map[uint32]uint32      // id → the reason of its NotificationClosed; guarded by mu
}

// sentNotice is one Notify call.
type sentNotice struct {
	app, summary, body string
	replaces           uint32
	expire             int32  // milliseconds; 0: never
	id                 uint32 // the daemon's reply; 0 until it came
}

// Reasons of NotificationClosed.
const (
	closedExpired   = 1
	closedDismissed = 2
	closedByCall    = 3
)

func watchNotifications(t testing.TB) *notifyWatch {
	t.Helper()
	msgs := monitorBus(t, []string{
		"type='method_call',interface='org.freedesktop.Notifications'",
		"type='signal',interface='org.freedesktop.Notifications'",
		"type='method_return'",
	}, 64)
	w := &notifyWatch{calls: map[string]*sentNotice{}, reasons: map[uint32]uint32{}}
	go func() {
		for m := range msgs {
			w.see(m)
		}
	}()
	return w
}

func header(m *dbus.Message, f dbus.HeaderField) string {
	if v, ok := m.Headers[f]; ok {
		return fmt.Sprint(v.Value())
	}
	return ""
}

func (w *notifyWatch) see(m *dbus.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case m.Type == dbus.TypeMethodCall && header(m, dbus.FieldMember) == "Notify" && len(m.Body) == 8:
		n := &sentNotice{}
		n.app, _ = m.Body[0].(string)
		n.replaces, _ = m.Body[1].(uint32)
		n.summary, _ = m.Body[3].(string)
		n.body, _ = m.Body[4].(string)
		n.expire, _ = m.Body[7].(int32)
		w.sent = append(w.sent, n)
		w.calls[header(m, dbus.FieldSender)+"/"+fmt.Sprint(m.Serial())] = n
		w.log = append(w.log, fmt.Sprintf("Notify %q", n.summary))
	case m.Type == dbus.TypeMethodCall && header(m, dbus.FieldMember) == "CloseNotification" && len(m.Body) == 1:
		w.log = append(w.log, fmt.Sprintf("Close %v", m.Body[0]))
	case m.Type == dbus.TypeSignal && header(m, dbus.FieldMember) == "NotificationClosed" && len(m.Body) == 2:
		id, _ := m.Body[0].(uint32)
		reason, _ := m.Body[1].(uint32)
		w.reasons[id] = reason
		w.log = append(w.log, fmt.Sprintf("Closed %d %d", id, reason))
	case m.Type == dbus.TypeMethodReply && len(m.Body) == 1:
		key := header(m, dbus.FieldDestination) + "/" + header(m, dbus.FieldReplySerial)
		if n := w.calls[key]; n != nil {
			delete(w.calls, key)
			n.id, _ = m.Body[0].(uint32)
		}
	}
}

// waitSent waits for the next Notify call whose summary contains want,
// answered by the daemon, and returns it: the first after the one the
// last waitSent returned. alive is checked while waiting.
func (w *notifyWatch) waitSent(t testing.TB, alive func(), want string) sentNotice {
	t.Helper()
	var got sentNotice
	testkit.WaitFor(t, fmt.Sprintf("a notification %q shown by the daemon", want), func() bool {
		if alive != nil {
			alive()
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		for i, n := range w.sent[w.next:] {
			if strings.Contains(n.summary, want) && n.id != 0 {
				got, w.next = *n, w.next+i+1
				return true
			}
		}
		return false
	})
	return got
}

// waitClosed waits for the daemon to report notification id closed, and
// fails unless it was for reason.
func (w *notifyWatch) waitClosed(t testing.TB, alive func(), n sentNotice, reason uint32) {
	t.Helper()
	var got uint32
	testkit.WaitFor(t, fmt.Sprintf("notification %d (%q) to be closed", n.id, n.summary), func() bool {
		if alive != nil {
			alive()
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		got = w.reasons[n.id]
		return got != 0
	})
	if got != reason {
		t.Errorf("notification %d (%q) closed for reason %d, want %d (1 expired, 2 dismissed, 3 CloseNotification)", n.id, n.summary, got, reason)
	}
}

// since returns what was seen after the first n entries of the log.
func (w *notifyWatch) since(n int) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.log[min(n, len(w.log)):]...)
}
