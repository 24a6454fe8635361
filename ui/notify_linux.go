package ui

import (
	"context"
	"log"
	"os"
	"path/filepath"
	"sync"
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
	// maxQueuedNotices is how many posts may wait for the daemon; more are
	// dropped (a withdrawal is always kept).
	maxQueuedNotices = 64
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

// cachedIcon writes the app's icon where Fyne keeps it for its own
// notifications (the user cache dir, fyne/<app ID>/icon.png) and returns
// its path; "" when there is none.
func cachedIcon(a fyne.App) string {
	icon := a.Icon()
	cache, err := os.UserCacheDir()
	if icon == nil || err != nil {
		return ""
	}
	dir := filepath.Join(cache, "fyne", a.UniqueID())
	path := filepath.Join(dir, "icon.png")
	if os.MkdirAll(dir, 0o700) != nil || os.WriteFile(path, icon.Content(), 0o600) != nil {
		return ""
	}
	return path
}

// busNotifications sends notices to org.freedesktop.Notifications. post
// and withdraw queue an operation; one goroutine (run, started by
// newBusNotifications, ended by close) makes the calls in order and owns
// the ids of the notices shown, so a withdrawal that follows a post
// closes what that post showed even when the daemon had not answered it
// yet.
type busNotifications struct {
	conn    *dbus.Conn
	appName string
	icon    func() string // the icon's path; called once, by run

	mu     sync.Mutex
	queue  []notifyOp    // guarded by mu
	posts  int           // posts in queue; guarded by mu
	closed bool          // guarded by mu
	wake   chan struct{} // a value when queue or closed changed (cap 1)
	done   chan struct{} // closed when run has returned
}

// notifyOp is one queued operation: a post of n, or a withdrawal of n.key.
type notifyOp struct {
	withdraw bool
	n        notice
}

func newBusNotifications(conn *dbus.Conn, appName string, icon func() string) *busNotifications {
	b := &busNotifications{conn: conn, appName: appName, icon: icon,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go b.run()
	return b
}

func (b *busNotifications) post(n notice) { b.add(notifyOp{n: n}) }

func (b *busNotifications) withdraw(key string) {
	if key != "" {
		b.add(notifyOp{withdraw: true, n: notice{key: key}})
	}
}

func (b *busNotifications) add(op notifyOp) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || (!op.withdraw && b.posts >= maxQueuedNotices) {
		return
	}
	if !op.withdraw {
		b.posts++
	}
	b.queue = append(b.queue, op)
	b.signal()
}

// signal wakes run; called with mu held.
func (b *busNotifications) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// close withdraws the notices still shown by key (their requests end with
// the app), waits for that and disconnects.
func (b *busNotifications) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		b.signal()
	}
	b.mu.Unlock()
	<-b.done
}

// take returns the queued operations and whether close was called.
func (b *busNotifications) take() ([]notifyOp, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ops := b.queue
	b.queue, b.posts = nil, 0
	return ops, b.closed
}

// run makes the calls, in order, and forgets a notice the daemon reports
// closed (expired, dismissed).
func (b *busNotifications) run() {
	defer close(b.done)
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
