package app

import (
	"slices"
	"sync"

	"github.com/mcptray/mcptray/mcp/downstream"
)

// The windows that other processes of the same binary show (`mcptray
// window`, `mcptray popup`, over app/remote) register here through the
// control API (POST /v1/windows/{kind}) for as long as they are open. The
// tray asks RaiseWindow first, and starts a process only when none of
// that kind is open.

// windowRegistry holds the open windows by kind. Its zero value is ready.
type windowRegistry struct {
	mu   sync.Mutex                          // guards open
	open map[string]map[*openWindow]struct{} // by kind
}

// openWindow is one registered window: raise (cap 1) tells it to come to
// the front.
type openWindow struct{ raise chan struct{} }

// RegisterWindow registers a window of kind shown by another process
// (the control API's Backend): raise gets a value when RaiseWindow asks
// for that kind, unregister takes it off (once; later calls do nothing).
func (c *Core) RegisterWindow(kind string) (raise <-chan struct{}, unregister func()) {
	w := &openWindow{raise: make(chan struct{}, 1)}
	r := &c.windows
	r.mu.Lock()
	if r.open == nil {
		r.open = make(map[string]map[*openWindow]struct{})
	}
	if r.open[kind] == nil {
		r.open[kind] = make(map[*openWindow]struct{})
	}
	r.open[kind][w] = struct{}{}
	r.mu.Unlock()
	c.log.Debug("window registered", "kind", kind)
	var once sync.Once
	return w.raise, func() {
		once.Do(func() {
			r.mu.Lock()
			delete(r.open[kind], w)
			r.mu.Unlock()
			c.log.Debug("window unregistered", "kind", kind)
		})
	}
}

// RaiseWindow tells every window of kind (control.WindowMain,
// control.WindowPopup) that another process shows to come to the front,
// and reports whether there was one: when there was, the tray starts no
// other.
func (c *Core) RaiseWindow(kind string) bool {
	r := &c.windows
	r.mu.Lock()
	defer r.mu.Unlock()
	for w := range r.open[kind] {
		select {
		case w.raise <- struct{}{}:
		default: // one waiting says it all
		}
	}
	return len(r.open[kind]) > 0
}

// kinds lists the kinds of window open, each once, sorted.
func (r *windowRegistry) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var kinds []string
	for kind, open := range r.open {
		if len(open) > 0 {
			kinds = append(kinds, kind)
		}
	}
	slices.Sort(kinds)
	return kinds
}

// OwnWindowProcess tells the peer check that pid is a window or popup
// process the tray app started itself (downstream.OwnProcess), which then
// talks to the control socket as the person's; forget takes it off once
// it has ended.
func (c *Core) OwnWindowProcess(pid int) (forget func()) { return downstream.OwnProcess(pid) }
