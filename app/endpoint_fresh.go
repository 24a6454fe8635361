package app

import (
	"container/list"
	"net"
	"net/http"
	"time"
)

// Connections that have not sent a whole request header yet ("fresh").
// The bearer token is in the header, so until it has arrived a connection
// may be anyone's: a local program that opens connections and sends their
// headers slowly could otherwise hold every slot of the cap (capConns)
// and make a client with the token wait in the kernel's queue until their
// header deadline. Fresh connections get a share of the cap
// (maxFreshConns): past it, and whenever the cap is reached, the oldest
// fresh connection that has had freshGrace to send its header is answered
// 503 and closed. A client sends its header as soon as it is connected,
// so only a connection that holds it back is closed; the grace keeps a
// burst of real clients, accepted before any of them was read, from
// closing one another. A connection stops being fresh when net/http has
// read its first header (http.StateActive, reported by connState).
const (
	maxFreshConns = 64
	freshGrace    = 100 * time.Millisecond
)

// evictAnswer is what a fresh connection closed for another gets.
const evictAnswer = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n" +
	"Content-Length: 58\r\n\r\ntoo many connections waiting to send their request header\n"

// freshConns is the fresh connections of a capListener, oldest first.
// Its methods hold capListener.freshMu.
type freshConns struct {
	max  int        // maxFreshConns; 0 for no share (nothing tracked)
	list *list.List // of *cappedConn
}

// addFresh records c as fresh and closes the fresh connections over the
// share that had their grace.
func (l *capListener) addFresh(c *cappedConn) {
	if l.fresh.max == 0 {
		return
	}
	l.freshMu.Lock()
	c.freshAt = time.Now()
	c.freshEl = l.fresh.list.PushBack(c)
	var evict []*cappedConn
	for l.fresh.list.Len() > l.fresh.max {
		old := l.oldestGraced()
		if old == nil {
			break
		}
		evict = append(evict, old)
	}
	l.freshMu.Unlock()
	l.evict(evict)
}

// evictForRoom closes the oldest fresh connection that had its grace, to
// make room at the cap; it reports whether there was one.
func (l *capListener) evictForRoom() bool {
	if l.fresh.max == 0 {
		return false
	}
	l.freshMu.Lock()
	old := l.oldestGraced()
	l.freshMu.Unlock()
	if old == nil {
		return false
	}
	l.evict([]*cappedConn{old})
	return true
}

// oldestGraced takes the oldest fresh connection out of the list if it
// had its grace; nil otherwise. freshMu is held.
func (l *capListener) oldestGraced() *cappedConn {
	e := l.fresh.list.Front()
	if e == nil {
		return nil
	}
	c := e.Value.(*cappedConn)
	if time.Since(c.freshAt) < freshGrace {
		return nil
	}
	l.fresh.list.Remove(e)
	c.freshEl = nil
	return c
}

// notFresh forgets c as fresh (its header arrived, or it closed).
func (l *capListener) notFresh(c *cappedConn) {
	if l.fresh.max == 0 {
		return
	}
	l.freshMu.Lock()
	was := c.freshEl != nil
	if was {
		l.fresh.list.Remove(c.freshEl)
		c.freshEl = nil
	}
	calm := l.fresh.list.Len() <= l.fresh.max/2
	l.freshMu.Unlock()
	if was && calm {
		l.mu.Lock()
		l.evictFrom = time.Time{} // the next burst is logged again
		l.mu.Unlock()
	}
}

// evict answers each of cs 503 and closes it, logging once per burst.
func (l *capListener) evict(cs []*cappedConn) {
	if len(cs) == 0 {
		return
	}
	l.mu.Lock()
	if l.evictFrom.IsZero() {
		l.evictFrom = time.Now()
		l.log.Warn(l.what+": too many connections still sending their request header; closing the oldest", "share", l.fresh.max)
	}
	l.mu.Unlock()
	for _, c := range cs {
		// Nothing was written to it before: the answer fits in the
		// socket's buffer, and the deadline keeps a full one from
		// blocking Accept.
		c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
		c.Conn.Write([]byte(evictAnswer))
		c.Close()
	}
}

// connState is the http.Server's ConnState hook: a connection whose
// header was read (or that was hijacked or closed) is no longer fresh.
func (l *capListener) connState(c net.Conn, s http.ConnState) {
	if s == http.StateNew {
		return
	}
	if cc, ok := c.(*cappedConn); ok {
		l.notFresh(cc)
	}
}
