package remote

import (
	"context"

	"github.com/mcptray/mcptray/app/control"
)

// HoldWindow registers this process's window of kind (control.WindowMain,
// control.WindowPopup) with the instance, and keeps it registered across
// the instance's restarts (registering it again once the instance is
// back). A receive on signals says "come to the front" (on its Tab): the
// tray asked for a window of this kind while this one is open; or "close"
// (Quit): mcptray quits. cancel unregisters it and
// closes raise. When HoldWindow returns, the window is registered, unless
// the instance is gone (then once it is back). A kind that is neither
// logs why and gives a closed channel.
func (c *Core) HoldWindow(kind string) (signals <-chan control.WindowSignal, cancel func()) {
	out := make(chan control.WindowSignal, 1)
	if err := control.CheckWindowKind(kind); err != nil {
		c.log.Error("registering a window", "err", err)
		close(out)
		return out, func() {}
	}
	ctx, stop := context.WithCancel(c.ctx)
	open := func(ctx context.Context) (<-chan control.WindowSignal, error) { return c.cl.HoldWindow(ctx, kind) }
	in, err := open(ctx)
	if err != nil {
		in = nil // hold redials
	}
	return out, c.spawn(stop, func() {
		defer close(out)
		for {
			if in == nil {
				var ok bool
				if in, ok = redial(ctx, c.log, "the "+kind+" window's registration", open); !ok {
					return
				}
			}
			for s := range in {
				select {
				case out <- s:
				case <-ctx.Done():
					return
				}
			}
			if ctx.Err() != nil {
				return
			}
			in = nil
		}
	})
}
