package app

import (
	"slices"
	"sync"

	"github.com/mcptray/mcptray/app/control"
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

// openWindow is one registered window: signals (cap 1, the latest wins)
// tells it to come to the front, or to close.
type openWindow struct{ signals chan control.WindowSignal }

// send gives w signal s, in place of one it has not read yet.
func (w *openWindow) send(s control.WindowSignal) {
	for {
		select {
		case w.signals <- s:
			return
		default:
			select {
			case <-w.signals: // the older one: s says more
			default:
			}
		}
	}
}

// RegisterWindow registers a window of kind shown by another process
// (the control API's Backend): signals gets a value when RaiseWindow asks
// for that kind, and when the instance quits (windowRegistry.quitAll); unregister
// takes it off (once; later calls do nothing).
func (c *Core) RegisterWindow(kind string) (signals <-chan control.WindowSignal, unregister func()) {
	w := &openWindow{signals: make(chan control.WindowSignal, 1)}
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
	return w.signals, func() {
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
// the main window on tab ("" for the one it shows), and reports whether
// there was one: when there was, the tray starts no other.
func (c *Core) RaiseWindow(kind, tab string) bool {
	r := &c.windows
	r.mu.Lock()
	defer r.mu.Unlock()
	for w := range r.open[kind] {
		w.send(control.WindowSignal{Raise: true, Tab: tab})
	}
	return len(r.open[kind]) > 0
}

// quitAll tells every registered window to close: mcptray quits.
func (r *windowRegistry) quitAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, open := range r.open {
		for w := range open {
			w.send(control.WindowSignal{Quit: true})
		}
	}
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
