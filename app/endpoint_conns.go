package app

import (
	"log/slog"
	"net"
	"sync"
	"time"
)

// capConns returns ln accepting at most max connections at a time. At the
// cap, Accept waits until one of them is closed: the connections beyond it
// wait in the kernel's accept queue, holding none of this process's
// descriptors, so a flood of connections to the HTTP endpoint cannot take
// the control socket, the servers' pipes and the store to the descriptor
// limit. Hitting the cap is logged once (what) until the count has fallen
// to half of it, when a second line says how long the burst lasted. (The
// count includes the slot an Accept holds while it waits for a
// connection.)
func capConns(ln net.Listener, max int, log *slog.Logger, what string) net.Listener {
	return &capListener{Listener: ln, slots: make(chan struct{}, max), done: make(chan struct{}), log: log, what: what}
}

type capListener struct {
	net.Listener
	slots     chan struct{} // one per open connection
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	log       *slog.Logger
	what      string

	mu       sync.Mutex
	fullFrom time.Time // guarded by mu: when the cap was hit, zero once the count has fallen to half since
}

func (l *capListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.hitCap()
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		l.release()
		return nil, err
	}
	return &cappedConn{Conn: c, l: l}, nil
}

func (l *capListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

func (l *capListener) hitCap() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fullFrom.IsZero() {
		l.fullFrom = time.Now()
		l.log.Warn(l.what+" at its connection cap: new connections wait until one closes", "cap", cap(l.slots))
	}
}

func (l *capListener) release() {
	<-l.slots
	if len(l.slots) > cap(l.slots)/2 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.fullFrom.IsZero() {
		l.log.Info(l.what+" below its connection cap again", "after", time.Since(l.fullFrom).Round(time.Millisecond).String())
		l.fullFrom = time.Time{}
	}
}

// cappedConn frees its slot when closed.
type cappedConn struct {
	net.Conn
	l    *capListener
	once sync.Once
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.l.release)
	return err
}

// CloseWrite is the connection's: net/http half-closes a connection it
// ends with a request body unread (after a 413, say), so that the client
// reads the answer before the reset.
func (c *cappedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
