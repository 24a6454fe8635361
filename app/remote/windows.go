package remote

import (
	"context"

	"github.com/mcptray/mcptray/app/control"
)

// HoldWindow registers this process's window of kind (control.WindowMain,
// control.WindowPopup) with the instance, and keeps it registered across
// the instance's restarts (registering it again once the instance is
// back). A receive on raise means "come to the front": the tray asked for
// a window of this kind while this one is open. cancel unregisters it and
// closes raise. When HoldWindow returns, the window is registered, unless
// the instance is gone (then once it is back). A kind that is neither
// logs why and gives a closed channel.
func (c *Core) HoldWindow(kind string) (raise <-chan struct{}, cancel func()) {
	out := make(chan struct{}, 1)
	if err := control.CheckWindowKind(kind); err != nil {
		c.log.Error("registering a window", "err", err)
		close(out)
		return out, func() {}
	}
	ctx, stop := context.WithCancel(c.ctx)
	open := func(ctx context.Context) (<-chan struct{}, error) { return c.cl.HoldWindow(ctx, kind) }
	signals, err := open(ctx)
	if err != nil {
		signals = nil // hold redials
	}
	done := make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(done)
		defer close(out)
		for {
			if signals == nil {
				var ok bool
				if signals, ok = redial(ctx, c.log, "the "+kind+" window's registration", open); !ok {
					return
				}
			}
			for range signals {
				select {
				case out <- struct{}{}:
				default: // one waiting says it all
				}
			}
			if ctx.Err() != nil {
				return
			}
			signals = nil
		}
	}()
	return out, func() {
		stop()
		<-done
	}
}
