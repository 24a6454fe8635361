package ssh

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/pkg/sftp"
)

// Pool timings (DESIGN.md §10).
const (
	DefaultIdleTimeout = 5 * time.Minute  // an unused connection is closed after this
	DefaultKeepAlive   = 30 * time.Second // keepalive@openssh.com interval; no reply within it ends the connection
	// pingAfter: a pooled connection unused for longer is pinged before
	// it is handed out, and redialled once if it does not answer.
	pingAfter   = time.Second
	pingTimeout = 5 * time.Second
)

// pool keeps one SSH connection per alias. A connection is reused while
// its alias's settings stay the same, closed after idle unused time, and
// kept alive (and its death noticed) by keepalives.
type pool struct {
	idle, keepAlive time.Duration
	log             *slog.Logger

	mu     sync.Mutex // guards slots and closed
	slots  map[string]*slot
	closed bool
}

// slot is one alias's place in the pool.
type slot struct {
	mu sync.Mutex // held while a connection is handed out or dialled; guards c
	c  *conn
}

// conn is one pooled connection. Users call release when done with it.
type conn struct {
	p     *pool
	alias string
	key   string // the alias's settings when dialled
	d     *dialed
	dead  chan struct{} // closed when the connection has ended

	mu      sync.Mutex // guards the fields below
	users   int
	lastUse time.Time
	timer   *time.Timer // the idle timer, while users == 0
	closing bool        // no new users; closed when the last one leaves
	sftp    *sftp.Client
}

func newPool(idle, keepAlive time.Duration, log *slog.Logger) *pool {
	return &pool{idle: idle, keepAlive: keepAlive, log: log, slots: map[string]*slot{}}
}

var errPoolClosed = errors.New("the SSH server is shutting down")

// get returns a connection for a, dialling with dial when there is none,
// when the alias changed, or when the pooled one is dead (it is pinged
// first when it was unused for a while). fresh says whether it was
// dialled now.
func (p *pool) get(ctx context.Context, a Alias, dial func() (*dialed, error)) (c *conn, fresh bool, err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, false, errPoolClosed
	}
	s := p.slots[a.Name]
	if s == nil {
		s = &slot{}
		p.slots[a.Name] = s
	}
	p.mu.Unlock()

	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.c; c != nil {
		if c.key == a.key() && c.acquire() {
			if c.alive(ctx) {
				return c, false, nil
			}
			p.log.Info("pooled connection is dead; redialling", "alias", a.Name)
			c.release()
		}
		c.retire()
		s.c = nil
	}
	d, err := dial()
	if err != nil {
		return nil, false, err
	}
	c = &conn{p: p, alias: a.Name, key: a.key(), d: d, dead: make(chan struct{}), lastUse: time.Now()}
	go c.watch()
	c.acquire()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.release()
		c.retire()
		return nil, false, errPoolClosed
	}
	p.mu.Unlock()
	s.c = c
	return c, true, nil
}

// drop closes the alias's connection (when its alias changes or goes).
func (p *pool) drop(alias string) {
	p.mu.Lock()
	s := p.slots[alias]
	p.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		s.c.retire()
		s.c = nil
	}
}

// close closes every connection; in-flight calls fail.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	slots := p.slots
	p.slots = map[string]*slot{}
	p.mu.Unlock()
	for _, s := range slots {
		s.mu.Lock()
		if s.c != nil {
			s.c.shut()
			s.c = nil
		}
		s.mu.Unlock()
	}
}

// live counts the connections that have not ended (for tests).
func (p *pool) live() int {
	p.mu.Lock()
	slots := make([]*slot, 0, len(p.slots))
	for _, s := range p.slots {
		slots = append(slots, s)
	}
	p.mu.Unlock()
	n := 0
	for _, s := range slots {
		s.mu.Lock()
		if s.c != nil && !s.c.isDead() {
			n++
		}
		s.mu.Unlock()
	}
	return n
}

func (c *conn) acquire() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing || c.isDead() {
		return false
	}
	c.users++
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	return true
}

// release ends one use; the last user starts the idle timer, or closes a
// retired connection.
func (c *conn) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.users--
	c.lastUse = time.Now()
	if c.users > 0 {
		return
	}
	if c.closing {
		go c.shut()
		return
	}
	c.timer = time.AfterFunc(c.p.idle, c.expire)
}

// expire closes the connection if it is still unused.
func (c *conn) expire() {
	c.mu.Lock()
	if c.users > 0 || c.closing || time.Since(c.lastUse) < c.p.idle {
		c.mu.Unlock()
		return
	}
	c.closing = true
	c.mu.Unlock()
	c.p.log.Info("closing idle connection", "alias", c.alias, "idle", c.p.idle)
	c.shut()
}

// retire stops handing the connection out; it closes when unused.
func (c *conn) retire() {
	c.mu.Lock()
	c.closing = true
	unused := c.users == 0
	c.mu.Unlock()
	if unused {
		c.shut()
	}
}

// shut closes the SFTP client and the connection (and its jump hosts').
func (c *conn) shut() {
	c.mu.Lock()
	c.closing = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	sc := c.sftp
	c.sftp = nil
	c.mu.Unlock()
	if sc != nil {
		sc.Close()
	}
	c.d.close()
}

func (c *conn) isDead() bool {
	select {
	case <-c.dead:
		return true
	default:
		return false
	}
}

// watch notices the end of the connection and sends keepalives; a
// keepalive without a reply within the interval ends the connection.
func (c *conn) watch() {
	ended := make(chan struct{})
	go func() {
		c.d.client.Wait()
		close(ended)
	}()
	t := time.NewTicker(c.p.keepAlive)
	defer t.Stop()
	for {
		select {
		case <-ended:
			c.mu.Lock()
			c.closing = true
			c.mu.Unlock()
			close(c.dead)
			c.shut() // the jump hosts' connections, and the SFTP client
			return
		case <-t.C:
			if err := c.ping(c.p.keepAlive); err != nil {
				c.p.log.Info("keepalive failed; closing the connection", "alias", c.alias, "err", err)
				c.d.client.Close()
			}
		}
	}
}

// ping sends keepalive@openssh.com and waits for any reply.
func (c *conn) ping(timeout time.Duration) error {
	done := make(chan error, 1)
	go func() {
		_, _, err := c.d.client.SendRequest("keepalive@openssh.com", true, nil)
		done <- err
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("no reply within %s", timeout)
	}
}

// alive says whether a connection about to be reused still answers.
func (c *conn) alive(ctx context.Context) bool {
	if c.isDead() {
		return false
	}
	c.mu.Lock()
	recent := time.Since(c.lastUse) < pingAfter
	c.mu.Unlock()
	if recent {
		return true
	}
	if err := c.ping(pingTimeout); err != nil {
		c.d.client.Close()
		return false
	}
	return true
}

// sftpClient returns the connection's SFTP client, starting it on first use.
func (c *conn) sftpClient() (*sftp.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sftp != nil {
		return c.sftp, nil
	}
	sc, err := sftp.NewClient(c.d.client)
	if err != nil {
		return nil, fmt.Errorf("starting SFTP on alias %s (the server needs its sftp subsystem): %w", c.alias, err)
	}
	c.sftp = sc
	return sc, nil
}
