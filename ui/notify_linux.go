package ui

import (
	"context"
	"log"
	"time"

	"fyne.io/fyne/v2"
	"github.com/godbus/dbus/v5"
)

// The freedesktop notification service (Desktop Notifications
// Specification 1.2).
const (
	notifyDest  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyIface = "org.freedesktop.Notifications"
	// notifyCallTimeout bounds one call to the notification daemon (a bus
	// with no daemon may try to activate one for 25 s).
	notifyCallTimeout = 5 * time.Second
)

// systemNotifications is the desktop's notification service: on Linux
// org.freedesktop.Notifications over the session bus, with Fyne's app
// name (the app ID) and icon, as Fyne's SendNotification sends them — but
// with an expire timeout, and with the id the daemon returns kept, so that
// the notification can be replaced and withdrawn (CloseNotification). nil
// without a session bus (Fyne's path then says why).
func systemNotifications(a fyne.App) notificationService {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil
	}
	return newBusNotifications(conn, a.UniqueID(), func() string { return cachedIcon(a) })
}

// busNotifications sends notices to org.freedesktop.Notifications. post
// and withdraw queue an operation (noticeQueue); one goroutine (run,
// started by newBusNotifications, ended by close) makes the calls in order
// and owns the ids of the notices shown, so a withdrawal that follows a
// post closes what that post showed even when the daemon had not answered
// it yet.
type busNotifications struct {
	noticeQueue
	conn    *dbus.Conn
	appName string
	icon    func() string // the icon's path; called once, by run
}

func newBusNotifications(conn *dbus.Conn, appName string, icon func() string) *busNotifications {
	b := &busNotifications{conn: conn, appName: appName, icon: icon}
	b.start(b.run)
	return b
}

// run makes the calls, in order, and forgets a notice the daemon reports
// closed (expired, dismissed).
func (b *busNotifications) run() {
	defer b.conn.Close()
	shown := map[string]uint32{} // key → the daemon's id of the notice shown with it
	signals := make(chan *dbus.Signal, 16)
	b.conn.Signal(signals)
	b.conn.AddMatchSignal(dbus.WithMatchObjectPath(notifyPath), dbus.WithMatchInterface(notifyIface),
		dbus.WithMatchMember("NotificationClosed"))
	icon, iconRead := "", false
	for {
		select {
		case <-b.wake:
			ops, closed := b.take()
			for _, op := range ops {
				switch {
				case op.withdraw:
					if id, ok := shown[op.n.key]; ok {
						delete(shown, op.n.key)
						b.call("CloseNotification", nil, id)
					}
				default:
					if !iconRead {
						icon, iconRead = b.icon(), true
					}
					var id uint32
					err := b.call("Notify", &id, b.appName, shown[op.n.key], icon, op.n.title, op.n.body,
						[]string{}, map[string]dbus.Variant{}, int32(op.n.expire/time.Millisecond))
					if err == nil && op.n.key != "" {
						shown[op.n.key] = id
					}
				}
			}
			if closed {
				for _, id := range shown {
					b.call("CloseNotification", nil, id)
				}
				return
			}
		case s := <-signals:
			if s == nil || s.Name != notifyIface+".NotificationClosed" || len(s.Body) < 1 {
				continue
			}
			if id, ok := s.Body[0].(uint32); ok {
				for key, shownID := range shown {
					if shownID == id {
						delete(shown, key)
					}
				}
			}
		}
	}
}

// call calls method of the notification service, storing its reply in
// reply (nil for none). A failure is logged: a notification is a
// courtesy, and what it says is also in the window and the tray.
func (b *busNotifications) call(method string, reply any, args ...any) error {
	ctx, cancel := context.WithTimeout(context.Background(), notifyCallTimeout)
	defer cancel()
	c := b.conn.Object(notifyDest, notifyPath).CallWithContext(ctx, notifyIface+"."+method, 0, args...)
	err := c.Err
	if err == nil && reply != nil {
		err = c.Store(reply)
	}
	if err != nil && method != "CloseNotification" { // closing one already gone is an error too
		log.Printf("desktop notification: %s: %v", method, err)
	}
	return err
}
