package app

import (
	"container/list"
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
func capConns(ln net.Listener, max int, log *slog.Logger, what string) *capListener {
	return &capListener{Listener: ln, slots: make(chan struct{}, max), done: make(chan struct{}), log: log, what: what}
}

// withFreshShare gives the connections that have not sent a whole
// request header a share of at most max of the cap (endpoint_fresh.go);
// the http.Server serving l must report to l.connState.
func (l *capListener) withFreshShare(max int) *capListener {
	l.fresh = freshConns{max: max, list: list.New()}
	return l
}

type capListener struct {
	net.Listener
	slots     chan struct{} // one per open connection
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	log       *slog.Logger
	what      string

	mu        sync.Mutex
	fullFrom  time.Time // guarded by mu: when the cap was hit, zero once the count has fallen to half since
	evictFrom time.Time // guarded by mu: when fresh connections were first closed for others, zero once they are down to half their share

	freshMu sync.Mutex
	fresh   freshConns // guarded by freshMu (its list; max is set before Accept runs)
}

func (l *capListener) Accept() (net.Conn, error) {
	if err := l.takeSlot(); err != nil {
		return nil, err
	}
	c, err := l.Listener.Accept()
	if err != nil {
		l.release()
		return nil, err
	}
	cc := &cappedConn{Conn: c, l: l}
	l.addFresh(cc)
	return cc, nil
}

// takeSlot waits for a free slot. At the cap, a fresh connection that had
// its grace is closed to make room (endpoint_fresh.go); while there is
// none, the wait is looked at again after freshGrace.
func (l *capListener) takeSlot() error {
	for {
		select {
		case l.slots <- struct{}{}:
			return nil
		default:
		}
		if l.evictForRoom() {
			continue
		}
		l.hitCap()
		var recheck <-chan time.Time
		if l.fresh.max > 0 {
			recheck = time.After(freshGrace)
		}
		select {
		case l.slots <- struct{}{}:
			return nil
		case <-l.done:
			return net.ErrClosed
		case <-recheck:
		}
	}
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

	freshAt time.Time     // guarded by l.freshMu: when it was accepted
	freshEl *list.Element // guarded by l.freshMu: its place in l.fresh.list, nil once not fresh
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.notFresh(c)
		c.l.release()
	})
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
