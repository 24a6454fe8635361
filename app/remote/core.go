package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/control"
)

// NotRunning is control.Status.Unreachable while the instance is gone, and
// the message of the calls that fail meanwhile.
const NotRunning = "mcptray is not running; waiting for it to start again"

// ErrClosed is the error of a call made after Close.
var ErrClosed = errors.New("the connection to mcptray is closed")

// callTimeout bounds one request to the instance; settingsTimeout the
// one ToolsMode makes, which a window may call on its main goroutine.
const (
	callTimeout     = 30 * time.Second
	settingsTimeout = 5 * time.Second
)

// Core is the running instance's core, seen over its control API. Make one
// with Dial; its methods are ui.Core's and may be called from any
// goroutine.
type Core struct {
	configPath, dataDir string
	log                 *slog.Logger
	cl                  *control.Client
	file                *config.File // mcp.json, edited here, written through the instance (app.OwnFile)

	ctx  context.Context // ends with Close: every stream and call
	stop context.CancelFunc
	wg   sync.WaitGroup // the status watch and each subscription's goroutine

	mu     sync.Mutex                       // guards the fields below
	status control.Status                   // the instance's last, or Unreachable
	subs   map[chan control.Status]struct{} // Subscribe's channels (cap 1, newest wins)
	closed bool                             // Close was called: no new subscription
}

// Dial connects to the instance running on dataDir (config file
// configPath) and returns a Core over it, once it has the instance's
// status. It fails with an error wrapping control.ErrNotRunning when no
// instance runs there. ctx bounds the dial, not the Core (Close ends it).
func Dial(ctx context.Context, configPath, dataDir string, log *slog.Logger) (*Core, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cl, err := control.Dial(dataDir)
	if err != nil {
		return nil, err
	}
	c := &Core{configPath: configPath, dataDir: dataDir, log: log, cl: cl, subs: make(map[chan control.Status]struct{})}
	c.ctx, c.stop = context.WithCancel(context.Background())
	c.file = app.OwnFile(c.ctx, cl, configPath, dataDir)
	updates, err := cl.WatchStatus(c.ctx)
	if err != nil {
		c.stop()
		return nil, err
	}
	select {
	case st, ok := <-updates:
		if !ok {
			c.stop()
			return nil, fmt.Errorf("%w: it went away while connecting", control.ErrNotRunning)
		}
		c.status = st
	case <-ctx.Done():
		c.stop()
		return nil, ctx.Err()
	}
	c.wg.Add(1)
	go c.followStatus(updates)
	return c, nil
}

// spawn runs follow in a goroutine of c's (Close waits for it) and
// returns what ends it: cancel (the context follow watches), then a wait
// for follow to return.
func (c *Core) spawn(cancel context.CancelFunc, follow func()) (stop func()) {
	done := make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(done)
		follow()
	}()
	return func() {
		cancel()
		<-done
	}
}

// Close ends every subscription and the status watch, and waits for their
// goroutines; later calls fail with ErrClosed.
func (c *Core) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.stop()
	c.wg.Wait()
	return nil
}

// Status returns the instance's status as its watch last said it (no
// request): with Unreachable set while the instance is gone.
func (c *Core) Status() control.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// Subscribe returns a channel that receives the status now, then the
// latest after every change (newest wins), including the instance going
// away (Unreachable) and coming back; cancel ends the subscription and
// closes the channel.
func (c *Core) Subscribe() (<-chan control.Status, func()) {
	ch := make(chan control.Status, 1)
	c.mu.Lock()
	ch <- c.status
	if c.closed {
		close(ch)
		c.mu.Unlock()
		return ch, func() {}
	}
	c.subs[ch] = struct{}{}
	c.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if _, ok := c.subs[ch]; ok {
				delete(c.subs, ch)
				close(ch)
			}
		})
	}
}

// followStatus keeps c.status the instance's newest, telling subscribers,
// until Close: when the watch ends the instance is gone, and it redials.
func (c *Core) followStatus(updates <-chan control.Status) {
	defer c.wg.Done()
	defer c.closeSubs()
	for {
		for st := range updates {
			c.setStatus(st)
		}
		if c.ctx.Err() != nil {
			return
		}
		c.log.Info("lost mcptray; waiting for it to start again")
		st := c.Status()
		st.Unreachable = NotRunning
		c.setStatus(st)
		var ok bool
		if updates, ok = redial(c.ctx, c.log, "the status", c.cl.WatchStatus); !ok {
			return
		}
		c.log.Info("mcptray is back")
	}
}

// setStatus makes st the status and gives it to every subscriber (the
// newest wins over one not read yet).
func (c *Core) setStatus(st control.Status) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status = st
	for ch := range c.subs {
		select {
		case <-ch:
		default:
		}
		ch <- st
	}
}

// closeSubs closes Subscribe's channels, at Close.
func (c *Core) closeSubs() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for ch := range c.subs {
		delete(c.subs, ch)
		close(ch)
	}
}

// call is the context of one request to the instance.
func (c *Core) call(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, d)
}

// fail is the error a call returns for err: after Close ErrClosed, while
// the instance is gone NotRunning (wrapping err, and so
// control.ErrNotRunning), else err.
func (c *Core) fail(err error) error {
	switch {
	case err == nil:
		return nil
	case c.ctx.Err() != nil:
		return ErrClosed
	case errors.Is(err, control.ErrNotRunning):
		return goneError{err}
	}
	return err
}

// goneError is a call's error while the instance is gone.
type goneError struct{ err error }

func (e goneError) Error() string { return NotRunning }
func (e goneError) Unwrap() error { return e.err }

// Retrying a stream: retryMin after the first failed try, doubling up to
// retryMax.
const (
	retryMin = 50 * time.Millisecond
	retryMax = time.Second
)

// redial opens a stream with open, at once and then with backoff, until
// it opens (ok) or ctx ends (not ok). what names the stream for the log;
// an error other than the instance being gone (a refusal) is logged once.
func redial[T any](ctx context.Context, log *slog.Logger, what string, open func(context.Context) (<-chan T, error)) (<-chan T, bool) {
	wait := time.Duration(0)
	var logged string
	for {
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, false
			}
		}
		ch, err := open(ctx)
		if err == nil {
			return ch, true
		}
		if ctx.Err() != nil {
			return nil, false
		}
		if !errors.Is(err, control.ErrNotRunning) && err.Error() != logged {
			logged = err.Error()
			log.Warn("reopening "+what, "err", err)
		}
		wait = min(max(2*wait, retryMin), retryMax)
	}
}
